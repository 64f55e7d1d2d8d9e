from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pi_memory.commands import unlock
from pi_memory.fs import lock
from pi_memory.fs.lock import (
    LockChangedError,
    LockStatus,
    MemoryLockedError,
    ProcessLock,
    ProcessLockTimeoutError,
    StoreLock,
)
from tests.conftest import REPO
from tests.lockholder import Holder

# Increments the counter file argv[1] argv[2] times, each under the lock.
INCREMENT = """
import sys
from pathlib import Path
from pi_memory.fs.atomic import atomic_write_text
from pi_memory.fs.lock import StoreLock
directory = Path(sys.argv[1])
counter = directory / "counter"
for _ in range(int(sys.argv[2])):
    with StoreLock(directory, "add", timeout_ms=60000, poll_ms=2):
        value = int(counter.read_text())
        atomic_write_text(counter, str(value + 1))
"""


@pytest.fixture
def store(tmp_path: Path) -> Path:
    directory = tmp_path / "store"
    directory.mkdir()
    return directory


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def write_record(directory: Path, **fields: object) -> bytes:
    record = {"pid": 1, "hostname": lock.this_host(), "startedAt": "2026-10-01T00:00:00.000Z"}
    record.update({"op": "dream"}, **fields)
    raw = json.dumps(record, separators=(",", ":")).encode()
    (directory / ".lock").write_bytes(raw)
    return raw


# -- the record ----------------------------------------------------------------


def test_record_is_compact_json_in_the_seeds_key_order(store: Path) -> None:
    with StoreLock(store, "add"):
        raw = (store / ".lock").read_bytes()
    text = raw.decode()
    match = re.fullmatch(
        r'\{"pid":(\d+),"hostname":"([^"]*)","startedAt":"([^"]*)","op":"add"\}', text
    )
    assert match, text
    assert int(match.group(1)) == os.getpid()
    assert match.group(2) == lock.this_host()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", match.group(3))
    assert not (store / ".lock").exists()


def test_status_reports_the_holder_and_describes_it(store: Path) -> None:
    assert lock.read_lock_status(store) == LockStatus("absent")
    assert lock.status_line(lock.read_lock_status(store)) == "Lock: free"
    with StoreLock(store, "rebuild"):
        status = lock.read_lock_status(store)
        assert status.kind == "held"
        assert status.pid == os.getpid()
        assert status.op == "rebuild"
        assert lock.describe_status(status) == (
            f"held by rebuild (pid {os.getpid()} on {lock.this_host()},"
            f" started {status.started_at})"
        )
        assert lock.holder_alive(status) is True


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b'{"pid":"x"}',
        b"[1]",
        b'{"pid":true,"hostname":"h","startedAt":"t","op":"add"}',
        b'{"pid":0,"hostname":"h","startedAt":"t","op":"add"}',
        b"\xff\xfe",
    ],
)
def test_anything_but_a_full_record_is_unreadable(store: Path, raw: bytes) -> None:
    (store / ".lock").write_bytes(raw)
    status = lock.read_lock_status(store)
    assert status == LockStatus("unreadable")
    assert lock.describe_status(status) == "unreadable — run /memory unlock"
    assert lock.holder_alive(status) is None


def test_store_ops_match_the_store_primitives() -> None:
    assert lock.STORE_OPS == {
        "add_entry": "add",
        "replace_entry": "replace",
        "rename_entry": "replace",
        "remove_entry": "remove",
        "rebuild_index": "rebuild",
    }


# -- real processes racing -----------------------------------------------------


def test_racing_processes_lose_no_increment(store: Path) -> None:
    (store / "counter").write_text("0")
    workers, rounds = 6, 40
    procs = [
        subprocess.Popen([sys.executable, "-c", INCREMENT, str(store), str(rounds)], cwd=REPO)
        for _ in range(workers)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * workers
    assert (store / "counter").read_text() == str(workers * rounds)
    assert sorted(os.listdir(store)) == ["counter"]


def test_a_holder_that_releases_and_exits_as_we_look_is_waited_for_not_called_abandoned(
    store: Path,
) -> None:
    # The moment the racing processes above hit about once in ten runs: we read the
    # record of a live holder, it releases the lock and exits, and only then do we
    # ask whether its pid is alive. It is not, yet the lock was never abandoned.
    holder = Holder(store)
    reads: list[LockStatus] = []

    def read_as_the_holder_leaves(path: Path) -> LockStatus:
        state = lock._read_state(path)
        if not reads:
            holder.release()  # releases the lock, exits, is reaped: its pid is gone
        reads.append(state)
        return state

    assert lock.acquire_lock_file(
        store / ".lock", "add", 5000, read_state=read_as_the_holder_leaves
    )
    assert reads[0].pid == holder.pid
    assert json.loads((store / ".lock").read_bytes())["pid"] == os.getpid()
    lock.release_lock_file(store / ".lock")


def test_a_holder_that_died_holding_the_lock_is_still_abandoned_after_the_second_look(
    store: Path,
) -> None:
    raw = write_record(store, pid=dead_pid(), op="add")
    looks: list[LockStatus] = []

    def read(path: Path) -> LockStatus:
        looks.append(lock._read_state(path))
        return looks[-1]

    with pytest.raises(MemoryLockedError, match="is abandoned by add"):
        lock.acquire_lock_file(store / ".lock", "add", 5000, read_state=read)
    assert len(looks) == 2 and looks[0] == looks[1]
    assert (store / ".lock").read_bytes() == raw


def test_show_doctor_and_the_hooks_call_a_lock_abandoned_only_once_confirmed(
    store: Path,
) -> None:
    write_record(store, pid=dead_pid(), op="add")
    seen = lock.read_lock_status(store)
    assert lock.confirmed_abandoned(store, seen)  # still there, holder gone
    (store / ".lock").unlink()  # the holder had released before it exited
    assert lock.is_abandoned(seen)
    assert not lock.confirmed_abandoned(store, seen)
    write_record(store, pid=os.getpid(), op="add")  # someone else took it meanwhile
    assert not lock.confirmed_abandoned(store, seen)
    (store / ".lock").write_bytes(b"not json")
    assert lock.confirmed_abandoned(store, lock.read_lock_status(store))


def test_racing_threads_and_processes_lose_no_increment(store: Path) -> None:
    (store / "counter").write_text("0")
    proc = subprocess.Popen([sys.executable, "-c", INCREMENT, str(store), "60"], cwd=REPO)
    errors: list[BaseException] = []

    def bump() -> None:
        try:
            for _ in range(30):
                with StoreLock(store, "add", timeout_ms=60000, poll_ms=2):
                    value = int((store / "counter").read_text())
                    (store / "counter").write_text(str(value + 1))
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert proc.wait(timeout=120) == 0
    assert errors == []
    assert (store / "counter").read_text() == str(60 + 4 * 30)


def test_killed_holder_leaves_an_abandoned_lock_that_unlock_clears(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = Holder(store, "dream")
    holder.kill()
    status = lock.read_lock_status(store)
    assert status.kind == "held"
    assert status.pid == holder.pid
    assert lock.holder_alive(status) is False

    started = time.monotonic()
    with pytest.raises(MemoryLockedError) as info:
        StoreLock(store, "add", timeout_ms=120_000).acquire()
    # Far below the timeout, whatever the machine's load: it was not waited out.
    assert time.monotonic() - started < 60, "an abandoned lock must fail at once"
    error = info.value
    assert error.abandoned is True
    assert error.holder == status
    assert error.op == "add"
    message = str(error)
    assert f"pid {holder.pid}" in message
    assert str(store / ".lock") in message
    assert "python -m pi_memory unlock" in message
    assert "\n" not in message
    assert (store / ".lock").exists(), "an abandoned lock is reported, never removed"

    assert unlock.remove(store, yes=True, force=False, answer=None) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [lock.status_line(status), "Memory lock removed."]
    assert sorted(os.listdir(store)) == []
    with StoreLock(store, "add"):
        pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc zombie state")
def test_killed_but_unreaped_holder_is_still_dead(store: Path) -> None:
    holder = Holder(store, "add")
    holder.kill(reap=False)
    try:
        deadline = time.monotonic() + 5
        while lock.holder_alive(lock.read_lock_status(store)) and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(MemoryLockedError) as info:
            StoreLock(store, "add", timeout_ms=2000).acquire()
        assert info.value.abandoned is True
    finally:
        holder.close()


def test_live_holder_makes_a_writer_wait_then_time_out(store: Path) -> None:
    holder = Holder(store, "dream")
    try:
        started = time.monotonic()
        with pytest.raises(MemoryLockedError) as info:
            StoreLock(store, "add", timeout_ms=300, poll_ms=20).acquire()
        assert time.monotonic() - started >= 0.3
        status = lock.read_lock_status(store)
        assert info.value.abandoned is False
        # While the holder lives, the message still says where: the directory and the lock.
        assert str(info.value) == (
            f"Memory is locked by dream (pid {holder.pid} on {lock.this_host()},"
            f" started {status.started_at}) — {store} is busy; its lock is {store / '.lock'}"
        )
        assert StoreLock(store, "add").acquire(blocking=False) is False
    finally:
        holder.release()
    with StoreLock(store, "add", timeout_ms=300):
        pass


def test_writer_gets_the_lock_once_the_live_holder_releases(store: Path) -> None:
    holder = Holder(store, "dream")
    releaser = threading.Timer(0.2, holder.release)
    releaser.start()
    started = time.monotonic()
    try:
        with StoreLock(store, "add", timeout_ms=5000, poll_ms=10):
            assert lock.read_lock_status(store).op == "add"
    finally:
        releaser.join()
    assert time.monotonic() - started >= 0.15


def test_unlock_refuses_a_live_holder_without_force(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = Holder(store, "dream")
    try:
        before = (store / ".lock").read_bytes()
        assert unlock.remove(store, yes=True, force=False, answer=None) == 1
        captured = capsys.readouterr()
        assert len(captured.err.splitlines()) == 1
        assert f"pid {holder.pid}" in captured.err
        assert "--force" in captured.err
        assert (store / ".lock").read_bytes() == before

        assert unlock.remove(store, yes=True, force=True, answer=None) == 0
        assert not (store / ".lock").exists()
    finally:
        holder.release()
    # The holder found someone else's (no) record on release and removed nothing.
    assert not (store / ".lock").exists()


# -- other hosts, empty and unreadable records ---------------------------------


@pytest.mark.parametrize("pid_kind", ["dead", "one"])
def test_holder_on_another_host_is_never_judged_dead(store: Path, pid_kind: str) -> None:
    pid = dead_pid() if pid_kind == "dead" else 1
    raw = write_record(store, hostname="some-other-host", pid=pid)
    status = lock.read_lock_status(store)
    assert lock.holder_alive(status) is None
    assert lock.is_abandoned(status) is False
    started = time.monotonic()
    with pytest.raises(MemoryLockedError) as info:
        StoreLock(store, "add", timeout_ms=200, poll_ms=20).acquire()
    assert time.monotonic() - started >= 0.2
    assert info.value.abandoned is False
    assert "on some-other-host" in str(info.value)
    assert (store / ".lock").read_bytes() == raw


def test_dead_holder_on_this_host_is_abandoned(store: Path) -> None:
    pid = dead_pid()
    write_record(store, pid=pid)
    with pytest.raises(MemoryLockedError) as info:
        StoreLock(store, "add", timeout_ms=0).acquire(blocking=False)
    assert info.value.abandoned is True
    assert str(info.value) == (
        f"Memory lock at {store / '.lock'} is abandoned by dream (pid {pid} on"
        f" {lock.this_host()}, started 2026-10-01T00:00:00.000Z) — delete the file to clear it,"
        " or run python -m pi_memory unlock"
    )


def test_empty_lock_file_is_waited_for_not_abandoned(store: Path) -> None:
    (store / ".lock").write_bytes(b"")
    # A holder between create and write finishes its record; the waiter then waits on it.
    started = time.monotonic()
    with pytest.raises(MemoryLockedError) as info:
        StoreLock(store, "add", timeout_ms=150, poll_ms=20).acquire()
    assert time.monotonic() - started >= 0.14
    assert info.value.abandoned is False
    assert info.value.holder is None
    assert StoreLock(store, "add").acquire(blocking=False) is False


# -- failures while creating the lock ------------------------------------------


def test_close_failure_removes_the_lock_and_raises_the_original_error(store: Path) -> None:
    def failing_close(fd: int) -> None:
        os.close(fd)
        raise OSError(errno.EIO, "close reported a deferred write error")

    with pytest.raises(OSError, match="deferred") as info:
        lock.create_lock_file(store / ".lock", b"{}", close=failing_close)
    assert info.value.errno == errno.EIO
    assert not (store / ".lock").exists()


def test_write_failure_removes_the_lock_and_raises(store: Path) -> None:
    def failing_write(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space") as info:
        lock.create_lock_file(store / ".lock", b"{}", write=failing_write)
    assert info.value.errno == errno.ENOSPC
    assert not (store / ".lock").exists()
    with StoreLock(store, "add"):
        pass


def test_short_writes_are_completed(store: Path) -> None:
    def one_byte_write(fd: int, data: bytes) -> int:
        return os.write(fd, data[:1])

    assert lock.create_lock_file(store / ".lock", b'{"x":1}', write=one_byte_write)
    assert (store / ".lock").read_bytes() == b'{"x":1}'


def test_missing_directory_is_an_error_not_a_hang(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        StoreLock(tmp_path / "missing", "add").acquire()


# -- release and break -----------------------------------------------------------


def test_release_leaves_a_record_that_is_not_ours(store: Path) -> None:
    held = StoreLock(store, "add")
    held.acquire()
    os.unlink(store / ".lock")
    raw = write_record(store, hostname="some-other-host")
    held.release()
    assert (store / ".lock").read_bytes() == raw


def test_break_lock_removes_the_file_and_nothing_else(store: Path) -> None:
    write_record(store, pid=dead_pid())
    lock.break_lock(store, expected=lock.read_lock_status(store))
    assert os.listdir(store) == []
    with pytest.raises(FileNotFoundError):
        lock.break_lock(store)


def test_break_lock_puts_back_a_lock_that_replaced_the_one_judged(store: Path) -> None:
    write_record(store, pid=dead_pid())
    judged = lock.read_lock_status(store)
    os.unlink(store / ".lock")
    fresh = write_record(store, pid=os.getpid(), op="add")
    with pytest.raises(LockChangedError, match="nothing was removed"):
        lock.break_lock(store, expected=judged)
    assert os.listdir(store) == [".lock"]
    assert (store / ".lock").read_bytes() == fresh


# -- the in-process level --------------------------------------------------------


@contextlib.contextmanager
def thread_holding_process_lock(store: Path) -> Iterator[Callable[[], None]]:
    """Another thread of this process holds ``store``'s in-process lock until released."""
    entered, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with ProcessLock(store):
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    entered.wait(10)

    def release() -> None:
        leave.set()
        thread.join()

    try:
        yield release
    finally:
        release()


def test_thread_waits_for_the_process_lock_then_times_out(store: Path) -> None:
    with thread_holding_process_lock(store):
        with pytest.raises(ProcessLockTimeoutError) as info:
            StoreLock(store, "add", timeout_ms=20).acquire()
        assert str(info.value) == (
            f"Memory operations for {os.path.realpath(store)}{os.sep}MEMORY.md"
            " are already running in this process (waited 20ms)"
        )
        assert StoreLock(store, "add").acquire(blocking=False) is False
        assert not (store / ".lock").exists()
    with StoreLock(store, "add", timeout_ms=20):
        pass


def test_a_round_holds_the_process_lock_and_its_writes_reenter(store: Path) -> None:
    with ProcessLock(store):
        for op in ("replace", "remove"):
            with StoreLock(store, op):
                assert lock.read_lock_status(store).op == op
            assert not (store / ".lock").exists()


def test_nested_store_locks_hold_the_file_once(store: Path) -> None:
    with StoreLock(store, "add"):
        with StoreLock(store, "replace"):
            assert lock.read_lock_status(store).op == "add"
        assert (store / ".lock").exists()
    assert not (store / ".lock").exists()


def test_failed_acquire_releases_the_process_lock(store: Path) -> None:
    write_record(store, pid=dead_pid())
    with pytest.raises(MemoryLockedError):
        StoreLock(store, "add").acquire()
    result: list[bool] = []

    def take_and_leave() -> None:
        gate = ProcessLock(store, timeout_ms=0)
        result.append(gate.acquire(blocking=False))
        gate.release()

    thread = threading.Thread(target=take_and_leave)
    thread.start()
    thread.join()
    assert result == [True]


# -- unlock ------------------------------------------------------------------------


def test_unlock_without_a_terminal_or_yes_refuses_in_one_line(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = write_record(store, pid=dead_pid())
    assert unlock.remove(store, yes=False, force=False, answer=None) == 1
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert "--yes" in captured.err
    assert (store / ".lock").read_bytes() == raw


@pytest.mark.parametrize("reply", ["", "n", "no", "N", "maybe"])
def test_unlock_declined_keeps_the_lock(
    store: Path, capsys: pytest.CaptureFixture[str], reply: str
) -> None:
    raw = write_record(store, pid=dead_pid())
    assert unlock.remove(store, yes=False, force=False, answer=lambda _q: reply) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "Memory lock left in place."
    assert (store / ".lock").read_bytes() == raw


@pytest.mark.parametrize("reply", ["y", "Y", "yes", " YES \n"])
def test_unlock_confirmed_removes_a_foreign_hosts_lock(
    store: Path, capsys: pytest.CaptureFixture[str], reply: str
) -> None:
    write_record(store, hostname="some-other-host")
    asked: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return reply

    assert unlock.remove(store, yes=False, force=False, answer=ask) == 0
    assert asked == [
        "Memory lock: Remove the memory lock file? It is held by dream (pid 1 on some-other-host,"
        " started 2026-10-01T00:00:00.000Z). Only do this if no memory operation is running."
        " [y/N] "
    ]
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "Lock: held by dream (pid 1 on some-other-host, started 2026-10-01T00:00:00.000Z)",
        "Memory lock removed.",
    ]
    assert os.listdir(store) == []


def test_unlock_that_cannot_remove_leaves_the_lock_in_place(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A directory squatting on the lock path cannot be unlinked.
    (store / ".lock").mkdir()
    (store / ".lock" / "x").write_text("x")
    assert unlock.remove(store, yes=True, force=False, answer=None) == 1
    err = capsys.readouterr().err
    assert err.startswith("Failed to remove memory lock: ")
    assert err.count("\n") == 1
    assert (store / ".lock" / "x").read_text() == "x"
