"""The ``===KIND===`` blocks of a model's reply, and the ``KEY: value`` fields of one.

A line that reads as a block marker (``===``, a word, ``===``; spaces allowed)
ends the block before it, whatever its kind, so no field -- not even the free
text after ``BODY:`` or ``TEXT:`` -- runs on over a marker: a reply cannot hide a
whole block, with its own ids and paths, inside a memory's text. A block of a
kind the caller does not expect is reported and left out, never read; text
before the first marker is the model talking, and is ignored.
"""

from __future__ import annotations

import re

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

MARKER_RE: Final = re.compile(r"^[ \t]*===[ \t]*([A-Za-z][A-Za-z _-]*?)[ \t]*===[ \t]*$", re.M)
_FIELD_RE: Final = re.compile(r"^([A-Za-z]+)\s*:\s*(.*)$")


class Block(NamedTuple):
    #: The marker's word, upper-cased (``MEMORY``, ``MERGE``).
    kind: str
    #: Everything up to the next marker.
    text: str


def blocks(text: str) -> list[Block]:
    """The reply's blocks in order."""
    parts = MARKER_RE.split(text)
    return [Block(kind.strip().upper(), body) for kind, body in zip(parts[1::2], parts[2::2])]


def split_block(
    block: str, text_fields: tuple[str, ...] = ("BODY", "TEXT")
) -> tuple[dict[str, str], str]:
    """``KEY: value`` header lines (upper-cased keys; the first of a key counts) and the
    text after the first of ``text_fields``, to the end of the block."""
    fields: dict[str, str] = {}
    lines = block.strip("\n").split("\n")
    for i, line in enumerate(lines):
        match = _FIELD_RE.match(line.strip())
        if match is None:
            continue
        key = match.group(1).upper()
        if key in text_fields:
            rest = [match.group(2), *lines[i + 1 :]]
            return fields, "\n".join(rest).strip()
        fields.setdefault(key, match.group(2).strip())
    return fields, ""
