"""The two-level write lock of a store directory.

In-process, a re-entrant gate per directory orders the logical operations of
one process (one primitive, or a caller that holds it across several
primitives, each of which re-enters it). Across processes, ``<dir>/.lock`` is
created with ``O_EXCL`` and holds a one-line JSON record of its holder; it is
held only around the physical write.

The lock file is never taken over: not by age, not by a guess. Removing another
process's lock cannot be made safe with POSIX primitives (the moment the path
is free, any waiter may legally create it), so a lock nobody will release --
an unreadable record, or a holder on this host whose process is gone -- stops
the write at once with a message that names the holder and how to clear it,
like git's ``index.lock``. A holder on another host is never judged dead.
"""

from __future__ import annotations

import _thread  # threading's locks themselves, without its import (a write's milliseconds)
import errno
import os
import sys
import time
from pathlib import Path

from pi_memory.config.defaults import LOCK_TIMEOUT_MS
from pi_memory.errors import LockError
from pi_memory.fs import fsretry
from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.layer_files import INDEX_FILE
from pi_memory.text import iso_now

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Callable, Final

LOCK_FILE: Final = ".lock"
DEFAULT_POLL_MS: Final = 50
UNLOCK_COMMAND: Final = "python -m pi_memory unlock"
#: The command pi-memory's status line names: pi's own, which exists only inside pi.
DESIGN_UNLOCK: Final = "/memory unlock"

#: The ``op`` each store primitive writes into the record (a rename is a replace).
OP_ADD: Final = "add"
OP_REPLACE: Final = "replace"
OP_REMOVE: Final = "remove"
OP_REBUILD: Final = "rebuild"
STORE_OPS: Final = {
    "add_entry": OP_ADD,
    "replace_entry": OP_REPLACE,
    "rename_entry": OP_REPLACE,
    "remove_entry": OP_REMOVE,
    "rebuild_index": OP_REBUILD,
}

ABSENT: Final = "absent"
HELD: Final = "held"
UNREADABLE: Final = "unreadable"
#: Internal only: a 0-byte file is a holder between create and write. Waiters
#: wait for it; people see it as ``unreadable`` (after a crash it is one).
_EMPTY: Final = "empty"


class LockStatus(NamedTuple):
    """What ``<dir>/.lock`` says, without any judgement on whether its holder lives."""

    #: ``absent`` | ``held`` | ``unreadable``.
    kind: str
    pid: int | None = None
    hostname: str | None = None
    #: ISO 8601 UTC with milliseconds, as the holder wrote it.
    started_at: str | None = None
    op: str | None = None


class MemoryLockedError(LockError):
    """The lock file is held, or abandoned; ``str()`` is the sentence to show."""

    def __init__(
        self, lock_path: Path, holder: LockStatus | None, op: str, *, abandoned: bool
    ) -> None:
        super().__init__(locked_message(lock_path, holder, abandoned=abandoned))
        self.lock_path = lock_path
        #: The holder's record, or ``None`` when the file is empty or unreadable.
        self.holder = holder
        #: The operation that wanted the lock.
        self.op = op
        #: True when nobody will ever release the lock: waiting is pointless.
        self.abandoned = abandoned


class ProcessLockTimeoutError(LockError):
    """Another thread of this process kept the store busy for the whole timeout."""

    def __init__(self, key: str, timeout_ms: int) -> None:
        super().__init__(
            f"Memory operations for {key} are already running in this process"
            f" (waited {timeout_ms}ms)"
        )
        self.key = key
        self.timeout_ms = timeout_ms


class LockChangedError(LockError):
    """The lock file was replaced between being shown and being removed."""


def describe_holder(status: LockStatus) -> str:
    return f"{status.op} (pid {status.pid} on {status.hostname}, started {status.started_at})"


def locked_message(lock_path: Path, holder: LockStatus | None, *, abandoned: bool) -> str:
    if abandoned:
        who = describe_holder(holder) if holder else "an unreadable record"
        return (
            f"Memory lock at {lock_path} is abandoned by {who}"
            f" — delete the file to clear it, or run {UNLOCK_COMMAND}"
        )
    if holder is not None:
        return (
            f"Memory is locked by {describe_holder(holder)}"
            f" — {lock_path.parent} is busy; its lock is {lock_path}"
        )
    return (
        f"Memory lock at {lock_path} is still being written (0 bytes)"
        f" — if no other process is writing, delete the file or run {UNLOCK_COMMAND}"
    )


def describe_status(status: LockStatus, unlock: str = DESIGN_UNLOCK) -> str:
    """The value of the ``Lock:`` status line; ``unlock`` is the command it advises
    (pi-memory's words name pi's own)."""
    if status.kind == ABSENT:
        return "free"
    if status.kind == HELD:
        return "held by " + describe_holder(status)
    return f"unreadable — run {unlock}"


def status_line(status: LockStatus, unlock: str = DESIGN_UNLOCK) -> str:
    return "Lock: " + describe_status(status, unlock)


# -- reading the record ------------------------------------------------------


def lock_path(directory: Path) -> Path:
    return Path(directory) / LOCK_FILE


def read_lock_status(directory: Path) -> LockStatus:
    """``absent``, ``held`` (never checked for liveness) or ``unreadable`` (including 0 bytes)."""
    status = _read_state(lock_path(directory))
    return LockStatus(UNREADABLE) if status.kind == _EMPTY else status


def parse_record(raw: bytes) -> LockStatus:
    """Interpret the bytes of a lock file; anything but the full record is unreadable."""
    import json

    if not raw:
        return LockStatus(_EMPTY)
    try:
        value = json.loads(raw.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and JSONDecodeError both
        return LockStatus(UNREADABLE)
    if not isinstance(value, dict):
        return LockStatus(UNREADABLE)
    pid, host, started, op = (value.get(k) for k in ("pid", "hostname", "startedAt", "op"))
    # bool is an int to Python; a pid of 0 or below would make kill() probe a process group.
    if type(pid) is not int or pid <= 0:
        return LockStatus(UNREADABLE)
    if not (isinstance(host, str) and isinstance(started, str) and isinstance(op, str)):
        return LockStatus(UNREADABLE)
    return LockStatus(HELD, pid=pid, hostname=host, started_at=started, op=op)


def format_record(pid: int, hostname: str, started_at: str, op: str) -> bytes:
    """The compact JSON record, keys in pi-memory's order (JSON.stringify's output)."""
    import json

    record = {"pid": pid, "hostname": hostname, "startedAt": started_at, "op": op}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _read_state(path: Path) -> LockStatus:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return LockStatus(ABSENT)
    except OSError:
        # Cannot look inside (permissions, a directory in its place): nobody can
        # release it either, so it is reported, never taken over.
        return LockStatus(UNREADABLE)
    return parse_record(raw)


# -- liveness ----------------------------------------------------------------


def this_host() -> str:
    if sys.platform == "win32":
        import socket

        return socket.gethostname()
    return os.uname().nodename


def holder_alive(status: LockStatus) -> bool | None:
    """True or False for a holder on this host; None when it cannot be known."""
    if status.kind != HELD or status.pid is None or status.hostname != this_host():
        return None
    return pid_alive(status.pid)


def pid_alive(pid: int) -> bool:
    if sys.platform == "win32":
        return _pid_alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        # EPERM: the process exists but belongs to someone else. Anything
        # unexpected counts as alive too: a wrong "dead" would lose a lock.
        return True
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    # A killed process its parent has not reaped still answers kill(0), but it
    # will never release anything.
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[-1].split()
    except OSError:
        return False
    return bool(fields) and fields[0] == b"Z"


if sys.platform == "win32":

    def _pid_alive_windows(pid: int) -> bool:
        # os.kill(pid, 0) would *terminate* the process on Windows.
        import ctypes

        kernel32 = ctypes.windll.kernel32
        process_query_limited_information = 0x1000
        still_active = 259
        error_invalid_parameter = 87
        handle = kernel32.OpenProcess(process_query_limited_information, False, pid)
        if not handle:
            return bool(kernel32.GetLastError() != error_invalid_parameter)
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True
            return code.value == still_active
        finally:
            kernel32.CloseHandle(handle)


def is_abandoned(status: LockStatus) -> bool:
    """Nobody will ever release this lock: unreadable, or its holder here is gone."""
    if status.kind == UNREADABLE:
        return True
    return status.kind == HELD and holder_alive(status) is False


def confirmed_abandoned(directory: Path, status: LockStatus) -> bool:
    """:func:`is_abandoned` for ``status`` as read from ``directory``, confirmed by a second
    read: a holder that released the lock and exited after the first read looks dead too."""
    return is_abandoned(status) and (status.kind != HELD or read_lock_status(directory) == status)


# -- in-process gate -----------------------------------------------------------


class _Gate:
    __slots__ = ("file_depth", "lock")

    def __init__(self) -> None:
        self.lock = _thread.RLock()
        #: How deep the owning thread has nested StoreLock; the file is held while > 0.
        self.file_depth = 0


_GATES: dict[str, _Gate] = {}
_GATES_GUARD = _thread.allocate_lock()


def _reset_gates_after_fork() -> None:
    # A forked child inherits locks held by threads that do not exist in it.
    global _GATES_GUARD  # noqa: PLW0603
    _GATES.clear()
    _GATES_GUARD = _thread.allocate_lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_gates_after_fork)


def _gate_for(key: str) -> _Gate:
    with _GATES_GUARD:
        gate = _GATES.get(key)
        if gate is None:
            gate = _GATES[key] = _Gate()
        return gate


class ProcessLock:
    """The logical lock of one store directory within this process.

    Re-entrant for the thread that holds it, so a caller can hold it across
    several primitives while each primitive inside takes it again.
    """

    def __init__(self, directory: Path, timeout_ms: int = LOCK_TIMEOUT_MS) -> None:
        resolved = os.path.realpath(directory)
        self.key = os.path.join(resolved, INDEX_FILE)
        self.timeout_ms = timeout_ms
        self._gate = _gate_for(resolved)

    def acquire(self, *, blocking: bool = True) -> bool:
        """Wait up to the timeout (raising on expiry), or with ``blocking=False`` try once."""
        if not blocking:
            return self._gate.lock.acquire(blocking=False)
        if not self._gate.lock.acquire(timeout=max(self.timeout_ms, 0) / 1000):
            raise ProcessLockTimeoutError(self.key, self.timeout_ms)
        return True

    def release(self) -> None:
        self._gate.lock.release()

    def __enter__(self) -> ProcessLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


# -- the store lock ----------------------------------------------------------


class StoreLock:
    """Both levels around one physical write: ``with StoreLock(directory, "add"): ...``.

    Waits up to ``timeout_ms`` for a live holder; fails at once on an abandoned
    lock. ``acquire(blocking=False)`` tries once and returns False when a live
    holder has it (an abandoned lock still raises: it will not heal by itself).
    """

    def __init__(
        self,
        directory: Path,
        op: str,
        timeout_ms: int = LOCK_TIMEOUT_MS,
        *,
        poll_ms: int = DEFAULT_POLL_MS,
    ) -> None:
        self.directory = Path(directory)
        self.lock_path = lock_path(self.directory)
        self.op = op
        self.timeout_ms = timeout_ms
        self.poll_ms = poll_ms
        self._process = ProcessLock(self.directory, timeout_ms)

    def acquire(self, *, blocking: bool = True) -> bool:
        from pi_memory.fs.termination import end_by_exception, uninterrupted

        end_by_exception()  # SIGTERM and SIGHUP now unwind through release()
        if not self._process.acquire(blocking=blocking):
            return False
        gate = self._process._gate
        outermost = gate.file_depth == 0
        try:
            if outermost and not acquire_lock_file(
                self.lock_path, self.op, self.timeout_ms if blocking else None, self.poll_ms
            ):
                self._process.release()
                return False
            with uninterrupted():
                gate.file_depth += 1
            if blocking and outermost:
                _sweep(self.directory)
        except BaseException:
            # Told to end (or failed) before the caller could release: the file is
            # ours to remove, since no ``with`` block will.
            if outermost:
                gate.file_depth = 0
                release_lock_file(self.lock_path)
            else:
                gate.file_depth -= 1  # only the count's own block raises here
            self._process.release()
            raise
        return True

    def release(self) -> None:
        from pi_memory.fs.termination import uninterrupted

        gate = self._process._gate
        with uninterrupted():
            gate.file_depth -= 1
            try:
                if gate.file_depth == 0:
                    release_lock_file(self.lock_path)
            finally:
                self._process.release()

    def __enter__(self) -> StoreLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _sweep(directory: Path) -> None:
    """With the lock just taken, remove the temp files interrupted writes left behind.

    Listing a directory of 100,000 entry files costs ~45 ms, too much for every
    write: a directory that large is swept by ``rebuild`` instead.
    """
    from pi_memory.fs.leftovers import SWEEP_ON_WRITE_MAX_BYTES, sweep

    try:
        if os.stat(directory).st_size <= SWEEP_ON_WRITE_MAX_BYTES:
            sweep(directory, time.time())
    except OSError:
        pass


def acquire_lock_file(
    path: Path,
    op: str,
    timeout_ms: int | None,
    poll_ms: int = DEFAULT_POLL_MS,
    *,
    read_state: Callable[[Path], LockStatus] | None = None,
) -> bool:
    """Create the lock file for ``op``; ``timeout_ms=None`` tries once without waiting.

    A holder found dead is confirmed before the lock is called abandoned: the
    record is read again after the liveness check, since a holder that released
    the lock and exited between our read and that check looks exactly like
    one that died holding it. (``read_state`` is for the tests of that moment.)
    """
    read = _read_state if read_state is None else read_state
    record = format_record(os.getpid(), this_host(), iso_now(), op)
    deadline = time.monotonic() + (timeout_ms or 0) / 1000
    while True:
        state = _acquire_once(path, record, read)
        if state is None:
            return True
        holder = state if state.kind == HELD else None
        if is_abandoned(state):
            if state.kind == HELD and read(path) != state:
                continue  # released (or taken by someone else) meanwhile: try again
            raise MemoryLockedError(path, holder, op, abandoned=True)
        if timeout_ms is None:
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise MemoryLockedError(path, holder, op, abandoned=False)
        time.sleep(min(poll_ms / 1000, remaining))


def _acquire_once(
    path: Path, record: bytes, read: Callable[[Path], LockStatus]
) -> LockStatus | None:
    """None when the lock is ours; otherwise what stands in the way."""
    for _ in range(2):
        if create_lock_file(path, record):
            return None
        state = read(path)
        if state.kind != ABSENT:
            return state
        # Released between our create and our read: let O_EXCL pick the winner again.
    return LockStatus(_EMPTY)


def create_lock_file(
    path: Path,
    record: bytes,
    *,
    write: Callable[[int, bytes], int] = os.write,
    close: Callable[[int], None] = os.close,
) -> bool:
    """Create ``path`` exclusively and write ``record``; False if it already exists.

    A failed write or close leaves no usable holder, so the file is removed
    and the error raised: a lock pointing at this live process would otherwise
    block every later write of this very process until it exits.
    """
    from pi_memory.fs.termination import uninterrupted

    with uninterrupted():  # a file made is a file filled or removed, whatever signal comes
        return _create_lock_file(path, record, write, close)


def _create_lock_file(
    path: Path, record: bytes, write: Callable[[int, bytes], int], close: Callable[[int], None]
) -> bool:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        fd = fsretry.retry(os.open, path, flags, 0o644)
    except FileExistsError:
        return False
    fd_open = True
    try:
        written = 0
        while written < len(record):
            count = write(fd, record[written:])
            if count <= 0:
                raise OSError(errno.EIO, "lock record write made no progress", str(path))
            written += count
        # close() releases the descriptor even when it reports an error, so it
        # must not be closed again (the number may already belong to another file).
        fd_open = False
        close(fd)
    except BaseException:
        if fd_open:
            try:
                os.close(fd)
            except OSError:
                pass
        _unlink_quietly(path)
        raise
    return True


def release_lock_file(path: Path) -> None:
    """Remove the lock file if it is still this process's record; leave anyone else's."""
    from pi_memory.fs.termination import uninterrupted

    with uninterrupted():
        state = _read_state(path)
        if state.kind == HELD and state.pid == os.getpid() and state.hostname == this_host():
            try:
                fsretry.retry(os.unlink, path)
            except FileNotFoundError:
                pass


def _unlink_quietly(path: Path) -> None:
    try:
        fsretry.retry(os.unlink, path)
    except OSError:
        pass


# -- breaking ------------------------------------------------------------------


def break_lock(directory: Path, expected: LockStatus | None = None) -> None:
    """Remove ``<dir>/.lock`` by renaming it to a private name, then unlinking that.

    A plain unlink of the path could delete a fresh lock created a moment
    after the stale one was judged. The rename moves whatever is there now into
    a name only we know; if ``expected`` is given and the moved record is not
    it, the record is put back (without overwriting anything) and
    :class:`LockChangedError` is raised. Raises FileNotFoundError if no lock exists.
    """
    path = lock_path(directory)
    private = path.with_name(f"{LOCK_FILE}.{os.getpid()}-{os.urandom(4).hex()}.breaking")
    fsretry.retry(os.rename, path, private)
    if expected is not None:
        moved = _read_state(private)
        moved = LockStatus(UNREADABLE) if moved.kind == _EMPTY else moved
        if moved != expected:
            _put_back(private, path)
            raise LockChangedError(
                f"The memory lock at {path} changed while it was being removed; nothing was removed"
            )
    try:
        fsretry.retry(os.unlink, private)
    except OSError:
        # Say "not removed" truthfully: the lock goes back where it was.
        _put_back(private, path)
        raise


def _put_back(private: Path, path: Path) -> None:
    try:
        if sys.platform == "win32" or private.is_dir():
            # Never overwrites a file: Windows refuses, and POSIX will not put
            # a directory over a file.
            os.rename(private, path)
        else:
            os.link(private, path)  # fails if a new lock took the path meanwhile
            os.unlink(private)
    except FileExistsError:
        # A new lock holds the path; the moved record no longer guards anything.
        _unlink_quietly(private)
    except OSError:
        pass
