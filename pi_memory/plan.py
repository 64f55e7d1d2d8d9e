"""What a write will do, decided before anything is touched: pure functions over entries.

The engine (:mod:`pi_memory.store`) reads the layer under its lock, asks a
function here what to change, and then has the layout do it. Nothing here
reads a file, takes a lock or knows a layout's format, so every decision can
be tested on plain :class:`~pi_memory.entry.Entry` records.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_memory.entry import Entry, is_id, normalize_memory_text
from pi_memory.errors import EntryRejected
from pi_memory.named_tuple import NamedTuple


class WriteRequest(NamedTuple):
    """A memory to write, already checked: what :func:`plan_write` decides from."""

    layer: str
    #: Validated and redacted.
    body: str
    keyword: str
    #: The file a new entry goes to (``""``: the layout names it).
    file: str
    #: Ids to retire, each once, in the order given.
    supersedes: tuple[str, ...]
    src: str
    project: str
    #: ``time`` of a new entry and ``last`` of a repeated one.
    stamp: str


class WritePlan(NamedTuple):
    #: The entry to store: a repeated one with ``seen``/``last`` bumped, or a new one.
    entry: Entry
    #: ``entry`` repeats a live memory of the same body (update it, do not append).
    deduped: bool
    #: The live entries ``entry`` supersedes, each marked ``superseded_by`` it.
    retire: tuple[Entry, ...]
    #: Requested ids the layer does not have.
    unknown: tuple[str, ...]


def checked_supersedes(supersedes: Sequence[str]) -> tuple[str, ...]:
    """The ids to supersede, each once; :class:`EntryRejected` for one that is not an id."""
    bad = [s for s in supersedes if not is_id(s)]
    if bad:
        raise EntryRejected(f"supersedes takes entry ids like 20261011-a1b2, not {bad[0]!r}")
    return tuple(dict.fromkeys(supersedes))


def plan_write(entries: Sequence[Entry], request: WriteRequest, fresh_id: str) -> WritePlan:
    """pi-memory-auto's ``appendEntry`` decided on the layer's ``entries``.

    A live memory whose body normalises the same is repeated (``seen`` + 1,
    ``last`` = now, the new supersede links merged in); otherwise a new entry
    with id ``fresh_id`` is appended. Then every requested id of a live memory
    other than the stored one is retired in its favour.
    """
    match = repeated(entries, request)
    if match is not None:
        merged = tuple(dict.fromkeys(match.supersedes + request.supersedes))
        entry = match._replace(
            seen=match.seen + 1,
            last=request.stamp,
            supersedes=tuple(s for s in merged if s != match.id),
        )
    else:
        entry = Entry(
            id=fresh_id,
            time=request.stamp,
            project=request.project,
            src=request.src,
            keyword=request.keyword,
            body=request.body,
            layer=request.layer,
            file=request.file,
            supersedes=request.supersedes,
        )
    known = {e.id: e for e in entries}
    retire = tuple(
        known[s]._replace(superseded_by=entry.id)
        for s in request.supersedes
        if s in known and s != entry.id and known[s].live
    )
    unknown = tuple(s for s in request.supersedes if s not in known and s != entry.id)
    return WritePlan(entry, match is not None, retire, unknown)


def repeated(entries: Sequence[Entry], request: WriteRequest) -> Entry | None:
    """The live memory of ``entries`` that ``request`` repeats (its body normalises the
    same), if any: then :func:`plan_write` needs no fresh id."""
    norm = normalize_memory_text(request.body)
    return next((e for e in entries if e.live and normalize_memory_text(e.body) == norm), None)


def entries_after(
    entries: Sequence[Entry], stored: Entry, deduped: bool, retired: Sequence[Entry]
) -> list[Entry]:
    """The layer's entries once ``stored`` and ``retired`` are written (for its index)."""
    changed = {stored.id: stored, **{e.id: e for e in retired}}
    after = [changed.get(e.id, e) for e in entries]
    return after if deduped else [*after, changed.get(stored.id, stored)]


class ImportPlan(NamedTuple):
    new: tuple[Entry, ...]
    #: Ids in the target that differ from the source, with the source's copy merged in.
    differing: tuple[Entry, ...]
    identical: int


class ImportOutcome(NamedTuple):
    new: int
    identical: int
    differing: tuple[str, ...]
    replaced: bool


def plan_import(
    entries: Sequence[Entry], existing: Sequence[Entry], default_src: str = ""
) -> ImportPlan:
    """Which memories are new, which exist but differ, and how many exist identically.

    ``default_src`` is the ``src`` the target stores for a memory without one.
    """
    by_id = {e.id: e for e in existing}
    new: list[Entry] = []
    differing: list[Entry] = []
    identical = 0
    seen_ids: set[str] = set()
    for entry in entries:
        if entry.id in seen_ids:
            continue
        seen_ids.add(entry.id)
        old = by_id.get(entry.id)
        if old is None:
            new.append(entry)
        elif _core(entry, default_src) == _core(old, default_src):
            identical += 1
        else:
            differing.append(_merged(old, entry))
    return ImportPlan(tuple(new), tuple(differing), identical)


def _core(entry: Entry, default_src: str) -> tuple[object, ...]:
    """What both layouts hold of a memory, as the target would store it."""
    from pi_memory.text import js_trim

    return (
        js_trim(entry.body),
        entry.keyword,
        entry.time,
        entry.project,
        entry.src or default_src,
        entry.seen,
        entry.last,
        entry.supersedes,
        entry.superseded_by,
    )


def _merged(old: Entry, new: Entry) -> Entry:
    return old._replace(
        body=new.body,
        keyword=new.keyword,
        time=new.time,
        project=new.project,
        src=new.src or old.src,
        seen=new.seen,
        last=new.last,
        supersedes=new.supersedes,
        superseded_by=new.superseded_by,
        # The source's times, as a first import would have written them.
        modified=new.modified,
    )


def plan_native_import(
    existing: Sequence[Entry], found: Sequence[Entry]
) -> tuple[list[Entry], list[Entry]]:
    """Which of ``found`` (notes another agent kept, as entries of their layer) are new
    and which repeat a memory: the same fact as a live memory of their layer or as an
    earlier note of ``found``, by the near-duplicate rule of
    :mod:`pi_memory.detect.duplicates` (an identical body counts, a rewording may).

    Importing what was just imported thus finds nothing new. ``found`` entries need
    ids of their own that no memory has.
    """
    from pi_memory.detect.duplicates import find_duplicates

    order = {entry.id: index for index, entry in enumerate(found)}
    live = [entry for entry in existing if entry.live]
    repeats: set[str] = set()
    for pair in find_duplicates([*live, *found]):
        rank_a, rank_b = order.get(pair.a), order.get(pair.b)
        if rank_a is None and rank_b is None:
            continue  # two memories the layer already has
        if rank_a is None or rank_b is None:
            repeats.add(pair.b if rank_a is None else pair.a)
        else:
            repeats.add(pair.a if rank_a > rank_b else pair.b)
    new = [entry for entry in found if entry.id not in repeats]
    return new, [entry for entry in found if entry.id in repeats]
