"""What the agents remembered in their own formats, read as plain records for ``import``.

Each host's module says where its own memory lives (``Host.native_memory``: the
files, the layer each belongs to, and the reader of its format); a reader here
turns one file's text into :class:`Remembered` notes, pure, and raises
:class:`NativeFormatError` for a file it cannot read as its format, which
``import`` skips with one line and counts.
"""

from __future__ import annotations

from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


class NativeFormatError(ValueError):
    """The file is not what its host writes there: skipped, never half-imported."""


class Remembered(NamedTuple):
    """One note an agent kept, as ``import`` stores it."""

    body: str
    #: Keyword candidates, best first (the first valid one is kept; none: derived from the body).
    keywords: tuple[str, ...]
    #: ``user`` or ``project``.
    layer: str


class NativeFile(NamedTuple):
    """One file of a host's own memory."""

    path: Path
    #: The file's text → its notes; :class:`NativeFormatError` when it is malformed.
    read: Callable[[str], list[Remembered]]


def decoded(data: bytes) -> str:
    """A native file's text: UTF-8 (a byte-order mark dropped, ``\\r\\n`` read as ``\\n``)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise NativeFormatError(f"not UTF-8 text (byte {err.start})") from None
    if "\x00" in text:
        raise NativeFormatError("binary data, not Markdown")
    return text.lstrip("\ufeff").replace("\r\n", "\n")


def bullets(lines: list[str]) -> list[str]:
    """The Markdown list items among ``lines``: each ``- `` / ``* `` item with the lines
    indented under it (one line each); everything else is left out."""
    items: list[list[str]] = []
    open_item = False
    for line in lines:
        stripped = line.strip()
        if line[:2] in ("- ", "* "):
            items.append([stripped[2:].strip()])
            open_item = True
        elif open_item and stripped and line[:1] in (" ", "\t"):
            items[-1].append(stripped)
        elif stripped:
            open_item = False
    return ["\n".join(part for part in item if part) for item in items if any(item)]


def section_items(text: str, heading: str) -> list[str]:
    """The list items under every ``heading`` line, up to the next heading or comment (a
    marked section pi_memory wrote after it is not the agent's)."""
    lines = text.splitlines()
    items: list[str] = []
    for start, line in enumerate(lines):
        if line.strip() != heading:
            continue
        ends = (i for i in range(start + 1, len(lines)) if lines[i].startswith(("#", "<!--")))
        end = next(ends, len(lines))
        items += bullets(lines[start + 1 : end])
    return items
