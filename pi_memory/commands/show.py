"""``show``: both layers' tables, counts, watermark, health and lock (pi-memory-auto's ``/memory``).

A layout with a status block of its own (pi-memory's seven lines) prints that for
each layer instead of the keyword table; the health block is the same for every layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pi_memory.commands.unlock import unlock_command
from pi_memory.entry import LAYERS, PROJECT, USER, Entry
from pi_memory.text import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any

    from pi_memory.detect.health import LayerHealth
    from pi_memory.keywords import KeywordRow
    from pi_memory.store import Store


@dataclass(frozen=True)
class LayerView:
    layer: str
    label: str
    directory: str
    entries: tuple[Entry, ...]
    rows: tuple[KeywordRow, ...]
    since_last: int
    last_consolidated: str
    lock: str
    #: The lock is held by nobody who will ever release it (see ``lock.is_abandoned``).
    abandoned: bool
    health: LayerHealth
    #: Temp files interrupted writes left behind (see :mod:`pi_memory.fs.leftovers`).
    leftovers: str | None = None
    #: Their names, and how many abandoned ones ``show`` removed.
    leftover_names: tuple[str, ...] = ()
    leftovers_removed: int = 0
    #: Why the layer cannot be used from here ("" when it can).
    refused: str = ""


def layer_view(store: Store, layer: str, now: datetime) -> LayerView:
    from pi_memory.detect.conflicts import find_conflicts
    from pi_memory.detect.duplicates import find_duplicates
    from pi_memory.detect.feature_cache import known_facts
    from pi_memory.detect.health import layer_health
    from pi_memory.fs.lock import confirmed_abandoned, describe_status, read_lock_status
    from pi_memory.keywords import keyword_rows
    from pi_memory.staleness import stale_counts

    directory = store.directory(layer)
    refused = store.settings.unavailable.get(layer, "")
    entries = store.read(layer)
    recalls = store.recalls(layer)
    stale = stale_counts(entries, now, store.settings.review_months)
    since_last, last_consolidated = (0, "never") if refused else store.layer(layer).watermark()
    lock = read_lock_status(directory)
    sources = store.layer(layer).search_sources() if entries else None
    known = known_facts(_by_file(entries, [path for path, _ in sources or ()]))
    health = layer_health(
        layer,
        entries,
        recalls,
        stale,
        find_duplicates(entries, known=known),
        find_conflicts(entries, known=known),
        store.layer(layer).unreadable() if directory.is_dir() and not refused else (),
    )
    return LayerView(
        layer=layer,
        label=store.label(layer),
        directory=str(directory),
        entries=tuple(entries),
        rows=tuple(keyword_rows(entries, recalls)),
        since_last=since_last,
        last_consolidated=last_consolidated,
        lock=describe_status(lock),
        abandoned=confirmed_abandoned(directory, lock),
        **_leftovers(directory),
        health=health,
        refused=refused,
    )


def _by_file(entries: Sequence[Entry], paths: Sequence[Path]) -> list[tuple[Path, list[Entry]]]:
    """Each of ``paths`` with the live entries read from it (a file's entries name it):
    the ones the detectors read."""
    mine: dict[str, list[Entry]] = {path.name: [] for path in paths}
    for entry in entries:
        found = mine.get(entry.file)
        if found is not None and entry.live:
            found.append(entry)
    return [(path, mine[path.name]) for path in paths]


def render_view(view: LayerView, consolidate_every: int) -> list[str]:
    from pi_memory.keywords import counted_line

    live = sum(1 for e in view.entries if e.live)
    keywords = counted(view.health.keywords, "keyword")
    if view.health.keywords > len(view.rows):
        keywords += f" (the table shows the top {len(view.rows)})"
    lines = [f"{view.label} — {counted(live, 'memory', 'memories')}, {keywords}"]
    lines.append(f"  dir: {view.directory}")
    if not view.entries:
        lines += [f"  refused: {view.refused}"] if view.refused else ["  (no memories yet)"]
        # A file with text but no memory in it is not "no memories yet" and fine.
        return lines + (_health(view) if view.health.unreadable else [])
    counts: dict[str, int] = {}
    for entry in view.entries:
        counts[entry.file] = counts.get(entry.file, 0) + 1
    lines.append("  files: " + " · ".join(f"{name} {n}" for name, n in counts.items()))
    lines.append(
        f"  consolidation: {view.since_last} new since the last round "
        f"(a round is due at {consolidate_every}) · last consolidated {view.last_consolidated}"
    )
    lines.append(f"  lock: {shown_lock(view)}")
    lines += abandoned_lines(view)
    lines.extend(f"  {counted_line(row)}" for row in view.rows)
    lines.extend(_health(view))
    return lines


def _health(view: LayerView) -> list[str]:
    from pi_memory.commands.compact import compact_ready
    from pi_memory.detect.health import render_health

    label = "user" if view.layer == USER else "project"
    return render_health(view.health, label, compact_ready=compact_ready())


def shown_lock(view: LayerView) -> str:
    """The ``Lock:`` value: pi-memory's words, and beside a pi-memory command that does not
    exist here (``/memory unlock``) the one that does."""
    from pi_memory.fs.lock import DESIGN_UNLOCK

    if DESIGN_UNLOCK not in view.lock:
        return view.lock
    return f"{view.lock} (here: {unlock_command(view.layer)})"


def status_block(store: Store, config: Any, view: LayerView) -> tuple[list[str], dict[str, Any]]:
    """The layout's own status block of one layer (then the shared health block), and
    the same facts as JSON."""
    lines, status = store.layer(view.layer).status(
        config,
        label=view.label,
        lock=view.lock,
        lock_shown=shown_lock(view),
        entry_count=len(view.entries),
    )
    lines = [*lines, *abandoned_lines(view)]
    lines += _health(view)
    return lines, status


def _leftovers(directory: Path) -> dict[str, Any]:
    """The temp files of interrupted writes, once the provably abandoned ones are gone."""
    import time

    from pi_memory.fs.leftovers import describe, leftovers

    removed = _sweep_if_free(directory, time.time())
    found = leftovers(directory, time.time())
    return {
        "leftovers": describe(found, removed),
        "leftover_names": tuple(item.name for item in found),
        "leftovers_removed": removed,
    }


def _sweep_if_free(directory: Path, now: float) -> int:
    """:func:`sweep` for a reader (``show``): only when there is something to remove and
    the write lock is free this moment; never waits, never touches a held lock."""
    from pi_memory.errors import LockError
    from pi_memory.fs.leftovers import ABANDONED_AFTER_S, leftovers, sweep
    from pi_memory.fs.lock import StoreLock

    if not any(item.age >= ABANDONED_AFTER_S for item in leftovers(directory, now)):
        return 0
    lock = StoreLock(directory, "sweep")
    try:
        if not lock.acquire(blocking=False):
            return 0
    except (LockError, OSError):
        return 0  # an abandoned or unreadable lock: a person clears it first
    try:
        return sweep(directory, now)
    finally:
        lock.release()


def abandoned_lines(view: LayerView) -> list[str]:
    """What a person must know about the layer's directory: a refusal, an abandoned lock,
    leftovers."""
    lines = [f"  refused: {view.refused}"] if view.refused else []
    lines += [f"  {view.leftovers}"] if view.leftovers else []
    if not view.abandoned:
        return lines
    command = unlock_command(view.layer)
    return [*lines, f"  the lock is abandoned: writes to this layer fail until {command}"]


def view_json(view: LayerView) -> dict[str, Any]:
    from pi_memory.detect.health import health_json

    return {
        "directory": view.directory,
        "memories": sum(1 for e in view.entries if e.live),
        "superseded": sum(1 for e in view.entries if not e.live),
        "keywords": view.health.keywords,
        "since_last": view.since_last,
        "last_consolidated": view.last_consolidated,
        "lock": view.lock,
        "lock_abandoned": view.abandoned,
        "temp_files": {"left": list(view.leftover_names), "removed": view.leftovers_removed},
        "table": [
            {"keyword": row.keyword, "count": row.count, "recalls": row.recalls}
            for row in view.rows
        ],
        "health": health_json(view.health),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    import os

    from pi_memory.config.models import model_config_errors
    from pi_memory.open_store import open_store

    # show reports the settings it could not use as notes, not as warnings.
    _, store, _, loaded = open_store(warn=False)
    as_json: bool = args.json
    # A value that could not be used fell back to its default: a note, not a misconfiguration.
    problems = model_config_errors(loaded.config, os.environ)
    lines = ["Memory: misconfigured", *(f"- {p}" for p in problems)] if problems else []
    data: dict[str, Any] = {
        "misconfigured": bool(problems),
        "errors": problems,
        "notes": list(loaded.problems),
    }
    if problems and store.layer(USER).status_block:
        # pi-memory: a misconfigured store reports that, and nothing else.
        lines.insert(1, "Dir: not initialized")
        return _emit(lines, data, as_json)
    now = datetime.now()
    views = [layer_view(store, layer, now) for layer in LAYERS]
    data["layout"] = store.settings.layout
    data["layers"] = {view.layer: view_json(view) for view in views}
    for view in views:
        if lines:
            lines.append("")
        if store.layer(view.layer).status_block:
            status_text, status = status_block(store, loaded.config, view)
            lines += status_text
            data["layers"][view.layer]["status"] = status
        else:
            lines += render_view(view, loaded.config.consolidate_every)
    lines += suspect_lines(store, data)
    lines += inbox_lines(store, data)
    lines += use_candidates([e for view in views for e in view.entries if e.live], data)
    lines += _worktrees(loaded.config, store, data)
    lines += model_usage(loaded.config, data)
    lines += today_receipts(data)
    lines += [f"note: {problem}" for problem in loaded.problems]
    return _emit(lines, data, as_json)


#: Suspect memories ``show`` lists by name (``search --suspect`` lists them all).
SUSPECT_LISTED = 10


def suspect_lines(store: Store, data: dict[str, Any]) -> list[str]:
    """The project memories whose code changed since (the last background check's
    verdicts, see :mod:`pi_memory.anchors`), and what to do about them."""
    from pi_memory.entry import PROJECT
    from pi_memory.launcher import this_package

    suspects = store.suspects()
    data["suspect"] = suspects
    if not suspects:
        return []
    entries = {e.id: e for e in store.read(PROJECT)}
    many = counted(len(suspects), "project memory", "project memories")
    verify = this_package().command("verify", "ID")
    lines = ["", f"suspect: {many} describe code that changed since (read it, then: {verify})"]
    for memory_id, reason in list(suspects.items())[:SUSPECT_LISTED]:
        entry = entries[memory_id]
        lines.append(f"  [{memory_id}] {entry.name or '#' + entry.keyword}: {reason}")
    if len(suspects) > SUSPECT_LISTED:
        more = len(suspects) - SUSPECT_LISTED
        lines.append(f"  and {more} more: {this_package().command('search', '--suspect')}")
    return lines


def inbox_lines(store: Store, data: dict[str, Any]) -> list[str]:
    """How many proposals of the background review wait in the inbox for the user."""
    from pi_memory import inbox
    from pi_memory.launcher import this_package

    waiting = inbox.count(store)
    data["inbox"] = waiting
    if not waiting:
        return []
    many = "1 proposal waits" if waiting == 1 else f"{waiting} proposals wait"
    return ["", f"inbox: {many} for you to accept or reject ({this_package().command('inbox')})"]


def use_candidates(entries: Sequence[Entry], data: dict[str, Any]) -> list[str]:
    """What the reviews saw the agent do with the memories: the ones to promote into the
    instruction files, the ones surfaced again and again and never used (to retire)."""
    from pathlib import Path

    from pi_memory.fs.cache_home import cache_home
    from pi_memory.recalls import load_uses, to_promote, to_retire

    uses = load_uses(Path(cache_home()))
    by_id = {entry.id: entry for entry in entries}
    promote, retire = to_promote(uses, by_id), to_retire(uses, by_id)
    data["candidates"] = {
        "promote": [{"id": key, **_use_json(use)} for key, use in promote],
        "retire": [{"id": key, **_use_json(use)} for key, use in retire],
    }
    lines: list[str] = []
    for key, use in promote:
        why = (
            f"the user said it again in {counted(use.repeated, 'session')}" if use.repeated else ""
        )
        why = why or f"used in {counted(use.used, 'session')}"
        lines.append(f"  promote? {key} #{by_id[key].keyword}: {why}")
    for key, use in retire:
        lines.append(
            f"  retire?  {key} #{by_id[key].keyword}: surfaced in "
            f"{counted(use.surfaced, 'session')}, never used"
        )
    if not lines:
        return []
    from pi_memory.launcher import this_package

    how = (
        f"  (promote: {this_package().command('promote', 'ID')}; retire: write a better one "
        f"with --supersedes ID, or remove it in {this_package().command('ui')})"
    )
    return ["", "Candidates, from the reviewed sessions:", *lines, how]


def _use_json(use: Any) -> dict[str, int]:
    return {"surfaced": use.surfaced, "used": use.used, "ignored": use.ignored,
            "repeated": use.repeated}  # fmt: skip


def _worktrees(config: Any, store: Store, data: dict[str, Any]) -> list[str]:
    """How the repository's worktrees share the project layer (nothing with one)."""
    from pi_memory.naming.workdir import working_dir
    from pi_memory.worktree_memories import worktrees_line

    s = store.settings
    line = worktrees_line(config, store.directory(PROJECT), len(s.worktree_dirs), working_dir())
    data["worktrees"] = line
    return ["", line] if line else []


def model_usage(config: Any, data: dict[str, Any]) -> list[str]:
    """The ledger's spend (tokens per job today and this month) and redaction counts."""
    from pi_memory.model import ledger

    spend = ledger.spend(ledger.directory(config))
    data["model_usage"] = ledger.to_json(spend, config.daily_token_cap)
    block = ledger.render(spend, config.daily_token_cap)
    return ["", *block] if block else []


def today_receipts(data: dict[str, Any]) -> list[str]:
    """One paragraph about what the memory did today (the receipts; ``log`` lists them)."""
    import time

    from pi_memory import receipts

    today = time.strftime("%Y-%m-%d")
    summary = receipts.summarise(r for r in receipts.read() if r.day == today)
    data["today"] = summary._asdict()
    return ["", receipts.today_paragraph(summary)]


def _emit(lines: Sequence[str], data: dict[str, Any], as_json: bool) -> int:
    from pi_memory.output import write_line

    if as_json:
        import json

        write_line(json.dumps(data))  # ASCII: lossless on any terminal or pipe
    else:
        for line in lines:
            write_line(line)
    return 0
