"""What each moment of a session does, whichever host reported it (pi-memory-auto's lifecycle).

``start``
    Rewrite the derived ``MEMORY.md`` files (only if the lock is free at
    once), start background work that is due or was interrupted, and put the
    injected index in context. A new or cleared session freezes what it injects; a resumed one gets
    those frozen bytes back, so its prompt prefix stays byte-identical (nothing,
    where the host replays the history that already holds them); after a
    compaction the injected index is rendered afresh (and frozen again).
``prompt``
    Surfacing: the memories this prompt needs, never one already surfaced.
``turn_end``
    Every ``REVIEW_TURNS`` turns, the incremental review, in the background.
``pre_compact``
    The handoff extraction of what is about to be summarised, in the background.
    Gemini CLI fires it before every request (``trigger: auto``) and compresses
    only past a threshold, so there it is not hooked: each prompt marks where the
    chat recording ends, the next prompt (or the session's end) reads what the
    CLI appended since, and only a new chat begun on it (what a compression, its
    ``/compress`` too, does) counts as a compaction.
``post_compact``
    Forget what was surfaced (the summary dropped it). The frozen injected index stays:
    a session start may come before the one for the compaction (Codex sends
    ``resume`` first when ``exec resume`` compacts before its turn) and must
    not inject it into the compacted history twice; ``compact`` re-renders it.
``end``
    The quit flush, handed to a detached process; the hook returns at once.

Nothing here waits for a lock or a model beyond the prompt's side-query budget.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pi_memory.hosts.fastpath import Note
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pi_memory.config.schema import Config
    from pi_memory.hosts.host import Host
    from pi_memory.jobs.records import JobRecord
    from pi_memory.open_store import Opened
    from pi_memory.session.state import SessionState
    from pi_memory.store import Store
    from pi_memory.surfacing import Corpus, Surfaced


class HookEvent(NamedTuple):
    """What a hook needs of any host's event payload."""

    #: ``start`` | ``prompt`` | ``turn_end`` | ``pre_compact`` | ``post_compact`` | ``end``.
    moment: str
    host: str
    session_id: str
    transcript: str
    cwd: Path
    #: SessionStart's ``source`` (``startup|resume|clear|compact``), PreCompact's ``trigger``.
    source: str = ""
    prompt: str = ""
    #: Names the turn (``turn_id``, ``prompt_id``): a repeated delivery is one turn.
    turn_key: str = ""
    reason: str = ""
    #: ``time.monotonic()`` when the hook began (its receipts' duration; 0: unknown).
    started: float = 0.0


class Answer(NamedTuple):
    #: What the model should read (``""``: nothing).
    context: str = ""
    #: What the person should read (``""``: nothing).
    system_message: str = ""
    #: The one line telling the person what the memory did (:mod:`pi_memory.hosts.hook_receipts`).
    notice: str = ""


def run(event: HookEvent) -> Answer:
    handler = {
        "start": on_start,
        "prompt": on_prompt,
        "turn_end": on_turn_end,
        "pre_compact": on_pre_compact,
        "post_compact": on_post_compact,
        "end": on_end,
    }[event.moment]
    return handler(event)


def setting_notes(opened: Opened) -> list[str]:
    """One line per setting that fell back to its default and per layer refused here
    (session start says them in ``systemMessage``)."""
    notes = [f"pi_memory: {line}" for line in opened.warnings]
    settings = opened.store.settings
    refused = [*settings.unavailable.values(), *(why for _, why in settings.worktrees_refused)]
    return notes + [f"pi_memory: {why}" for why in refused]


def _host(event: HookEvent) -> Host:
    """The record of the event's host: its caps and quirks."""
    from pi_memory.hosts.registry import host

    return host(event.host)


# -- what every moment needs to know ---------------------------------------------------------


class Known(NamedTuple):
    """The project's state for a hook: from the fast path's note, or computed afresh."""

    note: Note
    #: The scorer's corpus (loaded only when a prompt needs it).
    corpus: Callable[[], Corpus]
    #: The configuration (loaded only when the side-query needs it).
    config: Callable[[], Config]
    warning: str = ""
    #: pi-memory: a required model is missing or does not resolve; nothing is initialised.
    misconfigured: bool = False
    #: The session keys whose jobs this hook scheduled (their worker is started).
    scheduled: tuple[str, ...] = ()


def know(event: HookEvent, *, refresh: bool = False) -> Known:
    """What the fast path remembers, or the full work (then remembered).

    ``refresh`` (session start) also rewrites the derived files, and accepts a
    note only if one was written after such a rewrite.
    """
    import time

    from pi_memory.hosts import fastpath

    day = time.strftime("%Y-%m-%d")
    limit, max_bytes = _host(event).max_context, _host(event).max_context_bytes
    hit = fastpath.lookup(event.cwd, os.environ, day)
    if hit is not None:
        note, corpus_file = hit
        same_cap = note.max_context == limit and note.max_bytes == max_bytes
        if same_cap and (note.refreshed or not refresh):

            def cached_corpus() -> Corpus:
                known = fastpath.load_corpus(corpus_file) if corpus_file else None
                if known is None:
                    from pi_memory.surfacing import corpus

                    store = _open(event.cwd).store
                    known = corpus(store.visible(), store.foreign(), store.suspects())
                    fastpath.add_corpus(event.cwd, known)
                return known

            return Known(note, cached_corpus, lambda: _open(event.cwd).config)
    soft = _soft(event, day) if refresh else None
    return soft if soft is not None else _full(event, day, refresh)


def _soft(event: HookEvent, day: str) -> Known | None:
    """A session start after a change that touched only what is injected (a search's
    recall log, a write's category file): the note's other answers still hold, and the
    injection and each ``MEMORY.md`` are rendered from the index kept ready
    (:mod:`pi_memory.ready_index`) instead of the store. ``None``: the full work is due."""
    shape = _host(event)
    from pi_memory.hosts.note_render import rendered

    note = rendered(event.cwd, day, event.host, shape.max_context, shape.max_context_bytes)
    if note is None:
        return None

    def built() -> Corpus:
        from pi_memory.surfacing import corpus

        store = _open(event.cwd).store
        return corpus(store.read_all(), store.foreign())

    return Known(note, built, lambda: _open(event.cwd).config)


def _open(cwd: Path) -> Opened:
    """The store of ``cwd``; the hook says unusable settings its own way (:func:`setting_notes`)."""
    from pi_memory.open_store import open_store

    return open_store(cwd, warn=False)


def _full(event: HookEvent, day: str, refresh: bool) -> Known:
    from pi_memory.config.models import background_ready, task_model
    from pi_memory.entry import LAYERS
    from pi_memory.hosts import fastpath, note_render
    from pi_memory.surfacing import corpus, limits, model_available

    opened = _open(event.cwd)
    config, store, notes = opened.config, opened.store, setting_notes(opened)
    from pi_memory.open_store import misconfiguration

    errors = misconfiguration(config, store, os.environ)
    if errors:
        return _uninitialised(event, config, errors, notes)
    directories = [store.directory(layer) for layer in LAYERS]
    warning = lock_warning(dict(zip(LAYERS, directories)))
    if warning is None and refresh:
        try:
            store.refresh_indexes(wait=False)
        except Exception as exc:  # a stale MEMORY.md must not cost the injection
            from pi_memory.error_handler import log_exception

            log_exception("hook session-start: refresh", exc)
    anchored = _anchored(store)
    paths, inputs = _watched(event.cwd, config, store, directories, anchored)
    fingerprint = fastpath.stats(paths) if paths is not None else None
    fresh = store.renewed()  # read after the fingerprint: a change between is a miss
    limit, max_bytes = _host(event).max_context, _host(event).max_context_bytes
    caps = limits(config)
    note = Note(
        injection=note_render.fitted(fresh.injection, limit, max_bytes),
        max_context=limit,
        max_bytes=max_bytes,
        refreshed=refresh,
        limits=(caps.enabled, caps.max_files, caps.max_entry_bytes, caps.max_injection_bytes),
        side_query=caps.enabled and model_available(config, os.environ),
        surface_model=task_model(config, "autoSurfacing") or "",
        background=background_ready(config, os.environ),
        session_days=config.session_days,
        review_turns=config.review_turns,
        key_names=tuple(sorted({p.api_key_env for p in config.providers.values()} - {""})),
        dream=_dream_settings(config, store),
        model_command=_model_command(config),
        anchors=anchored,
        notice=config.notice,
    )
    # The corpus costs a pass over every memory: only a prompt builds it.
    memories = (
        corpus(fresh.visible(), fresh.foreign(), fresh.suspects())
        if event.moment == "prompt"
        else None
    )
    scheduled: tuple[str, ...] = ()
    if refresh and warning is None and note.background:
        # Checked after this rebuild as after every other: a round due before exit catches up.
        from pi_memory.jobs.records import CONSOLIDATE
        from pi_memory.jobs.worker import schedule_due_rounds

        if schedule_due_rounds(store, config.consolidate_every, event.cwd):
            scheduled = (CONSOLIDATE,)
    problems = [f"pi_memory: {line}" for line in fresh.read_problems()]
    if fresh.withheld() and not fresh.provenance().declined:
        problems.append(f"pi_memory: {fresh.withheld_note()}")
    said = _said(warning, [*notes, *problems])
    # Only a quiet start is remembered: a warning must be said again next time.
    if not said and paths is not None and fingerprint is not None:
        saved = _ready(fresh, directories, paths, inputs, fingerprint)
        quick = note_render.quick(event.host, note)
        fastpath.save(event.cwd, os.environ, day, note=note, corpus=memories, quick=quick, **saved)

    def built() -> Corpus:
        if memories is not None:
            return memories
        return corpus(fresh.visible(), fresh.foreign(), fresh.suspects())

    return Known(note, built, lambda: config, said, scheduled=scheduled)


def _watched(
    cwd: Path, config: Config, store: Store, directories: list[Path], anchored: tuple[str, str]
) -> tuple[list[str] | None, list[Path]]:
    """Every path the note's answers come from (``None``: a layer is locked, no note then):
    the other inputs first, then the layers and the other worktrees' layers; and those
    other inputs."""
    from pi_memory.anchors.cache import cache_file
    from pi_memory.hosts import fastpath

    verdicts = [cache_file(Path(anchored[0]))] if anchored[0] else []
    inputs = [
        *_inputs(cwd),
        *_trust_inputs(store),
        *verdicts,
        *_worktree_inputs(config, store, cwd),
    ]
    return fastpath.watched([*directories, *store.settings.worktree_dirs], inputs), inputs


def _anchored(store: Store) -> tuple[str, str]:
    """The note's ``anchors``: the project layer and the root its memories are anchored to."""
    from pi_memory.entry import PROJECT

    root = store.settings.project_root
    if root is None or PROJECT in store.settings.unavailable:
        return ("", "")
    return (str(store.directory(PROJECT)), str(root))


def _ready(
    store: Store,
    directories: Sequence[Path],
    paths: Sequence[str],
    inputs: Sequence[Path],
    fingerprint: list[list[Any]],
) -> dict[str, Any]:
    """What the note is saved with: its fingerprint and, when the store's tallies were kept
    ready (:mod:`pi_memory.ready_index`), which of its paths feed only the injection."""
    from pi_memory.hosts import fastpath

    # The ready index holds this worktree's layers only: another worktree's change needs
    # the full work.
    signature = store.keep_ready() if not store.settings.worktree_dirs else ""
    if not signature:
        return {"fingerprint": fingerprint}
    trust = [str(p) for p in _trust_inputs(store)[:1]]
    soft = (*paths[len(inputs) :], *trust)
    ready = fastpath.Ready(signature, tuple(str(d) for d in directories), len(inputs), soft)
    return {"fingerprint": fingerprint, "ready": ready}


def _model_command(config: Config) -> tuple[str, str]:
    from pi_memory.model.cli_provider import background_command

    return background_command(config)


def _uninitialised(event: HookEvent, config: Config, errors: list[str], notes: list[str]) -> Known:
    """pi-memory's misconfigured start: no index, no surfacing, no background work, and
    the design's notification for the person. Never remembered by the fast path, so
    every start says it again until the configuration is fixed."""
    from pi_memory.config.messages import config_error_notification
    from pi_memory.surfacing import corpus

    note = Note(
        injection="",
        max_context=_host(event).max_context,
        max_bytes=_host(event).max_context_bytes,
        refreshed=False,
        limits=(False, 0, 0, 0),
        side_query=False,
        background=False,
        session_days=config.session_days,
        review_turns=config.review_turns,
        key_names=(),
    )
    nothing = corpus([])
    said = _said(config_error_notification(errors), notes)
    return Known(note, lambda: nothing, lambda: config, said, misconfigured=True)


def _said(warning: str | None, notes: list[str]) -> str:
    return "\n".join([*([warning] if warning else []), *notes])


def _inputs(cwd: Path) -> list[Path]:
    """Files besides the layers that decide the configuration and the project."""
    from pi_memory.config.load import PROJECT_CONFIG, USER_CONFIG
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.home import home_dir

    root = project_root(cwd)
    home = home_dir(os.environ)
    return [home / USER_CONFIG, root / PROJECT_CONFIG, root / ".git", root / ".git" / "config"]


def _trust_inputs(store: Store) -> list[Path]:
    """What decides which project memories came from the repository: this user's
    record, and git's index (what is committed)."""
    from pi_memory.entry import PROJECT
    from pi_memory.provenance import record_path

    s = store.settings
    if s.repository is None or s.home is None:
        return []
    return [record_path(s.home, store.directory(PROJECT)), s.repository / ".git" / "index"]


def _worktree_inputs(config: Config, store: Store, cwd: Path) -> list[Path]:
    """What decides what is read of the other worktrees (``worktrees: shared``): git's
    list of them, and this user's record of each of their layers."""
    from pi_memory.config.schema import SHARED

    if config.worktrees != SHARED:
        return []
    from pi_memory.naming.git_repo import find_git_repo
    from pi_memory.naming.worktrees import WORKTREES_DIR
    from pi_memory.provenance import record_path

    repo = find_git_repo(cwd)
    if repo is None:
        return []
    s = store.settings
    home = s.home if s.repository is not None else None
    records = [record_path(home, d) for d in s.worktree_dirs] if home else []
    return [repo.common_dir / WORKTREES_DIR, *records]


# -- start -----------------------------------------------------------------------------------


def on_start(event: HookEvent, *, at_prompt: bool = False) -> Answer:
    """``at_prompt``: the start a new session's first prompt does (the host's
    ``first_prompt_starts``); that prompt carries the index."""
    from pi_memory import receipts
    from pi_memory.hosts import hook_receipts
    from pi_memory.session import moments, state

    known = know(event, refresh=True)
    if known.misconfigured:
        if at_prompt and event.session_id:  # said once: the next prompt starts nothing
            loaded = state.load(event.session_id)
            state.save(event.session_id, loaded, loaded._replace(frozen=""))
        return Answer("", known.warning)
    _background_at_start(known.note, event, known.scheduled)
    said = "\n".join(part for part in (known.warning, _model_missing(known.note)) if part)
    if event.source not in ("resume", "compact"):
        said = "\n".join(part for part in (said, _dream_nudge(event, known)) if part)
    injected_index_at_prompt = _host(event).injected_index_at_prompt or at_prompt
    sid = event.session_id
    if not sid:
        text = "" if injected_index_at_prompt else known.note.injection
        own = hook_receipts.write(event, receipts.INJECT, text=text, note=event.source)
        return Answer(text, said, hook_receipts.notice(known.note.notice, [own]))
    loaded = state.load(sid)
    after, text = moments.started(
        loaded,
        source=event.source,
        injection=known.note.injection,
        injected_index_at_prompt=injected_index_at_prompt,
        replays_context=_host(event).resume_replays_context,
    )
    own = hook_receipts.write(event, receipts.INJECT, text=text, note=event.source)
    state.save(sid, loaded, after)
    return Answer(text, said, hook_receipts.notice(known.note.notice, [own]))


def _model_missing(note: Note) -> str:
    """The session start's word when the model's program is not where the hooks run."""
    provider, command = note.model_command
    if not command or not note.background:
        return ""
    from pi_memory.model.cli_provider import command_found, missing_command_note

    return "" if command_found(command, os.environ) else missing_command_note(provider, command)


def _dream_nudge(event: HookEvent, known: Known) -> str:
    """pi-memory's reminder to dream, counted once per new session; never fails the start."""
    directory, sessions, hours = known.note.dream
    if not directory:
        return ""
    from datetime import datetime, timezone

    try:
        from pi_memory.jobs.dream import count_session, nudge

        now = datetime.now(timezone.utc)
        meta = count_session(Path(directory), now)
        return nudge(meta, now, after_sessions=sessions, after_hours=hours)
    except Exception as exc:  # a reminder must never cost the session its index
        from pi_memory.error_handler import log_exception

        log_exception("hook session-start: dream nudge", exc)
        return ""


def _dream_settings(config: Config, store: Store) -> tuple[str, int, float]:
    """The note's ``dream``: where to count sessions, and the two thresholds."""
    from pi_memory.entry import PROJECT

    directory = store.directory(PROJECT)
    if not store.layer(PROJECT).jobs.dream_reminder or not directory.is_dir():
        return ("", 0, 0.0)
    return (str(directory), config.dream.nudge_after_sessions, config.dream.nudge_after_hours)


def _background_at_start(note: Note, event: HookEvent, scheduled: Sequence[str]) -> None:
    """Prune old session state, and start a worker for each session with jobs: it runs
    what a dead worker left behind, or waits for a live one and takes over what that one
    failed or could not finish by its deadline (one waiter per session).

    A session whose jobs this start ``scheduled`` already has its worker: a second one
    would wait for it and retry at once what it just failed, two attempts for one start.
    """
    import time

    from pi_memory.session.dirs import prune, session_key

    try:
        if prune(note.session_days, time.time()) is not None:
            from pi_memory.hosts import fastpath

            fastpath.prune(note.session_days, time.time())
        started = {session_key(name) for name in scheduled}
        if _check_anchors(note, event):
            from pi_memory.jobs.records import ANCHORS

            started.add(session_key(ANCHORS))
        if not note.background:
            return
        from pi_memory.jobs import records, worker

        for key in records.sessions_with_jobs():
            if key not in started and not records.waiter_alive(key):
                worker.spawn(key, event.cwd)
    except OSError as exc:
        from pi_memory.error_handler import log_line

        log_line("hook session-start: jobs", f"{type(exc).__name__}: {exc}")


def lock_warning(directories: Mapping[str, Path]) -> str | None:
    """What a person must hear about a layer's lock at session start, or None.

    An abandoned lock blocks every write until someone clears it; a lock held
    from another host (a shared disk, a committed ``.lock``) is never judged
    dead, so every write would wait it out. Hooks run silently: both are said.
    """
    from pi_memory.entry import USER
    from pi_memory.fs.lock import (
        HELD,
        UNLOCK_COMMAND,
        confirmed_abandoned,
        read_lock_status,
        status_line,
        this_host,
    )

    for layer, directory in directories.items():
        status = read_lock_status(directory)
        command = UNLOCK_COMMAND + (" user" if layer == USER else "")
        if confirmed_abandoned(directory, status):
            return (
                f"pi_memory: memory writes are blocked by an abandoned lock in {directory} "
                f"({status_line(status)}); run: {command}"
            )
        if status.kind == HELD and status.hostname != this_host():
            return (
                f"pi_memory: memory writes wait for a lock held from another host in "
                f"{directory} ({status_line(status)}); if nothing there is writing, run: "
                f"{command}"
            )
    return None


# -- prompt ----------------------------------------------------------------------------------


def on_prompt(event: HookEvent) -> Answer:
    """A prompt; a new session's first one does the session's start first where the host
    runs no session start before it (``first_prompt_starts``)."""
    from pi_memory.session import state

    sid = event.session_id
    if not sid or not _host(event).first_prompt_starts or state.load(sid).frozen is not None:
        return _on_prompt(event)
    begun = on_start(event._replace(moment="start", source="startup"), at_prompt=True)
    answer = _on_prompt(event)
    return Answer(
        answer.context,
        "\n".join(part for part in (begun.system_message, answer.system_message) if part),
        "\n".join(part for part in (begun.notice, answer.notice) if part),
    )


def _on_prompt(event: HookEvent) -> Answer:
    from pi_memory.session import moments, state

    sid = event.session_id
    loaded = state.load(sid) if sid else state.SessionState()
    now = loaded
    if sid and _host(event).compact_hook_every_request:
        now = _settle_compression(event, now)
        if event.transcript:  # a compression during this turn shows after this mark
            now = moments.watch(now, _size(event.transcript))
    if not event.prompt.strip() and not now.reinject:
        if sid:
            state.save(sid, loaded, now)
        return Answer()
    known = know(event)
    if known.misconfigured:
        if sid:
            state.save(sid, loaded, now)
        return Answer()
    now, index = moments.prompt_index(now, known.note.injection)
    parts = [index] if index else []
    found = _surface(event, known, now.surfaced, index) if event.prompt.strip() else None
    if found is not None and found.text:
        parts.append(found.text)
        now = moments.surfaced(now, found.ids)
    line = _prompt_receipts(event, known.note, index, found)
    review = None
    if sid and "turn_end" not in _host(event).events:
        now, review = _turn_before(event, known.note, now)
    if sid:
        state.save(sid, loaded, now)
    if review is not None:
        from pi_memory.jobs import worker

        worker.schedule(review, event.cwd)
    return Answer("\n\n".join(parts), notice=line)


def _turn_before(
    event: HookEvent, note: Note, now: SessionState
) -> tuple[SessionState, JobRecord | None]:
    """A host whose turn ends are not hooked: this prompt says the turn before it ended.
    Its work (the anchors' check when due, the review every ``REVIEW_TURNS`` turns) is
    done here; the session's end hands the last turn to the quit flush. Returns the
    state with the prompt counted and the review to schedule once it is saved."""
    if not event.transcript:
        return now, None
    _check_anchors(note, event)
    if not note.background:
        return now, None
    from pi_memory.jobs import records
    from pi_memory.session import gate

    counted, due = gate.prompted(now.gate, event.turn_key, note.review_turns)
    return now._replace(gate=counted), _record(records.REVIEW, event) if due else None


def _check_anchors(note: Note, event: HookEvent) -> bool:
    """Start the anchors' check when due (True when it was scheduled); the job modules
    are loaded only then."""
    import time

    from pi_memory.anchors.cache import due

    directory, root = note.anchors
    if not directory:
        return False
    try:
        if not due(Path(directory), Path(root), time.time()):
            return False
    except OSError:
        pass  # the check says why, in the log
    from pi_memory.jobs import worker

    return worker.check_anchors_when_due(directory, root, event.cwd)


def _prompt_receipts(event: HookEvent, note: Note, index: str, found: Surfaced | None) -> str:
    """The prompt's receipts (the index put in again, the memories surfaced), and the
    notice they and the session's finished jobs make."""
    from pi_memory import receipts
    from pi_memory.hosts import hook_receipts

    own = []
    if index:
        own.append(hook_receipts.write(event, receipts.INJECT, text=index, note="prompt"))
    if found is not None:
        own.append(
            hook_receipts.write(
                event, receipts.SURFACE, text=found.text, ids=found.ids, note=found.via
            )
        )
    return hook_receipts.notice(note.notice, own)


def _surface(event: HookEvent, known: Known, skip: tuple[str, ...], index: str) -> Surfaced:
    """The memories this prompt needs, within ``autoSurfacing.timeoutMs`` and the context cap
    (what it holds besides the ``index`` the same answer carries); a side-query model in its
    back-off after failing is not asked (the scorer answers)."""
    from pi_memory.hosts import fastpath
    from pi_memory.model import backoff
    from pi_memory.surfacing import beside, surface

    caps = fastpath.limits_of(known.note)
    caps = beside(caps, index, known.note.max_context, known.note.max_bytes)
    asks = known.note.side_query and not backoff.waiting(known.note.surface_model)
    return surface(
        known.corpus(),
        event.prompt,
        caps,
        config=known.config() if asks else None,
        skip=list(skip),
        env=os.environ,
    )


# -- background moments ----------------------------------------------------------------------


def on_turn_end(event: HookEvent) -> Answer:
    from pi_memory.session import gate, state

    sid = event.session_id
    if not sid or not event.transcript:
        return Answer()
    loaded = state.load(sid)
    now = loaded
    if _host(event).compact_hook_every_request:
        now = _settle_compression(event, now)
    note = know(event).note
    _check_anchors(note, event)
    due = False
    if note.background:
        counted, due = gate.turn_ended(now.gate, event.turn_key, note.review_turns)
        now = now._replace(gate=counted)
    line = ""
    if "prompt" not in _host(event).events:  # no prompt hook to tell the user: the turn's end
        from pi_memory.hosts import hook_receipts

        line = hook_receipts.notice(note.notice)
    state.save(sid, loaded, now)
    if due:
        from pi_memory.jobs import records, worker

        worker.schedule(_record(records.REVIEW, event), event.cwd)
    return Answer(notice=line)


def on_pre_compact(event: HookEvent) -> Answer:
    from pi_memory.session import state

    sid = event.session_id
    if not sid:
        _compacting(event, _size(event.transcript) if event.transcript else 0)
        return Answer()
    loaded = state.load(sid)
    end = _size(event.transcript) if event.transcript else 0
    state.save(sid, loaded, _compacting(event, end, loaded))
    return Answer()


def _compacting(event: HookEvent, end: int, now: SessionState | None = None) -> SessionState:
    """A compaction is under way: forget what was surfaced, hand off up to ``end``;
    returns the session's state after it."""
    from pi_memory.session import moments
    from pi_memory.session.state import SessionState

    no_start_after = _host(event).no_start_after_compact
    after = moments.compacting(now or SessionState(), no_start_after=no_start_after)
    if event.session_id and event.transcript and know(event).note.background:
        from pi_memory.jobs import records, worker

        worker.schedule(_record(records.HANDOFF, event, end), event.cwd)
    return after


def _settle_compression(event: HookEvent, now: SessionState) -> SessionState:
    """Gemini: whether the CLI compressed since the last prompt marked its chat recording;
    if so, what it does."""
    from pi_memory.session import moments

    now, mark = moments.settle(now)
    if mark is None:
        return now
    try:
        with open(event.transcript, "rb") as chat:
            chat.seek(mark)
            appended = chat.read().decode("utf-8", "replace")
    except OSError:
        return now
    from pi_memory.transcripts.gemini import restarted

    return _compacting(event, mark, now) if restarted(appended) else now


def on_post_compact(event: HookEvent) -> Answer:
    from pi_memory.session import state

    if event.session_id:
        loaded = state.load(event.session_id)
        state.save(event.session_id, loaded, loaded._replace(surfaced=()))
    return Answer()


def on_end(event: HookEvent) -> Answer:
    if not event.session_id or not event.transcript:
        return Answer()
    if _host(event).compact_hook_every_request:
        # Gemini: no turn-end hook settles a compression of the session's last turn, and
        # the next process's start drops the watch: the session's end settles it.
        from pi_memory.session import state

        loaded = state.load(event.session_id)
        state.save(event.session_id, loaded, _settle_compression(event, loaded))
    note = know(event).note
    _check_anchors(note, event)
    if note.background:
        from pi_memory.jobs import records, worker

        worker.schedule(_record(records.FLUSH, event), event.cwd)
    return Answer()


def _record(kind: str, event: HookEvent, end: int | None = None) -> JobRecord:
    """The job over ``event``'s transcript up to ``end`` (default: its size now)."""
    import time

    from pi_memory.jobs.records import JobRecord

    return JobRecord(
        kind=kind,
        session=event.session_id,
        cwd=str(event.cwd),
        transcript=event.transcript,
        host=event.host,
        end=_size(event.transcript) if end is None else end,
        created=time.time(),
    )


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
