"""A memory folder of one index and one Markdown file per fact, as Claude Code's auto memory keeps.

The folder holds ``MEMORY.md``, an index whose list items link to the topic
files (``- [Title](deploy.md) — one line``), and the topic files themselves,
each a frontmatter of ``name``, ``description`` and ``type``
(``user|feedback|project|reference``) over the fact's text. A topic file is one
note: its ``type: user`` notes are about the person and go to the user layer,
the rest to the project layer. An index item that links to a file is that
file's pointer and is not a note; an item that does not is a note of its own.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from pi_memory.entry import PROJECT, USER
from pi_memory.native import NativeFile, NativeFormatError, Remembered, bullets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

INDEX: Final = "MEMORY.md"
#: The ``type`` that describes the person rather than the project.
PERSON: Final = "user"
_LINK: Final = re.compile(r"^\[[^\]]*\]\(([^)\s]+\.md)\)")
_FIELD: Final = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


def folder(directory: Path) -> list[NativeFile]:
    """The folder's index and topic files, in name order (none when there is no folder)."""
    try:
        names = sorted(p.name for p in directory.iterdir() if p.suffix == ".md" and p.is_file())
    except OSError:
        return []
    return [
        NativeFile(directory / name, read_index if name == INDEX else partial(read_topic, name))
        for name in names
    ]


def frontmatter(text: str) -> tuple[dict[str, str], str]:
    """The ``key: value`` fields of a leading ``---`` block and the text after it."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---", 3)
    if end == -1 or text[end + 4 : end + 5] not in ("", "\n"):
        raise NativeFormatError("its frontmatter is never closed with ---")
    fields: dict[str, str] = {}
    for line in text[4:end].splitlines():
        match = _FIELD.match(line)
        if match:
            fields[match.group(1).lower()] = match.group(2).strip().strip("\"'")
        elif line.strip() and not line.startswith((" ", "\t", "#")):
            raise NativeFormatError(f"its frontmatter has a line that is no field: {line[:40]!r}")
    return fields, text[end + 4 :]


def read_topic(name: str, text: str) -> list[Remembered]:
    """One topic file as its note (none when it holds no text)."""
    fields, body = frontmatter(text)
    body = body.strip() or fields.get("description", "")
    if not body:
        return []
    layer = USER if fields.get("type", "").lower() == PERSON else PROJECT
    keywords = tuple(k for k in (fields.get("name", ""), Path(name).stem) if k)
    return [Remembered(body, keywords, layer)]


def read_index(text: str) -> list[Remembered]:
    """The index's items that are notes themselves (not links to a topic file)."""
    _, body = frontmatter(text)
    notes = [item for item in bullets(body.splitlines()) if not _LINK.match(item)]
    return [Remembered(note, (), PROJECT) for note in notes]
