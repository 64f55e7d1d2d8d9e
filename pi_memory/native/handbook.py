"""A memory handbook of header blocks over list items, as Codex's memories folder keeps.

``MEMORY.md`` is a series of blocks, each a ``---`` header (the sessions it
came from as ``rollout_summary_files`` annotated with ``cwd=…``, a
``description``, ``keywords: a, b``) over list items, one lesson each. A block
whose sessions all ran in the project goes to the project layer, any other to
the user layer. ``memory_summary.md``'s ``## General Tips`` items hold what
applies to every session: the user layer.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from pi_memory.entry import PROJECT, USER
from pi_memory.native import NativeFile, NativeFormatError, Remembered, bullets, section_items

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

HANDBOOK: Final = "MEMORY.md"
SUMMARY: Final = "memory_summary.md"
TIPS: Final = "## General Tips"
_CWD: Final = re.compile(r"cwd=([^,)]+)")


def folder(directory: Path, project: Path) -> list[NativeFile]:
    """The handbook and the summary, those that exist."""
    found = [
        NativeFile(directory / HANDBOOK, partial(read_handbook, project)),
        NativeFile(directory / SUMMARY, read_summary),
    ]
    return [native for native in found if native.path.is_file()]


def _blocks(lines: list[str]) -> list[tuple[list[str], list[str]]]:
    """``(header lines, body lines)`` of each block; text before the first header is a
    block without one."""
    blocks: list[tuple[list[str], list[str]]] = [([], [])]
    at = 0
    while at < len(lines):
        if lines[at].strip() == "---":
            close = next((i for i in range(at + 1, len(lines)) if lines[i].strip() == "---"), -1)
            if close == -1:
                raise NativeFormatError(f"the header at line {at + 1} is never closed with ---")
            blocks.append((lines[at + 1 : close], []))
            at = close + 1
            continue
        blocks[-1][1].append(lines[at])
        at += 1
    return blocks


def _layer(header: list[str], project: Path) -> str:
    places = [Path(match.strip()) for line in header for match in _CWD.findall(line)]
    inside = [p == project or project in p.parents for p in places]
    return PROJECT if inside and all(inside) else USER


def _keywords(header: list[str]) -> tuple[str, ...]:
    for line in header:
        name, _, value = line.partition(":")
        if name.strip().lower() == "keywords":
            return tuple(k.strip() for k in value.split(",") if k.strip())
    return ()


def read_handbook(project: Path, text: str) -> list[Remembered]:
    notes: list[Remembered] = []
    for header, body in _blocks(text.splitlines()):
        layer, keywords = _layer(header, project), _keywords(header)
        notes += [Remembered(item, keywords, layer) for item in bullets(body)]
    return notes


def read_summary(text: str) -> list[Remembered]:
    """The ``## General Tips`` items (the profile and the index of the handbook are not notes)."""
    return [Remembered(item, (), USER) for item in section_items(text, TIPS)]
