"""The keyword table of the ``categories`` layout: ``MEMORY.md`` and the injected block.

Both are rendered by the same builder from the same entries. ``MEMORY.md`` is
derived, program-owned and never read back, except its stats line: its
``sinceLast`` counts the entries written since the last consolidation and
``lastConsolidated`` says when that was (``never``: no code resets the
watermark yet, as no consolidation round exists). The injected text is
rendered from the category files at injection time, so a stale or damaged
``MEMORY.md`` can never change what the model sees.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from pi_memory.keywords import Tally, counted_line, keyword_rows
from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.layer_files import INDEX_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.entry import Entry
    from pi_memory.fs.staged_change import StagedChange
    from pi_memory.keywords import KeywordRow

CONTINUATION_WIDTH: Final = 100

HEADER_LINE: Final = (
    "<!-- AUTO-GENERATED — do not edit. This file is owned entirely by pi_memory: it is "
    "rewritten from the category files on every write and never read back, so a manual "
    "line is lost on the next write. -->"
)
_STATS_RE: Final = re.compile(
    r"<!-- stats: entries=(?P<entries>\d+) keywords=\d+ sinceLast=(?P<since>\d+)"
    r" lastConsolidated=(?P<last>\S+) -->"
)

#: What to run for the keyword search when the agent has no memory_search tool.
SEARCH_ARGS: Final = ("search", "--mode", "tag", "KEYWORD")
#: The contract; ``{search}`` is the search command as this package is started.
CONTRACT: Final = "\n".join(
    [
        "<memory-auto>",
        "This is the memory index: one line per KEYWORD from a past session. "
        "The memory bodies are NOT in context.",
        'When the current task touches any keyword below, call memory_search with mode:"tag" '
        'and that keyword (as shown, without "#") before you act, and use mode:"keyword" with '
        "your own words for anything else. Without that tool, run: {search}",
        '"(n)" after a keyword is how many memories share it.',
        "A memory records what was true when it was written. The user's current instruction "
        "always wins over a memory: when they disagree, follow the user and, in the same turn, "
        "write the corrected fact with memory_write and supersedes:[the old id]. When two "
        "memories disagree, the newer one wins; supersede the older one.",
        "</memory-auto>",
    ]
)


class Stats(NamedTuple):
    """The stats line of ``MEMORY.md``: the only part of it that is ever read back."""

    entries: int = 0
    since_last: int = 0
    last_consolidated: str = "never"


def parse_stats(text: str) -> Stats | None:
    match = _STATS_RE.search(text)
    if match is None:
        return None
    return Stats(int(match["entries"]), int(match["since"]), match["last"])


def advance_watermark(previous: Stats | None, entries_now: int) -> Stats:
    """``sinceLast`` grows by the delta in entry count, never below 0; missing file → 0."""
    if previous is None:
        return Stats(entries_now, 0)
    delta = max(0, entries_now - previous.entries)
    return Stats(entries_now, previous.since_last + delta, previous.last_consolidated)


def render_memory_md(rows: Sequence[KeywordRow], stats: Stats) -> str:
    head = [
        HEADER_LINE,
        f"<!-- stats: entries={stats.entries} keywords={len(rows)} "
        f"sinceLast={stats.since_last} lastConsolidated={stats.last_consolidated} -->",
    ]
    return "\n".join(head + [counted_line(row) for row in rows]) + "\n"


def more_marker(n: int) -> str:
    return f'(+{n} more — memory_search mode:"keyword")'


def _pack(words: Sequence[str]) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in words:
        if current and len(current) + 1 + len(word) > CONTINUATION_WIDTH:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines


def render_keyword_table(rows: Sequence[KeywordRow], budget: int) -> list[str]:
    """The table trimmed to ``budget`` characters (newlines counted), in three stages.

    1. Every keyword on its own counted line, if that fits.
    2. Otherwise the top keywords keep their counted lines and the rest are
       packed onto continuation lines without counts (a count is the least
       useful part of a line); as many counted lines as still let every
       keyword fit.
    3. If even that cannot fit, the counted lines take at most half the
       budget, the rest is packed while it fits, and a final line says how
       many keywords were left out and how to find them.
    """
    counted = [counted_line(row) for row in rows]
    bare = [f"#{row.keyword}" for row in rows]
    counted_cost = [len(line) + 1 for line in counted]
    bare_cost = [len(word) + 1 for word in bare]  # a space or a newline after each word
    if sum(counted_cost) <= budget:
        return counted
    suffix = [0] * (len(rows) + 1)
    for i in range(len(rows) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + bare_cost[i]
    prefix = 0
    best = -1
    for c in range(len(rows) + 1):
        if prefix + suffix[c] <= budget:
            best = c
        if c < len(rows):
            prefix += counted_cost[c]
    if best >= 0:
        return counted[:best] + _pack(bare[best:])
    return _truncated_table(counted, counted_cost, bare, bare_cost, budget)


def _truncated_table(
    counted: list[str], counted_cost: list[int], bare: list[str], bare_cost: list[int], budget: int
) -> list[str]:
    reserve = len(more_marker(len(bare))) + 1
    room = budget - reserve
    c = used = 0
    while c < len(counted) and used + counted_cost[c] <= room // 2:
        used += counted_cost[c]
        c += 1
    k = c
    while k < len(bare) and used + bare_cost[k] <= room:
        used += bare_cost[k]
        k += 1
    return [*counted[:c], *_pack(bare[c:k]), more_marker(len(bare) - k)]


def layer_block(
    label: str, entries: Sequence[Entry] | Tally, recalls: Mapping[str, int], budget: int
) -> str:
    """``global — 7 memories, 24 keywords`` and the table, or ``""`` for an empty layer
    (``entries``: the layer's, or their tally)."""
    live = entries.live if isinstance(entries, Tally) else sum(1 for e in entries if e.live)
    if not live:
        return ""
    rows = keyword_rows(entries, recalls)
    memories = "memory" if live == 1 else "memories"
    keywords = "keyword" if len(rows) == 1 else "keywords"
    head = f"{label} — {live} {memories}, {len(rows)} {keywords}"
    return "\n".join([head, *render_keyword_table(rows, budget)])


def render_injection(blocks: Sequence[str], search: str) -> str:
    """The whole injected text: the contract (``search``: the command that searches
    from a shell), then one block per non-empty layer."""
    present = [block for block in blocks if block]
    if not present:
        return ""
    return "\n\n".join([CONTRACT.format(search=search), *present]) + "\n"


def refresh_memory_md(
    directory: Path,
    entries: Sequence[Entry] | Tally,
    recalls: Mapping[str, int],
    *,
    reset: bool = False,
    rows: Sequence[KeywordRow] | None = None,
) -> None:
    """Rewrite ``directory/MEMORY.md`` from ``entries`` or their tally (only when its
    bytes change).

    ``reset`` marks a completed consolidation pass (``compact``): the watermark
    goes back to 0 and ``lastConsolidated`` to now. A layer with no entries
    loses its ``MEMORY.md``. Call with the store lock held; ``rows``, the keyword
    table of ``entries``, may be worked out before it was taken.
    """
    path = directory / INDEX_FILE
    try:
        old = path.read_text("utf-8", "surrogateescape")
    except FileNotFoundError:
        old = None
    text = memory_md_text(old, entries, recalls, reset=reset, rows=rows)
    if text is None:
        if old is not None:
            path.unlink()
    elif text != old:
        from pi_memory.fs.atomic import atomic_write_text

        atomic_write_text(path, text)


def staged_memory_md(
    directory: Path, entries: Sequence[Entry] | Tally, recalls: Mapping[str, int]
) -> StagedChange | None:
    """:func:`refresh_memory_md` worked out and staged now, to be put in place with the
    lock held if ``MEMORY.md`` is still as read (``None``: nothing to change)."""
    from pi_memory.fs.parse_cache import identity_of
    from pi_memory.fs.staged_change import StagedChange

    path = directory / INDEX_FILE
    try:
        with path.open("rb") as handle:
            identity = identity_of(os.fstat(handle.fileno()))
            old: str | None = handle.read().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        old, identity = None, None
    text = memory_md_text(old, entries, recalls)
    if text == old or (text is None and old is None):
        return None
    change = StagedChange()
    if text is None:
        change.remove(path, identity)
    else:
        change.replace(path, text.encode("utf-8", "surrogateescape"), identity)
    return change


def memory_md_text(
    old: str | None,
    entries: Sequence[Entry] | Tally,
    recalls: Mapping[str, int],
    *,
    reset: bool = False,
    rows: Sequence[KeywordRow] | None = None,
) -> str | None:
    """``MEMORY.md`` for ``entries``, its watermark carried on from ``old`` (the file
    now); ``None`` when the layer holds no entry (and has no ``MEMORY.md``)."""
    count = entries.entries if isinstance(entries, Tally) else len(entries)
    if not count:
        return None
    stats = advance_watermark(parse_stats(old) if old is not None else None, count)
    if reset:
        from datetime import datetime, timezone

        now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        stats = Stats(stats.entries, 0, now)
    table = keyword_rows(entries, recalls) if rows is None else rows
    return render_memory_md(table, stats)
