"""``extract``: learn from a transcript — pi-memory-auto's review and handoff, pi-memory's agent.

:func:`extract` reads the transcript, asks the review gate whether (and from
which message) to review, asks the model, validates its reply and only then
writes through the store, each memory under the store's lock. A model that
never answered leaves the store and the gate's cursor as they were and is
reported as such, never as "nothing worth storing".

In the ``files`` layout a turn is reviewed by pi-memory's extract agent (see
:mod:`pi_memory.jobs.extract_agent`); a compaction handoff uses pi-memory-auto's
one-shot review in both layouts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pi_memory.entry import PROJECT
from pi_memory.jobs import EXTRACT_TASK
from pi_memory.jobs.outcome import FAILED, NOTHING, SKIPPED, STORED, JobOutcome

if TYPE_CHECKING:
    from pi_memory.config.schema import Config
    from pi_memory.jobs.review import ReviewPlan
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
    now_state = loaded
    if not handoff and not dry_run:
        # pi-memory-auto: the turn is marked before the model is asked, so a repeated
        # delivery of the same turn can never start a second review.
        now_state = loaded._replace(gate=gate.marked(loaded.gate, decision))
        state.save(sid, loaded, now_state)
    try:
        outcome = _run(
            store, config, turns[decision.start :], now=now, layer=layer, handoff=handoff,
            dry_run=dry_run, background=background, timeout=timeout, env=env,
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


def _run(
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
) -> JobOutcome:
    """The review of ``turns``: pi-memory's extract agent for the files layout's turns,
    pi-memory-auto's one-shot review otherwise."""
    if store.layer(layer or "project").agent_tools == ("memory",) and not handoff:
        from pi_memory.jobs.extract_agent import run_extract_agent

        return run_extract_agent(
            store, config, turns, now=now, layer=layer, dry_run=dry_run,
            background=background, timeout=timeout, env=env,
        )  # fmt: skip
    return _review(
        store, config, turns, now=now, layer=layer, handoff=handoff, dry_run=dry_run,
        background=background, timeout=timeout, env=env,
    )  # fmt: skip


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
) -> JobOutcome:
    from pi_memory.jobs import review
    from pi_memory.model.errors import ModelError, ModelNotConfigured
    from pi_memory.model.types import Message
    from pi_memory.transcripts.render import keep_tail, serialize

    job = "handoff" if handoff else "extract"
    conversation = keep_tail(serialize(turns))
    if not conversation.strip():
        return JobOutcome(job, SKIPPED, "the new messages hold no text to review", dry_run=dry_run)
    entries = store.read_all()
    system = review.system_prompt(handoff=handoff)
    prompt = review.user_prompt(conversation, entries, review.conflict_hints(entries))
    from pi_memory.model.client import chat

    try:
        reply = chat(
            config,
            EXTRACT_TASK,
            [Message("user", prompt)],
            system=system,
            job=job,
            background=background,
            timeout=timeout,
            env=env,
        )
    except ModelNotConfigured:
        raise
    except ModelError as err:
        return JobOutcome(job, FAILED, str(err), dry_run=dry_run)
    plan = review.parse_review(
        reply.text,
        max_entries=review.HANDOFF_MAX if handoff else review.REVIEW_MAX,
        known={e.id: e for e in entries},
        categories=store.layer(PROJECT).files_by_category,
    )
    return _store_plan(store, plan, job=job, layer=layer, now=now, dry_run=dry_run)


def _store_plan(
    store: Store, plan: ReviewPlan, *, job: str, layer: str | None, now: datetime, dry_run: bool
) -> JobOutcome:
    from pi_memory.errors import EntryRejected

    rejected = list(plan.rejected)
    changes: list[dict[str, object]] = []
    for proposed in plan.entries:
        if layer is not None and proposed.layer != layer:
            rejected.append(f"{proposed.keyword}: for the {proposed.layer} layer, not {layer}")
            continue
        change: dict[str, object] = {
            "layer": proposed.layer,
            "file": proposed.file,
            "keyword": proposed.keyword,
            "body": proposed.body,
            "supersedes": list(proposed.supersedes),
        }
        if not dry_run:
            try:
                outcome = store.write(
                    proposed.layer,
                    proposed.body,
                    [proposed.keyword],
                    now=now,
                    file=proposed.file or None,
                    supersedes=proposed.supersedes,
                    src="handoff" if job == "handoff" else "auto",
                )
            except EntryRejected as err:
                rejected.append(f"{proposed.keyword}: {err}")
                continue
            change.update(
                id=outcome.entry.id,
                file=outcome.entry.file,
                deduped=outcome.deduped,
                superseded=list(outcome.superseded),
            )
        changes.append(change)
    if not changes:
        return JobOutcome(job, NOTHING, "nothing worth storing", (), tuple(rejected), dry_run)
    verb = "would store" if dry_run else "stored"
    n = len(changes)
    detail = f"{verb} {n} {'memory' if n == 1 else 'memories'}"
    return JobOutcome(job, STORED, detail, tuple(changes), tuple(rejected), dry_run)
