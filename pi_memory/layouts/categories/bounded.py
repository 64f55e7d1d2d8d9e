"""Reading a category file in bounded memory: a row over the bound is left out (pure
over a binary file handle).

Bodies are capped when written, but a category file may still hold a huge row (a
hand edit, a pull, a store written before the cap). Such a row is never read whole,
never parsed, never injected: the file is read a line (at most a chunk of one) at
a time, each row's bytes kept only while they fit, and a row that outgrows the
bound is dropped from what is read and said (its line and size). The file's bytes
are not touched: a write to the file copies such a row around the rows it changes
(:func:`read_parts`, :func:`write_parts`) a piece at a time.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping, Sequence

from pi_memory.layouts.categories.format import (
    appended_row,
    decode,
    encode,
    parse_header_fields,
    rewrite_rows,
)
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Final, Union

    from pi_memory.entry import Entry

#: The most of one row (its header and body) that is read: far above any body a write
#: accepts, far below what would cost a reader time and memory.
MAX_ROW_BYTES: Final = 8 << 20
#: How much of a line is read at once.
_CHUNK: Final = 1 << 16
#: How much of a row left out is copied at once.
_COPY: Final = 1 << 20


class Oversized(NamedTuple):
    #: The 1-based line the row starts at.
    line: int
    size: int
    #: Where its bytes start in the file.
    offset: int = 0


#: A stretch of a category file: its bytes (whole rows, or the text before the first
#: row), or a row left out, by its place.
if TYPE_CHECKING:
    Part = Union[bytes, Oversized]


class Bounded(NamedTuple):
    #: The file's bytes without its oversized rows.
    data: bytes
    oversized: tuple[Oversized, ...]


def read_bounded(handle: BinaryIO, max_row: int = MAX_ROW_BYTES) -> Bounded:
    """The file ``handle`` reads, every row (and the text before the first) over
    ``max_row`` bytes left out; memory stays within ``max_row`` and a chunk."""
    parts = read_parts(handle, max_row)
    return Bounded(
        b"".join(part for part in parts if isinstance(part, bytes)),
        tuple(part for part in parts if isinstance(part, Oversized)),
    )


def read_parts(handle: BinaryIO, max_row: int = MAX_ROW_BYTES) -> list[Part]:
    """:func:`read_bounded` as the file's stretches in order: the bytes of the rows kept,
    and in its place each row left out (what a write copies around, unread)."""
    parts: list[Part] = []
    kept = bytearray()
    part = bytearray()  # the row being read, while it fits
    part_line, part_size, part_at = 1, 0, 0
    line, offset, at_start = 0, 0, True
    while True:
        chunk = handle.readline(_CHUNK)
        if at_start:
            line += 1
        if not chunk or (at_start and _is_header(chunk)):
            if part_size > max_row:
                parts += [bytes(kept)] if kept else []
                parts.append(Oversized(part_line, part_size, part_at))
                kept = bytearray()
            else:
                kept += part
            if not chunk:
                return [*parts, bytes(kept)] if kept or not parts else parts
            part = bytearray()
            part_line, part_size, part_at = line, 0, offset
        at_start = chunk.endswith(b"\n")
        part_size += len(chunk)
        offset += len(chunk)
        if part_size <= max_row:
            part += chunk
        elif part:
            part = bytearray()  # outgrew the bound: only its size is counted on


def rewrite_parts(
    parts: Sequence[Part], updates: Mapping[str, Entry], layer: str, file: str
) -> tuple[list[Part], dict[tuple[str, int], Entry]]:
    """:func:`rewrite_rows` over the stretches of kept rows, the rows left out kept as
    they are (a row lies in one stretch); each id of ``updates`` must have at most one
    row in the file, as its n-th row is counted in its stretch."""
    changed: list[Part] = []
    rewritten: dict[tuple[str, int], Entry] = {}
    for part in parts:
        if isinstance(part, Oversized) or not updates:
            changed.append(part)
            continue
        text = decode(part)
        new, done = rewrite_rows(text, updates, layer, file)
        changed.append(part if new == text else encode(new))
        rewritten.update(done)
    return changed, rewritten


def appended_after(handle: BinaryIO, entry: Entry) -> bytes:
    """What :func:`appended_row` adds at the end of the file ``handle`` reads, worked out
    from the file's first line (its line ending) and its last chunk (its last line)."""
    handle.seek(0)
    head = handle.readline(_CHUNK)
    end = handle.seek(0, os.SEEK_END)
    handle.seek(max(len(head), end - _CHUNK))
    return encode(appended_row(decode(head + handle.read()), entry))


def write_parts(out: BinaryIO, parts: Sequence[Part], source: BinaryIO) -> None:
    """Write ``parts`` to ``out``, each row left out copied from ``source`` (the file
    they were read from) a piece at a time."""
    for part in parts:
        if not isinstance(part, Oversized):
            out.write(part)
            continue
        source.seek(part.offset)
        left = part.size
        while left > 0:
            piece = source.read(min(left, _COPY))
            if not piece:
                raise OSError(errno.EIO, "the file got shorter while it was copied")
            out.write(piece)
            left -= len(piece)


def _is_header(chunk: bytes) -> bool:
    return b"<!--" in chunk[:64] and parse_header_fields(decode(chunk)) is not None


def describe(file: str, row: Oversized, max_row: int = MAX_ROW_BYTES) -> str:
    """``show``'s place for a row left out."""
    return (
        f"{file}: the row at line {row.line} is {row.size:,} bytes, over the "
        f"{max_row:,} a row is read up to"
    )
