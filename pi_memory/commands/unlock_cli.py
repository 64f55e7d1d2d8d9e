"""The ``unlock`` command line: pick the layer directory, ask on a terminal, then unlock."""

from __future__ import annotations

import sys


def run_unlock(*, layer: str, yes: bool, force: bool) -> int:
    from pi_memory.commands.unlock import run
    from pi_memory.resolve import open_store
    from pi_memory.store import parse_layer

    directory = open_store().directory(parse_layer(layer))
    answer = input if sys.stdin is not None and sys.stdin.isatty() else None
    return run(directory, yes=yes, force=force, answer=answer)
