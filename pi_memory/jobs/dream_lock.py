"""The dream's hold on a layer for its whole round, visible to other processes.

A dream holds the in-process logical lock for its round (pi-memory); the
extract agent may run in another process (the background worker), so the
round is also marked by ``<dir>/.dream.lock``, created with ``O_EXCL`` and
holding the same record as ``.lock``. The extract agent skips its turn while
a live dream holds it — skipped, not queued. Like ``.lock`` it is never taken
over: a marker whose holder is gone stops the next dream with the holder's
name and the file to delete.
"""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

MARKER: Final = ".dream.lock"


def marker_path(directory: Path) -> Path:
    return directory / MARKER


def dream_running(directory: Path) -> bool:
    """Whether a dream whose holder may be alive holds ``directory``."""
    from pi_memory.fs.lock import is_abandoned, parse_record

    try:
        raw = marker_path(directory).read_bytes()
    except OSError:
        return False
    return not is_abandoned(parse_record(raw))


def take(directory: Path) -> bool:
    """Mark the round; False when a live dream has it.

    A marker whose holder is gone raises :class:`~pi_memory.errors.LockError`
    naming the holder and the file to delete.
    """
    from pi_memory.errors import LockError
    from pi_memory.fs.lock import MemoryLockedError, acquire_lock_file, describe_holder

    directory.mkdir(parents=True, exist_ok=True)
    path = marker_path(directory)
    try:
        return acquire_lock_file(path, "dream", None)
    except MemoryLockedError as err:
        who = describe_holder(err.holder) if err.holder else "an unreadable record"
        raise LockError(
            f"a dream that is gone ({who}) left {path}: delete that file to dream again"
        ) from None


def release(directory: Path) -> None:
    from pi_memory.fs.lock import release_lock_file

    release_lock_file(marker_path(directory))
