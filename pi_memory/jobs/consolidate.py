"""``compact``: pi-memory-auto's consolidation pass over one layer, and the automatic round.

The layer is examined in pages of 120 memories, newest first, each memory
once per pass, at most 12 rounds. Each page goes to the model with hints
over the whole layer; the reply is validated (:mod:`~pi_memory.jobs.consolidate_plan`)
and, under the store's lock, re-checked against the layer as it is now and
applied: rewritten rows, removed duplicates, retired older versions. Every
file of the categories layout that a round rewrites keeps a ``.bak`` of its
previous bytes (the files layout leaves a rollback point in ``.backups/``
instead). Merges remove ids, so the layer is re-read before the next page.

A model that never answers ends the pass; what earlier rounds applied stays.
A pass that changed something resets the layer's watermark; a pass that found
nothing records ``attemptedAt`` so the automatic round does not ask again
until new memories arrive.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from pi_memory.entry import Entry
from pi_memory.jobs import CONSOLIDATE_TASK
from pi_memory.jobs.consolidate_plan import MAX_ROUNDS, PAGE_SIZE
from pi_memory.jobs.outcome import FAILED, NOTHING, STORED, JobOutcome

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.config.schema import Config
    from pi_memory.jobs.consolidate_plan import Applied, Plan
    from pi_memory.store import Store

ATTEMPTS_FILE = "consolidation-attempts.json"


def compact(
    store: Store,
    config: Config,
    layer: str,
    *,
    dry_run: bool = False,
    background: bool = False,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> JobOutcome:
    """One consolidation pass over ``layer`` (see the module docstring)."""
    from pi_memory.jobs import consolidate_plan as cp
    from pi_memory.model.client import chat
    from pi_memory.model.errors import ModelError, ModelNotConfigured
    from pi_memory.model.types import Message

    examined: set[str] = set()
    changes: list[dict[str, object]] = []
    rejected: list[str] = []
    rounds = 0
    failure = ""
    system = cp.system_prompt(layer)
    max_body_bytes = store.settings.max_body_bytes
    while rounds < MAX_ROUNDS:
        pool = store.read(layer)
        page = [e for e in cp.newest_first(pool) if e.id not in examined][:PAGE_SIZE]
        if not page:
            break
        rounds += 1
        examined.update(e.id for e in page)
        try:
            reply = chat(
                config,
                CONSOLIDATE_TASK,
                [Message("user", cp.page_prompt(page, pool, max_body_bytes=max_body_bytes))],
                system=system,
                job="compact",
                background=background,
                timeout=timeout,
                env=env,
            )
        except ModelNotConfigured:
            raise
        except ModelError as err:
            failure = str(err)
            break
        plan = cp.parse_plan(reply.text, pool, max_body_bytes=max_body_bytes)
        rejected.extend(f"round {rounds}: {r}" for r in plan.rejected)
        if plan.empty:
            continue
        applied = _apply(store, layer, plan, pool, dry_run=dry_run)
        rejected.extend(f"round {rounds}: {s}" for s in applied.stale)
        changes.extend(_described(applied, {e.id: e for e in pool}))
    counts = {"rounds": rounds, "examined": len(examined)}
    if failure and not changes:
        return JobOutcome("compact", FAILED, failure, (), tuple(rejected), dry_run, counts)
    if not dry_run:
        _finish(store, layer, changed=bool(changes))
    detail = _summary(changes, rounds, dry_run)
    if failure:
        detail += f"; the pass ended early: {failure}"
    status = STORED if changes else NOTHING
    return JobOutcome("compact", status, detail, tuple(changes), tuple(rejected), dry_run, counts)


def _apply(
    store: Store, layer: str, plan: Plan, seen: Sequence[Entry], *, dry_run: bool
) -> Applied:
    from pi_memory.jobs import consolidate_plan as cp

    seen_by_id = {e.id: e for e in seen}
    if dry_run:
        return cp.apply_plan(plan, seen, seen_by_id, cp.conflict_pairs(seen), redact=store.redact)
    layer_store = store.layer(layer)
    with store.lock(layer, "compact"):
        entries = layer_store.read()
        applied = cp.apply_plan(
            plan, entries, seen_by_id, cp.conflict_pairs(entries), redact=store.redact
        )
        if applied.updates or applied.removals:
            touched = {e.file for e in entries if e.id in {*applied.removals}}
            touched |= {e.file for e in applied.updates}
            layer_store.keep_backups(touched)
            if applied.updates:
                layer_store.update(applied.updates)
            if applied.removals:
                layer_store.remove(applied.removals)
    return applied


def _described(applied: Applied, before: Mapping[str, Entry]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for entry in applied.updates:
        old = before.get(entry.id)
        if entry.id in applied.retired:
            line = f"retired [{entry.id}] (superseded by [{entry.superseded_by}])"
        elif old is None or old.body != entry.body:
            line = f"rewrote [{entry.id}] #{entry.keyword}: {' '.join(entry.body.split())}"
        elif old.keyword != entry.keyword:
            line = f"renamed [{entry.id}] #{old.keyword} → #{entry.keyword}"
        else:
            line = f"kept [{entry.id}] #{entry.keyword}, the others folded into it"
        out.append({"id": entry.id, "action": "update", "line": line})
    for entry_id in applied.removals:
        out.append({"id": entry_id, "action": "remove", "line": f"removed [{entry_id}] (merged)"})
    return out


def _summary(changes: Sequence[Mapping[str, object]], rounds: int, dry_run: bool) -> str:
    if not changes:
        return f"nothing to merge ({rounds} round{'s' if rounds != 1 else ''})"
    removed = sum(1 for c in changes if c["action"] == "remove")
    updated = len(changes) - removed
    verb = "would change" if dry_run else "changed"
    return (
        f"{verb} {updated} memor{'y' if updated == 1 else 'ies'}, removed {removed} "
        f"in {rounds} round{'s' if rounds != 1 else ''}"
    )


def _finish(store: Store, layer: str, *, changed: bool) -> None:
    """Reset the watermark after a pass that changed something; else note the attempt."""
    layer_store = store.layer(layer)
    if changed:
        with store.lock(layer, "compact"):
            layer_store.finish_consolidation(layer_store.read(), store.recalls(layer))
    else:
        record_attempt(layer_store.directory, layer_store.watermark()[0])


def _attempts_path() -> Path:
    from pi_memory.fs.parse_cache import cache_dir

    return cache_dir() / ATTEMPTS_FILE


def attempted(directory: Path) -> int:
    """``attemptedAt`` of a layer: its watermark when a pass last found nothing (-1: never)."""
    try:
        data = json.loads(_attempts_path().read_text("utf-8"))
    except (OSError, ValueError):
        return -1
    value = data.get(str(directory)) if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def record_attempt(directory: Path, since_last: int) -> None:
    from pi_memory.fs.atomic import atomic_write_text

    path = _attempts_path()
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    data[str(directory)] = since_last
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, sort_keys=True) + "\n", durable=False)


def due_layers(store: Store, every: int) -> list[str]:
    """Layers whose watermark reached ``every`` and passed their ``attemptedAt``.

    A layout without a watermark (``files``) is never due: the dream's nudge
    consolidates it.
    """
    from pi_memory.entry import LAYERS

    due: list[str] = []
    for layer in LAYERS:
        layer_store = store.layer(layer)
        since_last = layer_store.watermark()[0]
        if since_last >= every and since_last > attempted(layer_store.directory):
            due.append(layer)
    return due


def maybe_consolidate(
    store: Store, config: Config, *, env: Mapping[str, str] | None = None
) -> list[JobOutcome]:
    """The automatic round: a background pass over each layer that is due (hooks call this)."""
    return [
        compact(store, config, layer, background=True, env=env)
        for layer in due_layers(store, config.consolidate_every)
    ]
