"""A change of several files worked out and written beside them first, put in place later.

A write prepares its change without the store's lock: each new file's bytes go
to a temp file beside it (written and fsynced, the slow part), together with
the identity the file had when the change was worked out from it. With the
lock taken, :meth:`StagedChange.unchanged` checks that every file is still as
it was (a few ``stat`` calls) and :meth:`StagedChange.commit` renames the temp
files into place: the lock is held for milliseconds, whatever the files' size.
The fsync of the directory that makes the renames durable comes after the lock
(:meth:`StagedChange.sync`), before the write is reported done.

Each replaced file is kept by a hard link from the staging on (it costs no
space): the renames are all or nothing, as far as a process can make them (a
rename that fails puts back what the earlier ones replaced), and the freeing
of a replaced file's blocks, slow for a large file, happens when the link is
dropped, after the lock. A kill between two renames leaves the files of the
first, as a kill between two writes always did; a kill before the links are
dropped leaves them as temp files, swept like any other.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.fs.atomic import (
    Staged,
    discard,
    fsync_directory,
    put_in_place,
    stage_bytes,
    stage_written,
)
from pi_memory.fs.parse_cache import Identity, identity_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Callable


class _Step:
    """One file of the change: new bytes (staged) or its removal (``staged`` is None),
    and a hard link to the file it replaces (``kept``), made with the staging."""

    __slots__ = ("expected", "kept", "path", "staged")

    def __init__(self, path: Path, staged: Staged | None, expected: Identity | None) -> None:
        self.path = path
        self.staged = staged
        self.expected = expected
        self.kept = _keep_old(path) if expected is not None else None


class StagedChange:
    """Files to replace or remove, each as it was when the change was worked out."""

    def __init__(self) -> None:
        self._steps: list[_Step] = []
        self._before: list[Callable[[], None]] = []
        self._after: list[Callable[[], None]] = []
        self._done: list[_Step] = []

    def replace(self, path: Path, data: bytes, expected: Identity | None) -> None:
        """Stage ``data`` for ``path``, which had ``expected`` (``None``: no such file)."""
        self._steps.append(_Step(Path(path), stage_bytes(path, data), expected))

    def replace_written(
        self, path: Path, write: Callable[[BinaryIO], object], expected: Identity | None
    ) -> None:
        """:meth:`replace` with the new bytes written by ``write``, piece by piece."""
        self._steps.append(_Step(Path(path), stage_written(path, write), expected))

    def remove(self, path: Path, expected: Identity | None) -> None:
        self._steps.append(_Step(Path(path), None, expected))

    def before(self, call: Callable[[], None]) -> None:
        """Run ``call`` in :meth:`commit`, before any file changes (a rollback point)."""
        self._before.append(call)

    def after(self, call: Callable[[], None]) -> None:
        """Run ``call`` once every file is in place (the caches follow the change)."""
        self._after.append(call)

    @property
    def paths(self) -> list[Path]:
        return [step.path for step in self._steps]

    def identity(self, path: Path) -> Identity | None:
        """The identity ``path`` has once :meth:`commit` put its new bytes in place (the
        staged file's, renamed: no byte of it read back), until anything changes it;
        ``None`` when not known or not put in place."""
        for step in self._done:
            if step.path == Path(path) and step.staged is not None:
                return step.staged.identity
        return None

    def unchanged(self) -> bool:
        """Whether every file is still as the change was worked out from."""
        return all(identity_at(step.path) == step.expected for step in self._steps)

    def discard(self) -> None:
        """Remove what was staged and not put in place (nothing after :meth:`commit`)."""
        for step in self._steps:
            if step.staged is not None:
                discard(step.staged)
            _unlink(step.kept)
        self._steps = []

    def commit(self) -> None:
        """Put every file in place (call with the lock held, after :meth:`unchanged`)."""
        for call in self._before:
            call()
        steps, self._steps = self._steps, []
        done: list[_Step] = []
        try:
            for step in steps:
                done.append(step)
                if step.staged is None:
                    _unlink(str(step.path))
                else:
                    put_in_place(step.staged, sync=False)
        except BaseException:
            _put_back(done)
            self._steps = steps  # :meth:`discard` removes the rest
            raise
        self._done.extend(steps)
        for call in self._after:
            call()

    def sync(self) -> None:
        """Make the renames of :meth:`commit` survive a power cut (an fsync of each
        directory) and drop the links to the replaced files, whose freeing is the slow
        part of a rename over a large file: neither needs the lock."""
        done, self._done = self._done, []
        for directory in dict.fromkeys(step.path.parent for step in done):
            fsync_directory(directory)
        for step in done:
            _unlink(step.kept)


def _keep_old(path: Path) -> str | None:
    """A hard link to ``path`` (``None`` when the file system has none, or no file)."""
    kept = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
    try:
        os.link(path, kept)
    except OSError:
        return None
    return kept


def _put_back(done: list[_Step]) -> None:
    """Undo the steps of a commit that failed part way, the last first."""
    for step in reversed(done):
        try:
            if step.kept is not None:
                os.replace(step.kept, step.path)
            elif step.expected is None and step.staged is not None:
                os.unlink(step.path)  # a file the change made
        except OSError:
            pass


def _unlink(path: str | None) -> None:
    if path is None:
        return
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
