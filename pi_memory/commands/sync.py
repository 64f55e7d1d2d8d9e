"""``sync``: keep the user layer in a git repository with a remote, on every machine.

``sync --remote URL`` the first time (the layer becomes a git repository whose
``origin`` is URL, remembered; memories already there are kept and sent), plain
``sync`` after. Pull, merge by the layout's rules, push: see
:mod:`pi_memory.sync.run`. A remote that cannot be reached or refuses the push
changes nothing here: one line on stderr, exit 1.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--remote",
        metavar="URL",
        help="the git remote to keep the user layer in (needed the first time, then remembered)",
    )


def run(args: argparse.Namespace) -> int:
    from pi_memory.entry import USER
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line
    from pi_memory.sync.run import sync_layer

    store = open_store().store
    report = sync_layer(store, USER, args.remote)
    arrived = "1 memory" if report.arrived == 1 else f"{report.arrived} memories"
    sent = "this machine's changes were sent" if report.pushed else "nothing new to send"
    write_line(f"synced the user layer with {report.remote}: {arrived} arrived, {sent}")
    for line in report.kept_both:
        write_line(f"kept both: {line}")
    if report.note:
        write_line(f"note: {report.note}")
    return 0
