"""``dream [layer]``: let the model tidy one layer (see :mod:`pi_memory.jobs.dream`)."""

from __future__ import annotations


def run_dream(*, layer: str, dry_run: bool, as_json: bool) -> int:
    from datetime import datetime, timezone

    from pi_memory.commands.job_output import report
    from pi_memory.jobs.dream import dream
    from pi_memory.open_store import open_job
    from pi_memory.store import parse_layer

    name = parse_layer(layer)
    store, config = open_job()
    outcome = dream(store, config, name, now=datetime.now(timezone.utc), dry_run=dry_run)
    return report(outcome, as_json=as_json)
