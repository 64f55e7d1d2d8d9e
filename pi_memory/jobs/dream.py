"""``dream``: pi-memory's headless tidy-up of one layer, in either layout.

Orient → Gather Signal → Consolidate → Prune & Index, run by a model that
has no file access: in the ``files`` layout exactly the seven ``memory``
actions (``rename`` and ``rebuild_index`` only here), in the ``categories``
layout the same phases over pi-memory-auto's operations (list, search, write with
supersedes, merge, rename, rebuild_index). The round holds the layer's
logical lock from start to end (and ``.dream.lock`` for other processes);
the model's actions are staged and, once it finished, applied under the
store's lock after one rollback point of the whole directory (the
categories layout keeps ``.bak`` files instead). A model that fails
half-way changes nothing.

``.dream-meta.json`` records when the last dream ran and how many sessions
started since; :func:`nudge` says when it is time for the next one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

from pi_memory.jobs import DREAM_TASK
from pi_memory.jobs.outcome import FAILED, SKIPPED, JobOutcome, agent_outcome
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.config.schema import Config
    from pi_memory.store import Store

META_FILE: Final = ".dream-meta.json"
#: Rounds of tool calls a dream may use, and its time.
MAX_ROUNDS: Final = 20
SECONDS: Final = 600.0


class DreamMeta(NamedTuple):
    #: ISO time of the last dream, ``""`` when none ran yet.
    last_dream: str = ""
    #: Sessions started since then.
    sessions: int = 0
    #: ISO time this file was first written (the clock before any dream).
    since: str = ""


def read_meta(directory: Path) -> DreamMeta:
    try:
        data = json.loads((directory / META_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return DreamMeta()
    if not isinstance(data, dict):
        return DreamMeta()
    sessions = data.get("sessionsSinceDream")
    return DreamMeta(
        str(data.get("lastDreamAt") or ""),
        sessions if isinstance(sessions, int) and sessions >= 0 else 0,
        str(data.get("since") or ""),
    )


def write_meta(directory: Path, meta: DreamMeta) -> None:
    from pi_memory.fs.atomic import atomic_write_text

    data = {
        "lastDreamAt": meta.last_dream,
        "sessionsSinceDream": meta.sessions,
        "since": meta.since,
    }
    directory.mkdir(parents=True, exist_ok=True)
    atomic_write_text(directory / META_FILE, json.dumps(data, indent=2) + "\n")


def count_session(directory: Path, now: datetime) -> DreamMeta:
    """One more session started (the session-start hook calls this); the layer's meta
    with the sessions counted since its last dream.

    The count lives in the cache, not in the layer: a write in the layer on
    every session start would change what the hooks' fast path fingerprints.
    It restarts whenever ``.dream-meta.json`` names a newer dream.
    """
    from pi_memory.fs.atomic import atomic_write_text

    meta = read_meta(directory)
    path = _counter_path(directory)
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict) or data.get("lastDream") != meta.last_dream:
        data = {"lastDream": meta.last_dream, "sessions": 0, "since": _iso(now)}
    count = data.get("sessions")
    data["sessions"] = (count if isinstance(count, int) else 0) + 1
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data) + "\n", durable=False)  # disposable
    return meta._replace(sessions=data["sessions"], since=meta.since or str(data.get("since")))


def _counter_path(directory: Path) -> Path:
    import zlib

    from pi_memory.fs.cache_home import cache_home

    raw = str(directory).encode("utf-8", "surrogateescape")
    return (
        Path(cache_home()) / "dream-sessions" / f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.json"
    )


def nudge(meta: DreamMeta, now: datetime, *, after_sessions: int, after_hours: float) -> str:
    """The reminder to dream, or ``""`` when it is not time yet."""
    anchor = meta.last_dream or meta.since
    start = _parse_iso(anchor) if anchor else None
    hours = 0.0
    if start is not None:
        hours = (_utc_naive(now) - _utc_naive(start)).total_seconds() / 3600
    reasons = []
    if meta.sessions >= after_sessions:
        reasons.append(f"{meta.sessions} sessions")
    if start is not None and hours >= after_hours:
        reasons.append(f"{int(hours)} hours")
    if not reasons:
        return ""
    since = "since the last dream" if meta.last_dream else "without a dream"
    return f"{' and '.join(reasons)} {since}: run python -m pi_memory dream to tidy the memory"


def _parse_iso(text: str) -> datetime | None:
    """An ISO 8601 time as ``.dream-meta.json`` holds it (``Z`` or an offset)."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _utc_naive(moment: datetime) -> datetime:
    """``moment`` in UTC without a zone."""
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


def _iso(moment: datetime) -> str:
    from pi_memory.text import iso_timestamp

    return iso_timestamp(moment)


def dream(
    store: Store,
    config: Config,
    layer: str,
    *,
    now: datetime,
    dry_run: bool = False,
    background: bool = False,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> JobOutcome:
    from pi_memory.fs.lock import ProcessLock
    from pi_memory.jobs import dream_lock

    directory = store.directory(layer)
    if not dream_lock.take(directory):
        return JobOutcome("dream", SKIPPED, "another dream is tidying this layer", dry_run=dry_run)
    try:
        with ProcessLock(directory, store.settings.lock_timeout_ms):
            return _round(
                store,
                config,
                layer,
                now=now,
                dry_run=dry_run,
                background=background,
                timeout=timeout,
                env=env,
            )
    finally:
        dream_lock.release(directory)


def _round(
    store: Store,
    config: Config,
    layer: str,
    *,
    now: datetime,
    dry_run: bool,
    background: bool,
    timeout: float | None,
    env: Mapping[str, str] | None,
) -> JobOutcome:
    from pi_memory.jobs.agent import run_agent
    from pi_memory.jobs.toolkits import toolkit_for
    from pi_memory.model.errors import ModelError, ModelNotConfigured

    layer_store = store.layer(layer)
    entries = layer_store.read()
    toolkit = toolkit_for(layer_store)
    staging = toolkit.staging(entries, layer, now, store.settings.max_body_bytes)
    tools = toolkit.dream_tools()
    system = toolkit.dream_system(layer, MAX_ROUNDS)
    prompt = f"Tidy the {layer} layer ({len(entries)} memories). Begin with the first phase."
    try:
        run = run_agent(
            config,
            DREAM_TASK,
            job="dream",
            system=system,
            prompt=prompt,
            tools=tools,
            answer=staging.answer,
            max_rounds=MAX_ROUNDS,
            seconds=timeout or SECONDS,
            background=background,
            env=env,
        )
    except ModelNotConfigured:
        raise
    except ModelError as err:
        return JobOutcome("dream", FAILED, str(err), dry_run=dry_run)
    refused = list(staging.refused)
    planned = staging.planned()
    if dry_run:
        done = planned
    elif not planned:
        done = []
    else:
        with store.lock(layer, "dream"):
            store.one_rollback_point(layer, "dream")
            try:
                done, more = staging.commit(store, layer)
            finally:
                store.end_rollback_point()
        refused += more
    if not dry_run:
        write_meta(store.directory(layer), DreamMeta(_iso(now), 0, _iso(now)))
    return agent_outcome(
        "dream",
        done,
        refused,
        summary=run.text,
        rounds=run.rounds,
        dry_run=dry_run,
        nothing=f"nothing to change · {run.text or 'no summary'}",
    )
