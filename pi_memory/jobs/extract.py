"""``extract``: learn from a transcript — pi-memory-auto's review and handoff, pi-memory's agent.

:func:`extract` reads the transcript, asks the review gate whether (and from
which message) to review, asks the model, validates its reply and only then
writes through the store, each memory under the store's lock. A model that
never answered leaves the store and the gate's cursor as they were and is
reported as such, never as "nothing worth storing".

A turn is reviewed as the layer's toolkit reviews it (:mod:`pi_memory.jobs.toolkits`):
pi-memory's extract agent where the layout is edited with the ``memory`` tool,
pi-memory-auto's one-shot review (:mod:`pi_memory.jobs.review_once`) where it is
edited with pi-memory-auto's operations; a compaction handoff is the one-shot review
in every layout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from pi_memory.entry import PROJECT
from pi_memory.jobs.outcome import SKIPPED, JobOutcome

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.config.schema import Config
    from pi_memory.inbox import Source
    from pi_memory.store import Store
    from pi_memory.transcripts import Turn


def extract(
    store: Store,
    config: Config,
    transcript: Path,
    *,
    now: datetime,
    fmt: str = "auto",
    session: str | None = None,
    layer: str | None = None,
    handoff: bool = False,
    dry_run: bool = False,
    background: bool = False,
    check_turn: bool = True,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> JobOutcome:
    """Review the new part of ``transcript`` and store what the model proposes.

    ``check_turn=False`` is for the hooks, which already start a review at
    most once per turn; ``background`` makes the call subject to the daily cap.

    Raises :class:`~pi_memory.transcripts.TranscriptError` for a file that is
    not a transcript and ``ModelNotConfigured`` when the task has no model.
    """
    from pi_memory.session import gate, state
    from pi_memory.transcripts.read import read_transcript

    job = "handoff" if handoff else "extract"
    _, turns = read_transcript(transcript, fmt)
    sid = session or transcript.stem
    loaded = state.load(sid)
    decision = gate.decide(loaded.gate, turns, handoff=handoff, check_turn=check_turn)
    if decision.skip:
        return JobOutcome(job, SKIPPED, decision.skip, dry_run=dry_run)
    if not dry_run:
        judge_use(store, sid, turns, loaded.surfaced)
    now_state = loaded
    if not handoff and not dry_run:
        # pi-memory-auto: the turn is marked before the model is asked, so a repeated
        # delivery of the same turn can never start a second review.
        now_state = loaded._replace(gate=gate.marked(loaded.gate, decision))
        state.save(sid, loaded, now_state)
    try:
        outcome = _review(
            store, config, turns[decision.start :], now=now, layer=layer, handoff=handoff,
            dry_run=dry_run, background=background, timeout=timeout, env=env,
            stage=_inbox_source(config, job, sid, transcript),
        )  # fmt: skip
    except BaseException:  # a failure marks nothing reviewed
        unmarked = gate.failed(now_state.gate, loaded.gate)
        state.save(sid, now_state, now_state._replace(gate=unmarked))
        raise
    if dry_run:
        return outcome
    if outcome.ok:
        after = gate.reviewed(now_state.gate, decision, len(turns), handoff=handoff)
    else:
        after = gate.failed(now_state.gate, loaded.gate)
    state.save(sid, now_state, now_state._replace(gate=after))
    return outcome


def _inbox_source(config: Config, job: str, session: str, transcript: Path) -> Source | None:
    """Where the proposals go when a person approves them first (``None``: to the store)."""
    from pi_memory.config.schema import APPROVE_INBOX

    if config.extract_memories.approval != APPROVE_INBOX:
        return None
    from pi_memory.inbox import Source

    return Source(job, session, str(transcript))


def judge_use(store: Store, session: str, turns: Sequence[Turn], surfaced: Sequence[str]) -> None:
    """Keep what the agent did with the memories this session (:mod:`pi_memory.memory_use`)
    as the session's use verdicts; the review goes on whatever happens to them."""
    from pi_memory.fs.cache_home import cache_home
    from pi_memory.memory_use import judge
    from pi_memory.recalls import save_session_use

    try:
        save_session_use(Path(cache_home()), session, judge(turns, store.read_all(), surfaced))
    except OSError:
        pass  # derived state: a cache that cannot be written costs a candidate line


def _review(
    store: Store,
    config: Config,
    turns: Sequence[Turn],
    *,
    now: datetime,
    layer: str | None,
    handoff: bool,
    dry_run: bool,
    background: bool,
    timeout: float | None,
    env: Mapping[str, str] | None,
    stage: Source | None,
) -> JobOutcome:
    """A compaction's handoff is pi-memory-auto's one-shot review in every layout; a turn
    is reviewed as the layer's toolkit reviews it."""
    if handoff:
        from pi_memory.jobs.review_once import review_once

        return review_once(
            store, config, turns, now=now, layer=layer, handoff=True, dry_run=dry_run,
            background=background, timeout=timeout, env=env, stage=stage,
        )  # fmt: skip
    from pi_memory.jobs.toolkits import toolkit_for

    review = toolkit_for(store.layer(layer or PROJECT)).review
    return review(
        store, config, turns, now=now, layer=layer, dry_run=dry_run, background=background,
        timeout=timeout, env=env, stage=stage,
    )  # fmt: skip
