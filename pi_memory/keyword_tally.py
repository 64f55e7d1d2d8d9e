"""A layer's keyword tally kept per file, so the path after a change reads one file, not the layer.

The keyword table (``MEMORY.md`` and the injected block) is made of how many
live memories carry each keyword spelling, when each spelling was first
written, and the recalls. A search changes only the recalls; a write changes
one file. So each file's *facts* (every entry's id, spelling, liveness and
time, and the counts they add up to) are kept apart from the recalls, in the
parse cache under the file's identity (:mod:`pi_memory.fs.parse_cache`), and a
layer's :class:`~pi_memory.keywords.Tally` is summed from its files' facts: a
session start after a search re-sorts, one after a write reads the facts the
write left for the file it changed. Facts are derived state like the parse
cache: a file whose identity changed has its facts worked out again.

A project layer in a git repository is split into the user's own memories and
those from the repository (:mod:`pi_memory.provenance`); :func:`split_tally`
sums either part from the same facts.
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence

from pi_memory.keywords import Tally, canonical_key, grouped
from pi_memory.named_tuple import NamedTuple
from pi_memory.staleness import sortable_time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.entry import Entry

#: The version of the rules that make facts from entries (the parse cache's ``rules``).
RULES: Final = 2
#: The parse cache's kind for facts.
KIND: Final = "tally"
#: Orders of different files never meet: file ``n``'s entry ``i`` is ``n * _FILE_STRIDE + i``.
_FILE_STRIDE: Final = 1 << 32


class FileFacts(NamedTuple):
    """What one file adds to its layer's keyword table; plain values, so marshal keeps it."""

    ids: tuple[str, ...]
    #: The distinct spellings, in the order they first occur.
    spellings: tuple[str, ...]
    #: Per entry, its spelling's number (``array("I")`` bytes).
    spelling_of: bytes
    #: Per entry, 1 when live.
    live: bytes
    #: Per entry, its sortable time.
    times: tuple[str, ...]
    #: Per spelling, its live entries.
    counts: tuple[int, ...]
    #: Per spelling, the position of its earliest live entry (-1: none live).
    earliest: tuple[int, ...]
    #: Per spelling, its canonical key.
    keys: tuple[str, ...]
    #: The file's rows before a git union merge's repeats were folded (as many as
    #: ``ids`` when none were: then position ``n`` here is the file's ``n``-th row).
    rows: int


def facts_of(entries: Sequence[Entry], rows: int | None = None) -> FileFacts:
    """The facts of one file's ``entries`` (as read: folded, in file order; ``rows``: how
    many rows they were folded from, when not one each)."""
    number: dict[str, int] = {}
    spelling_of = array("I")
    live = bytearray()
    times: list[str] = []
    counts: list[int] = []
    earliest: list[int] = []
    for position, entry in enumerate(entries):
        n = number.get(entry.keyword)
        if n is None:
            n = number[entry.keyword] = len(number)
            counts.append(0)
            earliest.append(-1)
        spelling_of.append(n)
        written = sortable_time(entry.time)
        times.append(written)
        if entry.superseded_by:
            live.append(0)
            continue
        live.append(1)
        counts[n] += 1
        first = earliest[n]
        if first < 0 or written < times[first]:
            earliest[n] = position
    return FileFacts(
        tuple(entry.id for entry in entries),
        tuple(number),
        spelling_of.tobytes(),
        bytes(live),
        tuple(times),
        tuple(counts),
        tuple(earliest),
        tuple(canonical_key(spelling) for spelling in number),
        len(entries) if rows is None else rows,
    )


def appended(facts: FileFacts, entries: Sequence[Entry]) -> FileFacts:
    """``facts`` with ``entries`` appended to the file (a write's new row)."""
    number = {spelling: n for n, spelling in enumerate(facts.spellings)}
    spellings, keys = list(facts.spellings), list(facts.keys)
    counts, earliest = list(facts.counts), list(facts.earliest)
    spelling_of = array("I")
    spelling_of.frombytes(facts.spelling_of)
    live, times = bytearray(facts.live), list(facts.times)
    for entry in entries:
        position = len(times)
        n = number.get(entry.keyword)
        if n is None:
            n = number[entry.keyword] = len(spellings)
            spellings.append(entry.keyword)
            keys.append(canonical_key(entry.keyword))
            counts.append(0)
            earliest.append(-1)
        spelling_of.append(n)
        times.append(sortable_time(entry.time))
        live.append(0 if entry.superseded_by else 1)
        if not entry.superseded_by:
            counts[n] += 1
            first = earliest[n]
            if first < 0 or times[position] < times[first]:
                earliest[n] = position
    return FileFacts(
        (*facts.ids, *(entry.id for entry in entries)),
        tuple(spellings),
        spelling_of.tobytes(),
        bytes(live),
        tuple(times),
        tuple(counts),
        tuple(earliest),
        tuple(keys),
        facts.rows + len(entries),
    )


def replaced(facts: FileFacts, changes: Mapping[int, Entry]) -> FileFacts | None:
    """``facts`` with the entries at these positions rewritten in place (a repeat's
    ``seen``, a superseded mark); ``None`` when folded rows make positions uncertain or
    an id or keyword changed (the facts are worked out again then)."""
    if facts.rows != len(facts.ids):
        return None
    spelling_of = array("I")
    spelling_of.frombytes(facts.spelling_of)
    live, times = bytearray(facts.live), list(facts.times)
    touched: set[int] = set()
    for position, entry in changes.items():
        if not 0 <= position < len(times) or facts.ids[position] != entry.id:
            return None
        n = spelling_of[position]
        if facts.spellings[n] != entry.keyword:
            return None
        live[position] = 0 if entry.superseded_by else 1
        times[position] = sortable_time(entry.time)
        touched.add(n)
    counts, earliest = list(facts.counts), list(facts.earliest)
    for n in touched:
        counts[n], earliest[n] = 0, -1
    for position, n in enumerate(spelling_of):
        if n in touched and live[position]:
            counts[n] += 1
            first = earliest[n]
            if first < 0 or times[position] < times[first]:
                earliest[n] = position
    return facts._replace(
        live=bytes(live), times=tuple(times), counts=tuple(counts), earliest=tuple(earliest)
    )


def is_facts(record: Sequence[object]) -> FileFacts:
    """A cached record as facts (a record of another shape raises, and is a miss)."""
    facts = FileFacts._make(record)
    spellings = len(facts.spellings)
    if len(facts.live) != len(facts.ids) or {len(facts.counts), len(facts.keys)} != {spellings}:
        raise ValueError("facts of another shape")
    return facts


def layer_tally(files: Sequence[FileFacts]) -> Tally:
    """The tally of a layer whose files, in order, have ``files``."""
    return split_tally(files, [None] * len(files), foreign=False)


#: The last tallies summed, with the very facts they were summed from (a session start
#: asks for each twice: for ``MEMORY.md``, then for the injection).
_LAST: list[tuple[tuple[FileFacts, ...], tuple[Collection[str] | None, ...], bool, Tally]] = []


def split_tally(
    files: Sequence[FileFacts], own: Sequence[Collection[str] | None], *, foreign: bool
) -> Tally:
    """The tally of one part of a layer: per file, ``own[n]`` names the ids of file ``n``
    that are not from the repository (``None``: all of them). ``foreign`` picks the
    memories from the repository, else the others."""
    for seen_files, seen_own, seen_foreign, tally in _LAST:
        same_files = len(seen_files) == len(files) and all(map(operator.is_, seen_files, files))
        if same_files and seen_foreign == foreign and list(seen_own) == list(own):
            return tally
    tally = _summed(files, own, foreign)
    _LAST[:] = [*_LAST[-3:], (tuple(files), tuple(own), foreign, tally)]
    return tally


def _summed(
    files: Sequence[FileFacts], own: Sequence[Collection[str] | None], foreign: bool
) -> Tally:
    counts: dict[str, int] = {}
    keys: dict[str, str] = {}
    parts: list[tuple[int, FileFacts, Sequence[int]]] = []
    entries = live = 0
    for base, facts, part in _file_parts(files, own, foreign):
        entries += part[0]
        live += part[1]
        parts.append((base, facts, part[3]))
        keys.update(zip(facts.spellings, facts.keys))
        if not counts:
            counts.update(zip(facts.spellings, part[2]))
            continue
        for spelling, count in zip(facts.spellings, part[2]):
            if count:
                counts[spelling] = counts.get(spelling, 0) + count
    return grouped(entries, live, counts, _earliest_in(parts), keys)


def _file_parts(
    files: Sequence[FileFacts], own: Sequence[Collection[str] | None], foreign: bool
) -> Iterator[tuple[int, FileFacts, _Part]]:
    """Each file's part of the tally (the whole file, or its own entries where ``own``
    names them; a file with none left out where ``foreign``), with the order of its
    first entry."""
    for n, (facts, mine) in enumerate(zip(files, own)):
        if mine is None:
            if foreign:
                continue
            part = _whole(facts)
        else:
            part = _part(facts, mine, foreign)
        yield n * _FILE_STRIDE, facts, part


def groups_of(
    files: Sequence[FileFacts],
    own: Sequence[Collection[str] | None],
    keys: Collection[str],
    *,
    foreign: bool,
) -> tuple[int, int, dict[str, tuple[int, str] | None]]:
    """What :func:`split_tally` of the same arguments holds of ``keys`` alone: its entries,
    its live entries, and per key its live count and the spelling it is shown in (``None``:
    no live entry carries it). A write changed a few keywords; the others are not summed."""
    wanted = frozenset(keys)
    counts: dict[str, int] = {}
    key_of: dict[str, str] = {}
    parts: list[tuple[int, FileFacts, Sequence[int]]] = []
    entries = live = 0
    for base, facts, part in _file_parts(files, own, foreign):
        entries += part[0]
        live += part[1]
        parts.append((base, facts, part[3]))
        for key in wanted:
            at = -1
            while True:
                try:
                    at = facts.keys.index(key, at + 1)
                except ValueError:
                    break
                spelling = facts.spellings[at]
                counts[spelling] = counts.get(spelling, 0) + part[2][at]
                key_of[spelling] = key
    summed = grouped(entries, live, counts, _earliest_in(parts), key_of)
    found: dict[str, tuple[int, str] | None] = dict.fromkeys(wanted)
    found.update((key, (count, shown)) for key, count, shown in summed.groups)
    return entries, live, found


def _earliest_in(
    parts: Sequence[tuple[int, FileFacts, Sequence[int]]],
) -> Callable[[str], tuple[str, int]]:
    """A spelling's earliest live entry in ``parts`` as (time, order); worked out only for
    the few keywords with several spellings."""
    numbers: list[dict[str, int]] = []

    def earliest(spelling: str) -> tuple[str, int]:
        if not numbers:
            numbers.extend({s: i for i, s in enumerate(f.spellings)} for _, f, _ in parts)
        best: tuple[str, int] | None = None
        for (base, facts, firsts), number in zip(parts, numbers):
            n = number.get(spelling)
            if n is None or firsts[n] < 0:
                continue
            here = (facts.times[firsts[n]], base + firsts[n])
            if best is None or here < best:
                best = here
        return best if best is not None else ("", -1)

    return earliest


_Part = tuple[int, int, Sequence[int], Sequence[int]]


def _whole(facts: FileFacts) -> _Part:
    return len(facts.ids), sum(facts.counts), facts.counts, facts.earliest


def _part(facts: FileFacts, mine: Collection[str], foreign: bool) -> _Part:
    """Entries, live entries, counts and earliest positions of the file's own entries
    (``foreign``: of the others). Own entries are few: the others are the whole less them."""
    wanted = mine if isinstance(mine, (set, frozenset)) else frozenset(mine)
    own = [position for position, entry_id in enumerate(facts.ids) if entry_id in wanted]
    spelling_of = array("I")
    spelling_of.frombytes(facts.spelling_of)
    counts = [0] * len(facts.spellings)
    earliest = [-1] * len(facts.spellings)
    for position in own:
        if facts.live[position]:
            n = spelling_of[position]
            counts[n] += 1
            first = earliest[n]
            if first < 0 or facts.times[position] < facts.times[first]:
                earliest[n] = position
    if not foreign:
        return len(own), sum(counts), counts, earliest
    theirs = [whole - mine_n for whole, mine_n in zip(facts.counts, counts)]
    first_of = list(facts.earliest)
    lost = {n for n, first in enumerate(first_of) if first >= 0 and earliest[n] == first}
    for n in lost:
        first_of[n] = -1
    if lost:
        taken = set(own)
        for position, n in enumerate(spelling_of):
            if n in lost and facts.live[position] and position not in taken:
                first = first_of[n]
                if first < 0 or facts.times[position] < facts.times[first]:
                    first_of[n] = position
    return len(facts.ids) - len(own), sum(theirs), theirs, first_of
