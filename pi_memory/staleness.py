"""Staleness: a memory not confirmed within its review interval is labelled, never removed.

The clock starts at the entry's own ``confirmed`` time (``last`` when it was
written again, else ``time``), so re-writing or superseding a memory refreshes
it and nothing is stored. A month is a fixed 30 days so the threshold cannot
drift with the calendar. Superseded entries are never stale: they are already
retired, and saying both would report them twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from pi_memory.entry import format_time, parse_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Protocol

    from pi_memory.entry import Entry
else:
    Protocol = object  # the type checker's structural base; typing costs a command milliseconds


DAYS_PER_MONTH: Final = 30


class Filed(Protocol):
    """What decides a memory's review interval: an :class:`Entry`, or a search index's brief."""

    @property
    def type(self) -> str: ...

    @property
    def file(self) -> str: ...


#: Review intervals of the ``categories`` layout's files, in months.
FILE_INTERVALS: Final = {
    "TOOLING.md": 3,
    "USER.md": 6,
    "CONVENTIONS.md": 6,
    "LESSONS.md": 12,
    "FAILURES.md": 12,
    "DECISIONS.md": 12,
}
#: The ``files`` layout names its files after the memory, so the ``type`` decides,
#: mapped to the category file holding the same kind of memory: a reference
#: points at an outside system that moves like tooling does (TOOLING.md), a
#: user memory is a preference (USER.md), feedback is a lesson (LESSONS.md)
#: and a project memory is a decision or convention that lasts (DECISIONS.md).
TYPE_INTERVALS: Final = {"reference": 3, "user": 6, "feedback": 12, "project": 12}
#: A memory whose kind is unknown gets the longest interval: a false "stale"
#: costs the reader's trust, a late one only a delay.
DEFAULT_INTERVAL: Final = 12


def interval_months(entry: Filed, review_months: int = 0) -> int:
    """The entry's review interval; ``review_months > 0`` overrides every file."""
    if review_months > 0:
        return review_months
    if entry.type:
        return TYPE_INTERVALS.get(entry.type, DEFAULT_INTERVAL)
    return FILE_INTERVALS.get(entry.file, DEFAULT_INTERVAL)


def sortable_time(text: str) -> str:
    """A stored time as ``YYYY-MM-DD HH:MM:SS``, which sorts chronologically.

    ``""`` when the text is not a time (it then sorts oldest). The common form
    is recognised without parsing, because search calls this once per entry.
    """
    if (
        len(text) == 19
        and text[4] == "-"
        and text[7] == "-"
        and text[10] == " "
        and text[13] == ":"
        and text[16] == ":"
    ):
        return text
    parsed = parse_time(text)
    return format_time(parsed) if parsed is not None else ""


def moment(text: str) -> datetime | None:
    """A sortable time (see :func:`sortable_time`) as a naive datetime."""
    try:
        return datetime(
            int(text[0:4]),
            int(text[5:7]),
            int(text[8:10]),
            int(text[11:13]),
            int(text[14:16]),
            int(text[17:19]),
        )
    except ValueError:
        return None


#: What :func:`seconds` counts from; a time before it has no count.
SECONDS_EPOCH: Final = datetime(2000, 1, 1)
#: Past the last count a 32-bit column holds.
SECONDS_END: Final = 0xFFFFFFFF
_DIGITS: Final = (0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18)


def seconds(text: str) -> int | None:
    """A sortable time (see :func:`sortable_time`) as whole seconds since
    :data:`SECONDS_EPOCH`, below :data:`SECONDS_END`: counts that order as the texts do
    and differ as :func:`moment` does. ``None`` for any other text (a time with other
    than ASCII digits where the digits go, one not a date, one out of range)."""
    if len(text) != 19 or not text.isascii() or not all(text[at].isdigit() for at in _DIGITS):
        return None
    if text[4] != "-" or text[7] != "-" or text[10] != " " or text[13] != ":" or text[16] != ":":
        return None
    when = moment(text)
    if when is None:
        return None
    since = when - SECONDS_EPOCH
    count = since.days * 86400 + since.seconds
    return count if 0 <= count < SECONDS_END else None


def local_now(now: datetime) -> datetime:
    """``now`` as the naive local time stored entries use, to the second."""
    if now.tzinfo is not None:
        now = now.astimezone().replace(tzinfo=None)
    return now.replace(microsecond=0)


def stale_cutoff(now: datetime, months: int) -> str:
    """Entries confirmed before this sortable time are stale for ``months``."""
    return format_time(local_now(now) - timedelta(days=months * DAYS_PER_MONTH))


def stale_age_days(entry: Entry, now: datetime, review_months: int = 0) -> int | None:
    """The entry's age in whole days when it is stale, else ``None``."""
    if not entry.live:
        return None
    confirmed = moment(sortable_time(entry.confirmed))
    if confirmed is None:
        return None
    age = local_now(now) - confirmed
    if age <= timedelta(days=interval_months(entry, review_months) * DAYS_PER_MONTH):
        return None
    return age.days


def stale_label(entry: Entry, now: datetime, review_months: int = 0) -> str | None:
    days = stale_age_days(entry, now, review_months)
    if days is None:
        return None
    months = interval_months(entry, review_months)
    return f"stale ({days}d, interval {months}mo) — verify before relying on it"


def clamp_review_months(value: int) -> int:
    """``PI_MEMORY_AUTO_REVIEW_MONTHS``: negative clamps to 0 (the per-file defaults)."""
    return max(0, value)


def stale_counts(entries: Iterable[Entry], now: datetime, review_months: int = 0) -> dict[str, int]:
    """How many entries of each file are stale: :func:`stale_label` for a whole layer.

    Compares sortable time strings against one cutoff per interval instead of
    parsing every timestamp; ``show`` runs it over every memory.
    """
    cutoffs: dict[int, str] = {}
    counts: dict[str, int] = {}
    for entry in entries:
        if entry.superseded_by:
            continue
        months = interval_months(entry, review_months)
        cutoff = cutoffs.get(months)
        if cutoff is None:
            cutoff = cutoffs[months] = stale_cutoff(now, months)
        when = sortable_time(entry.confirmed)
        if when and when < cutoff:
            counts[entry.file] = counts.get(entry.file, 0) + 1
    return counts
