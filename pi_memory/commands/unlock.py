"""``python -m pi_memory unlock``: remove a lock file nobody will release.

The lock is never taken over automatically, so a holder that crashed leaves
it for a person to clear. This command shows who holds it, refuses a holder
that is provably still running on this host unless ``--force``, asks before
removing anything, and removes it without ever deleting a lock that replaced
the one that was shown.
"""

from __future__ import annotations

from pathlib import Path

from pi_memory import output
from pi_memory.commands.confirm import confirmed, terminal_answer
from pi_memory.fs import lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Final

    from pi_memory.commands.confirm import Answer

NO_LOCK: Final = "No lock present."
CONFIRM_TITLE: Final = "Memory lock"
CONFIRM_HELD: Final = (
    "Remove the memory lock file? It is held by {holder}."
    " Only do this if no memory operation is running."
)
CONFIRM_OTHER: Final = (
    "Remove the memory lock file? Only do this if no memory operation is running."
)
REMOVED: Final = "Memory lock removed."
DECLINED: Final = "Memory lock left in place."
FAILURE: Final = "Failed to remove memory lock: {message}"
#: For the caller that resolves the store directory before calling :func:`remove`.
RESOLVE_FAILURE: Final = "Failed to resolve memory dir: {message}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--force", action="store_true", help="remove even a live holder's lock")
    parser.add_argument(
        "layer",
        nargs="?",
        default="project",
        metavar="LAYER",
        help="user|project (default: project)",
    )


def run(args: argparse.Namespace) -> int:
    """The command line: pick the layer's directory, ask on a terminal, then :func:`remove`."""
    from pi_memory.open_store import open_store
    from pi_memory.store import parse_layer

    layer = parse_layer(args.layer)
    directory = open_store().store.directory(layer)
    return remove(
        directory,
        yes=args.yes,
        force=args.force,
        answer=terminal_answer(),
        command=unlock_command(layer),
    )


def unlock_command(layer: str) -> str:
    """The command that removes ``layer``'s lock, as a person types it."""
    from pi_memory.entry import USER

    return lock.UNLOCK_COMMAND + (" user" if layer == USER else "")


def remove(
    directory: Path,
    *,
    yes: bool,
    force: bool,
    answer: Answer,
    command: str = lock.UNLOCK_COMMAND,
) -> int:
    """Show the holder, confirm, remove. ``answer`` asks a person; None means no terminal;
    ``command`` is how a person runs this again."""
    status = lock.read_lock_status(directory)
    if status.kind == lock.ABSENT:
        output.write_line(NO_LOCK)
        return 0
    output.write_line(lock.status_line(status, command))
    if lock.holder_alive(status) and not force:
        output.error_line(
            f"Refusing to remove the memory lock: its holder {lock.describe_holder(status)}"
            " is still running on this host — pass --force to remove it anyway"
        )
        return 1
    if not yes:
        if answer is None:
            output.error_line(
                "Refusing to remove the memory lock without confirmation:"
                " no terminal to ask on — pass --yes"
            )
            return 1
        if not confirmed(answer(confirm_prompt(status))):
            output.write_line(DECLINED)
            return 1
    return _remove(directory, status)


def confirm_prompt(status: lock.LockStatus) -> str:
    if status.kind == lock.HELD:
        question = CONFIRM_HELD.format(holder=lock.describe_holder(status))
    else:
        question = CONFIRM_OTHER
    return f"{CONFIRM_TITLE}: {question} [y/N] "


def _remove(directory: Path, status: lock.LockStatus) -> int:
    try:
        lock.break_lock(directory, expected=status)
    except FileNotFoundError:
        # Released while the person was reading the question.
        output.write_line(NO_LOCK)
        return 0
    except lock.LockChangedError as error:
        output.error_line(str(error))
        return 1
    except OSError as error:
        output.error_line(FAILURE.format(message=error))
        return 1
    output.write_line(REMOVED)
    return 0
