"""Which lines of a category file no memory was read from (pure).

Reading never fails and never drops a byte, so a damaged file would otherwise
look healthy: stray text, a row whose id is garbage, a git conflict marker, a
header that lost its ``-->`` (its line and the body under it then read as the
previous memory's body) or a header cut short by a crash. ``show`` reports
these lines by number so a person can look.
"""

from __future__ import annotations

import re

from pi_memory.layouts.categories.format import BOM, parse_category_text, parse_header_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

_HEADER_START: Final = re.compile(r"^[ \t]*<!--[ \t]*mid:")


def unread_lines(text: str) -> list[int]:
    """1-based numbers of the non-blank lines that are not part of a well-formed row."""
    parsed = parse_category_text(text, "", "")
    starts = {row.start for row in parsed.rows}
    covered = [False] * len(parsed.lines)
    for row in parsed.rows:
        for i in range(row.start, row.end):
            covered[i] = True
    unread: list[int] = []
    broken = False  # inside what follows a header that does not parse
    for number, line in enumerate(parsed.lines, start=1):
        i = number - 1
        if i in starts:
            broken = False
            continue
        bare = line.lstrip(BOM)
        if covered[i] and _HEADER_START.match(bare) and parse_header_fields(line) is None:
            broken = True
        if bare.strip() and (broken or not covered[i]):
            unread.append(number)
    return unread


def unread_places(text: str, file: str) -> list[str]:
    """:func:`unread_lines` as ``FILE:LINE`` places."""
    return [f"{file}:{number}" for number in unread_lines(text)]
