"""``dream [layer]``: let the model tidy one layer (see :mod:`pi_memory.jobs.dream`).

As the design's command does, it asks first: a dream merges, rewrites,
renames and removes memories. ``--yes`` skips the question; without a
terminal to ask on it changes nothing unless ``--yes`` is given, so a script
never waits on its stdin. ``--dry-run`` writes nothing and never asks.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Final

CONFIRM: Final = (
    "Dream: let the model tidy the {layer} memory at {directory}? It may merge, rewrite,"
    " rename and remove memories (a rollback point is kept). [y/N] "
)
DECLINED: Final = "Dream cancelled: nothing changed."
NO_TERMINAL: Final = "dream: nothing changed: no terminal to ask for confirmation on — pass --yes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="ask, but write nothing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "layer",
        nargs="?",
        default="project",
        metavar="LAYER",
        help="user|project (default: project)",
    )
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def run(args: argparse.Namespace) -> int:
    from datetime import datetime, timezone

    from pi_memory.commands.confirm import confirmed, terminal_answer
    from pi_memory.commands.job_output import report
    from pi_memory.jobs.dream import dream
    from pi_memory.open_store import open_store
    from pi_memory.output import error_line, write_line
    from pi_memory.store import parse_layer

    name = parse_layer(args.layer)
    dry_run: bool = args.dry_run
    config, store, _, _ = open_store()
    if not (args.yes or dry_run):
        answer = terminal_answer()
        if answer is None:
            error_line(NO_TERMINAL)
            return 1
        if not confirmed(answer(CONFIRM.format(layer=name, directory=store.directory(name)))):
            write_line(DECLINED)
            return 1
    outcome = dream(store, config, name, now=datetime.now(timezone.utc), dry_run=dry_run)
    return report(outcome, as_json=args.json)
