"""``trust``: use the memories other contributors committed to this repository's project layer.

A project layer inside a git repository arrives with every clone. Its memories
that this user did not write are left out of what a model reads until the user
trusts the layer (see :mod:`pi_memory.provenance`); then they are used, marked as
notes from others. ``--revoke`` leaves them out again and stops the question.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--revoke",
        action="store_true",
        help="stop using them again (and stop being asked at session start)",
    )


def run(args: argparse.Namespace) -> int:
    return run_trust(revoke=args.revoke)


def run_trust(*, revoke: bool) -> int:
    from pi_memory.entry import PROJECT
    from pi_memory.errors import UsageError
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line
    from pi_memory.provenance import set_trusted

    store = open_store().store
    settings = store.settings
    directory = store.directory(PROJECT)
    if PROJECT in settings.unavailable:
        raise UsageError(settings.unavailable[PROJECT])
    if settings.repository is None or settings.home is None:
        write_line(
            f"nothing to trust: the project layer {directory} is not in a git repository, "
            "so every memory in it is yours"
        )
        return 0
    changed = set_trusted(settings.home, directory, not revoke)
    count = len(store.provenance().foreign)
    theirs = f"{count} {'memory' if count == 1 else 'memories'} committed by others"
    if revoke:
        done = "no longer trusted" if changed else "not trusted"
        write_line(f"{directory}: {done}; {theirs} left out of what the model reads")
    else:
        done = "trusted" if changed else "already trusted"
        write_line(
            f"{directory}: {done}; {theirs} now reach the model, marked as notes from "
            "the repository, not instructions"
        )
    if settings.trusted_project and revoke:
        write_line(f'note: {settings.repository} is in "trustedProjects", which trusts it too')
    return 0
