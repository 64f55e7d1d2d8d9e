"""Reading a category file in bounded memory: a row over the bound is left out (pure
over a binary file handle).

Bodies are capped when written, but a category file may still hold a huge row (a
hand edit, a pull, a store written before the cap). Such a row is never read whole,
never parsed, never injected: the file is read a line (at most a chunk of one) at
a time, each row's bytes kept only while they fit, and a row that outgrows the
bound is dropped from what is read and said (its line and size). The file's bytes
are not touched.
"""

from __future__ import annotations

from typing import BinaryIO, Final, NamedTuple

from pi_memory.layouts.categories.format import decode, parse_header_fields

#: The most of one row (its header and body) that is read: far above any body a write
#: accepts, far below what would cost a reader time and memory.
MAX_ROW_BYTES: Final = 8 << 20
#: How much of a line is read at once.
_CHUNK: Final = 1 << 16


class Oversized(NamedTuple):
    #: The 1-based line the row starts at.
    line: int
    size: int


class Bounded(NamedTuple):
    #: The file's bytes without its oversized rows.
    data: bytes
    oversized: tuple[Oversized, ...]


def read_bounded(handle: BinaryIO, max_row: int = MAX_ROW_BYTES) -> Bounded:
    """The file ``handle`` reads, every row (and the text before the first) over
    ``max_row`` bytes left out; memory stays within ``max_row`` and a chunk."""
    kept = bytearray()
    part = bytearray()  # the row being read, while it fits
    part_line, part_size = 1, 0
    oversized: list[Oversized] = []
    line, at_start = 0, True
    while True:
        chunk = handle.readline(_CHUNK)
        if at_start:
            line += 1
        if not chunk or (at_start and _is_header(chunk)):
            if part_size > max_row:
                oversized.append(Oversized(part_line, part_size))
            else:
                kept += part
            if not chunk:
                return Bounded(bytes(kept), tuple(oversized))
            part = bytearray()
            part_line, part_size = line, 0
        at_start = chunk.endswith(b"\n")
        part_size += len(chunk)
        if part_size <= max_row:
            part += chunk
        elif part:
            part = bytearray()  # outgrew the bound: only its size is counted on


def _is_header(chunk: bytes) -> bool:
    return b"<!--" in chunk[:64] and parse_header_fields(decode(chunk)) is not None


def describe(file: str, row: Oversized, max_row: int = MAX_ROW_BYTES) -> str:
    """``show``'s place for a row left out."""
    return (
        f"{file}: the row at line {row.line} is {row.size:,} bytes, over the "
        f"{max_row:,} a row is read up to"
    )
