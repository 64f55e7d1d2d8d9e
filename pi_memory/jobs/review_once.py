"""pi-memory-auto's one-shot review: one model call over the new turns, its reply
validated (:mod:`pi_memory.jobs.review`), then stored memory by memory through the
store. It reviews a turn in the layouts whose toolkit is pi-memory-auto's operations,
and is every layout's compaction handoff."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from pi_memory.entry import PROJECT
from pi_memory.jobs import EXTRACT_TASK
from pi_memory.jobs.outcome import FAILED, NOTHING, SKIPPED, STORED, JobOutcome

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.config.schema import Config
    from pi_memory.inbox import Source
    from pi_memory.jobs.review import ReviewPlan
    from pi_memory.store import Store
    from pi_memory.transcripts import Turn


def review_once(
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
    stage: Source | None = None,
) -> JobOutcome:
    """Ask the model once about ``turns``; store what its reply proposes and validates,
    or, given ``stage``, put it in the inbox for a person."""
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
        max_body_bytes=store.settings.max_body_bytes,
    )
    if stage is not None and not dry_run:
        return _stage_plan(store, plan, stage, turns, job=job, layer=layer, now=now)
    return _store_plan(store, plan, job=job, layer=layer, now=now, dry_run=dry_run)


def _stage_plan(
    store: Store,
    plan: ReviewPlan,
    source: Source,
    turns: Sequence[Turn],
    *,
    job: str,
    layer: str | None,
    now: datetime,
) -> JobOutcome:
    """The inbox's share of a review: each memory the reply proposes, staged, not written."""
    from pi_memory.inbox import WRITE, Proposal, stage
    from pi_memory.jobs.outcome import staged_outcome

    rejected = list(plan.rejected)
    proposals = []
    for p in plan.entries:
        if layer is not None and p.layer != layer:
            rejected.append(f"{p.keyword}: for the {p.layer} layer, not {layer}")
            continue
        proposals.append(Proposal(p.layer, WRITE, p.keyword, p.body, p.file, p.supersedes))
    staged = stage(store, proposals, source, now=now, turns=turns)
    return staged_outcome(job, staged, rejected)


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
