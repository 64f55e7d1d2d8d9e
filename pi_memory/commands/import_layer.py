"""``import --from A --to B <layer>``: copy one layer from one layout to the other.

Everything the engine knows survives: ids, keyword, times, ``seen``/``last``,
supersede links (superseded memories are copied too), ``p:``/``src:``, and
type ↔ category by the table in :mod:`pi_memory.layouts.files`.

What only one layout has travels in the other, written only when it carries
information, so a layer that never left the categories layout round-trips
byte for byte: a category row carries a memory's files-layout fields (see
:mod:`pi_memory.layouts.categories`), and an entry file carries a row's
category and legacy ``tags`` text (see :mod:`pi_memory.layouts.files`). Each
layout's ``append`` takes a memory read from the other; this command only
plans and copies.

An id that already exists in the target is **never overwritten silently**.
A copy identical in what both layouts hold (body, keyword, time, project,
src, seen, last, supersede links) is skipped; a copy that differs is listed
by id and left as it is, unless the user picks a side with
``--on-conflict replace`` (the source's copy replaces the target's in place;
what only the target layout has, a files memory's name or a row's category,
stays). So importing twice changes nothing the second time, and edits made
in the target since the first import survive a second one.

Known losses, each pinned by a test: the files layout orders memories by
``modified``, so category rows come back in time order; a memory's empty
description comes back derived from its body; an empty ``src:`` becomes
``user`` in the files layout.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from pi_memory.entry import Entry
    from pi_memory.layouts import LayerStore
    from pi_memory.store import Settings

FILES: Final = "files"


KEEP: Final = "keep"
REPLACE: Final = "replace"
ON_CONFLICT: Final = (KEEP, REPLACE)


@dataclass(frozen=True)
class Plan:
    new: tuple[Entry, ...]
    #: Ids in the target that differ from the source, with the source's copy merged in.
    differing: tuple[Entry, ...]
    identical: int


@dataclass(frozen=True)
class Outcome:
    new: int
    identical: int
    differing: tuple[str, ...]
    replaced: bool


# ----------------------------------------------------------------------------- command


def run_import(*, source: str, target: str, layer: str, on_conflict: str = KEEP) -> int:
    from pi_memory.errors import UsageError
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer

    if source == target:
        raise UsageError(f"--from and --to are both {source}: import converts between layouts")
    if on_conflict not in ON_CONFLICT:
        raise UsageError(f"--on-conflict is {KEEP} or {REPLACE}, not {on_conflict!r}")
    name = parse_layer(layer)
    src_settings, dst_settings = _settings_pair(source, target)
    src_dir, dst_dir = src_settings.dirs[name], dst_settings.dirs[name]
    entries = read_source(source, name, src_dir) if src_dir.is_dir() else []
    if not entries:
        write_line(f"nothing to import: no {name} memories in {source} {src_dir}")
        return 0
    outcome = import_entries(entries, dst_settings, name, replace=on_conflict == REPLACE)
    retry = f"python -m pi_memory import --from {source} --to {target} --on-conflict replace {name}"
    for line in describe_import(outcome, f"{source} {src_dir}", f"{target} {dst_dir}", retry):
        write_line(line)
    return 0


def describe_import(outcome: Outcome, source: str, target: str, retry: str) -> list[str]:
    """What an import did, every memory of the source counted once."""
    lines = [f"imported {outcome.new} new memories from {source} to {target}"]
    if outcome.identical:
        lines.append(f"  {outcome.identical} already there and identical: skipped")
    if outcome.differing:
        ids = ", ".join(outcome.differing)
        count = len(outcome.differing)
        if outcome.replaced:
            lines.append(f"  {count} already there and different: replaced by the source's: {ids}")
        else:
            lines.append(f"  {count} already there and different: kept as they are: {ids}")
            lines.append(f"  (to take the source's copies instead: {retry})")
    return lines


def _settings_pair(source: str, target: str) -> tuple[Settings, Settings]:
    from pi_memory.config.config import load_for
    from pi_memory.errors import ConfigError
    from pi_memory.open_store import settings_from

    cwd = Path(os.getcwd())
    loaded = load_for(cwd, os.environ)
    if loaded.errors:
        raise ConfigError("memory.json: " + "; ".join(loaded.errors))
    return (
        settings_from(loaded.config._replace(layout=source), cwd),
        settings_from(loaded.config._replace(layout=target), cwd),
    )


# ----------------------------------------------------------------------------- reading


def read_source(layout: str, layer: str, directory: Path) -> list[Entry]:
    """The layer's memories in the source's order, each carrying what only its layout has."""
    from pi_memory.layouts import open_layer

    return open_layer(layout, layer, directory).read()


# ----------------------------------------------------------------------------- writing


def plan_import(entries: Sequence[Entry], existing: Sequence[Entry], files_target: bool) -> Plan:
    """Which memories are new, which exist but differ, and how many exist identically."""
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
        elif _core(entry, files_target) == _core(old, files_target):
            identical += 1
        else:
            differing.append(_merged(old, entry))
    return Plan(tuple(new), tuple(differing), identical)


def _core(entry: Entry, files_target: bool) -> tuple[object, ...]:
    """What both layouts hold of a memory, as the target would store it."""
    from pi_memory.text import js_trim

    src = (entry.src or "user") if files_target else entry.src
    return (
        js_trim(entry.body),
        entry.keyword,
        entry.time,
        entry.project,
        src,
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


def import_entries(
    entries: Sequence[Entry], settings: Settings, layer: str, *, replace: bool = False
) -> Outcome:
    """Write ``entries`` into the target layer under its lock.

    New ids are added; an id already there is replaced only when ``replace``.
    """
    from pi_memory.fs.lock import StoreLock
    from pi_memory.fs.snapshot import memory_files, whole_dir_snapshot
    from pi_memory.store import Store

    files_target = settings.layout == FILES
    if not files_target:
        _check_rows(entries)
    directory = settings.dirs[layer]
    directory.mkdir(parents=True, exist_ok=True)
    target = _target_layer(settings, layer)
    with StoreLock(directory, "import", settings.lock_timeout_ms), _one_snapshot(target):
        existing = target.read()
        plan = plan_import(entries, existing, files_target)
        outcome = Outcome(
            new=len(plan.new),
            identical=plan.identical,
            differing=tuple(e.id for e in plan.differing),
            replaced=replace,
        )
        changed = plan.differing if replace else ()
        if not plan.new and not changed:
            return outcome
        if memory_files(directory):
            whole_dir_snapshot(directory, "import", settings.snapshot_keep)
        for entry in plan.new:
            target.append(entry)
        if changed:
            target.update(changed)
        target.refresh_index(target.read(), Store(settings).recalls(layer))
    return outcome


def _check_rows(entries: Sequence[Entry]) -> None:
    """Refuse the whole import, before writing anything, if a memory cannot be a row."""
    from pi_memory.errors import EntryRejected
    from pi_memory.layouts.categories import body_problem

    problems = [f"{e.id}: {p}" for e in entries for p in [body_problem(e.body)] if p]
    if problems:
        raise EntryRejected("cannot import, nothing written: " + "; ".join(problems))


def _one_snapshot(target: LayerStore) -> AbstractContextManager[None]:
    """The import takes one whole-directory rollback point, not one per memory."""
    from contextlib import nullcontext

    from pi_memory.layouts.files import FilesLayer

    return target.snapshots_paused() if isinstance(target, FilesLayer) else nullcontext()


def _target_layer(settings: Settings, layer: str) -> LayerStore:
    from pi_memory.layouts import open_layer

    return open_layer(
        settings.layout,
        layer,
        settings.dirs[layer],
        lock_timeout_ms=settings.lock_timeout_ms,
        snapshot_keep=settings.snapshot_keep,
    )
