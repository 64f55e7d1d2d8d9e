"""pi-memory's extract-memories agent, for the ``files`` layout.

The agent gets a structured rendering of the turn (user messages whole,
assistant text and tool calls, shortened tool results), the main agent's five
``memory`` actions, at most 5 rounds of tool calls and 120 seconds. It never
waits for a dream: while one holds the layer the turn is skipped, not queued.
Its writes are staged and committed only once it finished (see
:mod:`pi_memory.jobs.staging`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from pi_memory.entry import PROJECT
from pi_memory.jobs import EXTRACT_TASK
from pi_memory.jobs.outcome import FAILED, SKIPPED, JobOutcome, agent_outcome

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.config.schema import Config
    from pi_memory.entry import Entry
    from pi_memory.inbox import Proposal, Source
    from pi_memory.jobs.staging import Staging
    from pi_memory.store import Store
    from pi_memory.transcripts import Turn

#: pi-memory: at most 5 rounds of tool calls, 120 seconds.
MAX_ROUNDS: Final = 5
SECONDS: Final = 120.0


def run_extract_agent(
    store: Store,
    config: Config,
    turns: Sequence[Turn],
    *,
    now: datetime,
    layer: str | None,
    dry_run: bool,
    background: bool,
    timeout: float | None,
    env: Mapping[str, str] | None,
    stage: Source | None = None,
) -> JobOutcome:
    from pi_memory.inbox import stage as stage_proposals
    from pi_memory.jobs.agent import run_agent
    from pi_memory.jobs.dream_lock import dream_running
    from pi_memory.jobs.outcome import staged_outcome
    from pi_memory.jobs.staging import MAIN_ACTIONS, Staging, describe, tool_spec
    from pi_memory.model.errors import ModelError, ModelNotConfigured
    from pi_memory.model.prompts import fill, load
    from pi_memory.transcripts.render import structured

    target = layer or PROJECT
    if dream_running(store.directory(target)):
        return JobOutcome("extract", SKIPPED, "a dream holds this layer", dry_run=dry_run)
    settings = config.extract_memories
    prompt = structured(
        turns,
        max_chars=settings.max_context_tokens * 4,
        max_tool_result_chars=settings.max_tool_result_chars,
        max_assistant_chars=settings.max_assistant_chars,
    )
    before = store.layer(target).read()
    staging = Staging(before, MAIN_ACTIONS, now, store.settings.max_body_bytes)
    try:
        run = run_agent(
            config,
            EXTRACT_TASK,
            job="extract",
            system=fill(load("extract_agent"), max_turns=str(MAX_ROUNDS)),
            prompt=prompt,
            tools=[tool_spec(MAIN_ACTIONS)],
            answer=staging.answer,
            max_rounds=MAX_ROUNDS,
            seconds=timeout or SECONDS,
            background=background,
            env=env,
        )
    except ModelNotConfigured:
        raise
    except ModelError as err:
        return JobOutcome("extract", FAILED, str(err), dry_run=dry_run)
    refused = list(staging.refused)
    if stage is not None and not dry_run:
        proposals = _proposals(staging, target)
        staged = stage_proposals(store, proposals, stage, now=now, turns=turns)
        return staged_outcome("extract", staged, refused)
    written: tuple[str, ...] = ()
    if dry_run:
        done = [describe(step) for step in staging.staged]
    else:
        done, more, written = _commit(store, staging, target, before)
        refused += more
    outcome = agent_outcome(
        "extract",
        done,
        refused,
        summary=run.text,
        rounds=run.rounds,
        dry_run=dry_run,
        nothing="nothing worth storing",
    )
    return outcome._replace(written=written, layer=target if written else "")


def _proposals(staging: Staging, layer: str) -> list[Proposal]:
    """The agent's writes as proposals for a person, one a write, none made."""
    from pi_memory.inbox import Proposal

    proposals = []
    for step in staging.staged:
        args = step.args
        name, content = args.get("name", ""), args.get("content", "")
        proposals.append(
            Proposal(
                layer,
                step.action,
                name,
                content,
                description=args.get("description", ""),
                type=args.get("type", ""),
            )
        )
    return proposals


def _commit(
    store: Store, staging: Staging, target: str, before: Sequence[Entry]
) -> tuple[list[str], list[str], tuple[str, ...]]:
    """Make the staged writes: what was done, what was refused, and the ids of the
    memories written (read back: the agent's lines do not name them)."""
    with store.lock(target, "extract"):
        done, refused = staging.commit(store, target)
    was = {e.id: e.body for e in before}
    written = tuple(e.id for e in store.layer(target).read() if was.get(e.id) != e.body)
    return done, refused, written
