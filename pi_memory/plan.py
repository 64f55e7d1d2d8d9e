"""What a write will do, decided before anything is touched: pure functions over entries.

The engine (:mod:`pi_memory.store`) reads the layer under its lock, asks a
function here what to change, and then has the layout do it. Nothing here
reads a file, takes a lock or knows a layout's format, so every decision can
be tested on plain :class:`~pi_memory.entry.Entry` records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pi_memory.entry import Entry


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
