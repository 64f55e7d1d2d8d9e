"""``compact <layer>``: the model-driven consolidation pass of one layer.

It needs a model (``defaults.model`` in memory.json); without one nothing is
touched and the command says what to configure.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pi_memory.commands.rebuild import add_layer_arguments

    add_layer_arguments(parser, "compact")


def compact_ready() -> bool:
    """Whether ``compact`` can run a round here (its model resolves); ``show`` advises it then."""
    import os

    from pi_memory.errors import PiMemoryError
    from pi_memory.jobs import CONSOLIDATE_TASK
    from pi_memory.model.client import resolve
    from pi_memory.open_store import open_store

    try:
        config = open_store().config
        resolve(config, CONSOLIDATE_TASK, os.environ)
    except PiMemoryError:
        return False
    return True


def run(args: argparse.Namespace) -> int:
    from pi_memory.commands.job_output import report
    from pi_memory.commands.rebuild import needs_layer
    from pi_memory.jobs.consolidate import compact
    from pi_memory.open_store import open_store

    name = needs_layer(args)
    config, store, _, _ = open_store()
    return report(compact(store, config, name, dry_run=args.dry_run), as_json=args.json)
