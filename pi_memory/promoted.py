"""The promoted memories as the lines of their section in the instruction files; pure.

``promote ID`` copies a memory into the ``promoted`` section
(:mod:`pi_memory.instruction_files`), one item a memory::

    - [20261011-a1b2] Deploy with `rsync --delete`; back up the release first.
      a second line of the body, indented

The id in brackets is how a later ``promote`` finds the item again: promoting
a memory twice replaces its item (an edited memory's new words), ``--remove``
takes it out, and the other items keep their place and their bytes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: The section's name in its markers.
SECTION: Final = "promoted"
#: What the begin marker says to a person reading the file.
NOTE: Final = (
    "memories promoted by `python -m pi_memory promote`; edit around this section, "
    "`promote --remove ID` takes one out"
)
_ITEM: Final = re.compile(r"^- \[([^\]\s]+)\] ")
_INDENT: Final = "  "


def parse_items(lines: Sequence[str]) -> dict[str, list[str]]:
    """Each promoted id → its item's lines, in the section's order.

    A line before the first item (a person's note inside the markers) is kept
    with the item ``""``, so rewriting the section loses nothing.
    """
    items: dict[str, list[str]] = {}
    current = ""
    for line in lines:
        match = _ITEM.match(line)
        if match:
            current = match.group(1)
            items[current] = []
        items.setdefault(current, []).append(line)
    return items


def item_lines(memory_id: str, body: str) -> list[str]:
    """One memory as its item: the body's lines, blank ones dropped, safe in the section."""
    from pi_memory.instruction_files import safe_line

    lines = [safe_line(line).rstrip() for line in body.strip().splitlines()]
    kept = [line for line in lines if line.strip()] or ["(empty)"]
    return [f"- [{memory_id}] {kept[0]}", *(_INDENT + line for line in kept[1:])]


def with_item(lines: Sequence[str], memory_id: str, body: str) -> list[str]:
    """The section's lines with the memory's item added at the end or replaced in place."""
    items = parse_items(lines)
    items[memory_id] = item_lines(memory_id, body)
    return [line for item in items.values() for line in item]


def without_item(lines: Sequence[str], memory_id: str) -> list[str]:
    items = parse_items(lines)
    items.pop(memory_id, None)
    if set(items) == {""}:  # only a person's note is left: the section goes
        return []
    return [line for item in items.values() for line in item]
