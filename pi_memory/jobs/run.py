"""One background job, by kind: the single place the worker meets the model jobs.

A consolidation is pi-memory-auto's automatic round over one layer. A review, a
handoff and the quit flush are one extraction over the session's
transcript: the extraction's review gate knows how far earlier reviews reached
(its cursor), so each covers only what is new, and two of them in a row cost
one model call. The hook already decided that this turn is due, so the turn
check is not repeated here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_memory.jobs.records import JobRecord


def run_job(record: JobRecord) -> str:
    """Do the work of ``record`` and say what happened; raises when it was not done."""
    from datetime import datetime
    from pathlib import Path

    from pi_memory.jobs.records import CONSOLIDATE, HANDOFF
    from pi_memory.open_store import open_store

    config, store, _, _ = open_store(Path(record.cwd))
    if record.kind == CONSOLIDATE:
        from pi_memory.jobs.consolidate import compact

        outcome = compact(store, config, record.layer, background=True)
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
        )
    if not outcome.ok:
        raise RuntimeError(f"{outcome.job}: {outcome.detail}")
    return f"{outcome.job}: {outcome.status} — {outcome.detail}"
