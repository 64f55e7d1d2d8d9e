"""``compact <layer>``: the model-driven consolidation pass of one layer.

It needs a model (``defaults.model`` in memory.json); without one nothing is
touched and the command says what to configure.
"""

from __future__ import annotations


def compact_ready() -> bool:
    """Whether ``compact`` can run a round here (its model resolves); ``show`` advises it then."""
    import os

    from pi_memory.errors import PiMemoryError
    from pi_memory.jobs import CONSOLIDATE_TASK
    from pi_memory.model.client import resolve
    from pi_memory.open_store import open_job

    try:
        _, config = open_job()
        resolve(config, CONSOLIDATE_TASK, os.environ)
    except PiMemoryError:
        return False
    return True


def run_compact(*, layer: str, dry_run: bool = False, as_json: bool = False) -> int:
    from pi_memory.commands.job_output import report
    from pi_memory.jobs.consolidate import compact
    from pi_memory.open_store import open_job
    from pi_memory.store import parse_layer

    name = parse_layer(layer)
    store, config = open_job()
    return report(compact(store, config, name, dry_run=dry_run), as_json=as_json)
