"""One background job, by kind: the single place the worker meets the model jobs.

A consolidation is pi-memory-auto's automatic round over one layer. A review, a
handoff and the quit flush are one extraction over the session's
transcript: the extraction's review gate knows how far earlier reviews reached
(its cursor), so each covers only what is new, and two of them in a row cost
one model call. The hook already decided that this turn is due, so the turn
check is not repeated here.
"""

from __future__ import annotations

from pi_memory.errors import PiMemoryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.config.schema import Config
    from pi_memory.jobs.outcome import JobOutcome
    from pi_memory.jobs.records import JobRecord
    from pi_memory.store import Store


#: The model client's job each kind of record runs as (its deadline in ``JOB_TIMEOUTS``).
MODEL_JOBS: Final = {"review": "extract", "flush": "extract", "handoff": "handoff",
                     "consolidate": "compact"}  # fmt: skip


class JobFailed(PiMemoryError):
    """The job ran and reported that it could not do its work (the model never answered,
    the daily cap stopped it …): an expected failure, logged in one line."""


def job_seconds(record: JobRecord, config: Config) -> float:
    """How long ``record``'s job may run: ``jobSeconds`` when set, else its model budget."""
    from pi_memory.model.client import DEFAULT_TIMEOUT, JOB_TIMEOUTS

    if config.job_seconds > 0:
        return float(config.job_seconds)
    return JOB_TIMEOUTS.get(MODEL_JOBS.get(record.kind, ""), DEFAULT_TIMEOUT)


def run_job(record: JobRecord, store: Store, config: Config, seconds: float) -> JobOutcome:
    """Do the work of ``record`` within ``seconds`` and say what happened; raises when it
    was not done."""
    from datetime import datetime
    from pathlib import Path

    from pi_memory.jobs.records import ANCHORS, CONSOLIDATE, HANDOFF

    if record.kind == ANCHORS:
        from pi_memory.jobs.outcome import JobOutcome as Checked

        return Checked("anchors", "checked", check_anchors(store).removeprefix("anchors: "))
    if record.kind == CONSOLIDATE:
        from pi_memory.jobs.consolidate import compact

        outcome = compact(store, config, record.layer, background=True, timeout=seconds)
    else:
        from pi_memory.jobs.extract import extract

        outcome = extract(
            store,
            config,
            Path(record.transcript),
            now=datetime.now(),
            fmt=record.host or "auto",
            session=record.session,
            handoff=record.kind == HANDOFF,
            background=True,
            check_turn=False,
            timeout=seconds,
        )
    if not outcome.ok:
        raise JobFailed(f"{outcome.job}: {outcome.detail}")
    return outcome


def check_anchors(store: Store) -> str:
    """Judge the project memories' anchors against the project now and cache the
    verdicts the hooks read (:mod:`pi_memory.anchors`)."""
    import time

    from pi_memory.anchors.cache import refresh
    from pi_memory.anchors.verdict import SUSPECT
    from pi_memory.entry import PROJECT

    root = store.settings.project_root
    if root is None or PROJECT in store.settings.unavailable:
        return "anchors: no project here"
    verdicts = refresh(store.directory(PROJECT), root, time.time())
    suspect = sum(1 for v in verdicts.values() if v.state == SUSPECT)
    return f"anchors: {suspect} of {len(verdicts)} anchored memories suspect"
