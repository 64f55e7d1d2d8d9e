"""Adapters for the lock vectors (see tests/conformance.py)."""

from __future__ import annotations

import errno
import json
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest

from pi_memory.commands import unlock
from pi_memory.errors import LockError, PiMemoryError
from pi_memory.fs import lock
from pi_memory.fs.lock import MemoryLockedError, ProcessLockTimeoutError, StoreLock
from tests.lockholder import Holder
from tests.test_lock import dead_pid, thread_holding_process_lock

OUR_UNLOCK = "python -m pi_memory unlock"


def ours(template: str) -> str:
    """A pi-memory error template as pi_memory words it.

    Three deliberate differences: the person is pointed at our command instead
    of pi's ``/memory unlock``, the holder is named with its host, as the
    ``Lock:`` status line does, and a live holder's message names the directory
    and the lock's path too, as the design asks of every lock error. Everything
    else is pi-memory's text.
    """
    text = (
        template.replace("/memory unlock", OUR_UNLOCK)
        .replace("(pid {holder.pid}, started", "(pid {holder.pid} on {holder.hostname}, started")
        .replace(
            "— delete the file to clear it", f"— delete the file to clear it, or run {OUR_UNLOCK}"
        )
    )
    if text.startswith("Memory is locked by"):
        text += " — {lockPath.parent} is busy; its lock is {lockPath}"
    return text


def holder_ns(status: lock.LockStatus) -> SimpleNamespace:
    return SimpleNamespace(
        op=status.op, pid=status.pid, hostname=status.hostname, startedAt=status.started_at
    )


def write_lock(store: Path, raw: str | None = None, **fields: object) -> None:
    if raw is None:
        record = {
            "pid": os.getpid(),
            "hostname": lock.this_host(),
            "startedAt": "2026-10-01T00:00:00.000Z",
            "op": "dream",
        }
        record.update(fields)
        raw = json.dumps(record, separators=(",", ":"))
    (store / ".lock").write_text(raw, encoding="utf-8")


def camel_to_snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def failing_close(code: str = "EIO") -> Callable[[int], None]:
    """A ``close`` that closes, then fails with the error named ``code``."""
    number = getattr(errno, code)

    def close(fd: int) -> None:
        os.close(fd)
        raise OSError(number, os.strerror(number))

    return close


def holder_pid(given: object) -> int:
    """The pid a vector writes as ``<dead pid>``, ``<live>``, ``<process.pid>`` or a number."""
    if isinstance(given, int):
        return given
    return dead_pid() if "dead" in str(given) else os.getpid()


def in_thread(fn: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    result: list[object] = []

    def run() -> None:
        try:
            result.append(fn())
        except BaseException as error:
            result.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


# -- one function per vector --------------------------------------------------------


def v_path(store: Path, given: dict[str, Any], expected: Any) -> None:
    assert expected == "<memoryDir>/.lock"
    assert lock.lock_path(store) == store / ".lock"
    with StoreLock(store, "add"):
        assert os.listdir(store) == [".lock"]


def v_op_names(store: Path, given: dict[str, Any], expected: Any) -> None:
    assert {camel_to_snake(k): v for k, v in expected.items()} == lock.STORE_OPS


def v_close_failure(store: Path, given: dict[str, Any], expected: Any) -> None:
    record = lock.format_record(os.getpid(), lock.this_host(), "2026-10-01T00:00:00.000Z", "add")
    with pytest.raises(OSError) as info:  # noqa: PT011 -- the original error, whatever it is
        lock.create_lock_file(store / ".lock", record, close=failing_close(given["injected_error"]))
    assert errno.errorcode.get(info.value.errno or 0) == expected["throws_original_code"]
    assert (store / ".lock").exists() is expected["lock_file_left"]


def v_read_status(store: Path, given: dict[str, Any], expected: Any) -> None:
    if "lock_file_raw" in given:
        write_lock(store, given["lock_file_raw"])
    elif given["lock_file"] is not None:
        # The vector shows the fields that matter; the rest of the record is filled in.
        pid = holder_pid(given["lock_file"].get("pid", "<dead pid>"))
        write_lock(store, pid=pid, op=given["lock_file"]["op"])
    status = lock.read_lock_status(store)
    assert status.kind == expected["kind"]
    if status.kind == "held":
        assert status.op == given["lock_file"]["op"]
        # Reported as held whether its holder lives or not: status never checks liveness.
        assert lock.holder_alive(status) is (status.pid == os.getpid())


def v_no_renewal(store: Path, given: dict[str, Any], expected: Any) -> None:
    with StoreLock(store, "add"):
        before = (store / ".lock").read_bytes(), os.stat(store / ".lock").st_mtime_ns
        time.sleep(0.03)
        after = (store / ".lock").read_bytes(), os.stat(store / ".lock").st_mtime_ns
    assert (before == after) is expected["record_unchanged"]


def v_zero_byte_waits(store: Path, given: dict[str, Any], expected: Any) -> None:
    write_lock(store, given["lock_file_raw"])
    started = time.monotonic()
    timeout, poll = given.get("timeoutMs", 150), given.get("pollMs", 20)
    with pytest.raises(MemoryLockedError) as info:
        StoreLock(store, "add", timeout_ms=timeout, poll_ms=poll).acquire()
    elapsed_ms = (time.monotonic() - started) * 1000
    assert type(info.value).__name__ == expected["throws"]
    assert info.value.abandoned is expected["abandoned"]
    assert elapsed_ms >= given.get("timeoutMs", 150) * 0.9
    message = ours(expected["message"]).replace("<lockPath>", str(store / ".lock"))
    assert str(info.value) == message
    assert "delete the file" in message
    assert (store / ".lock").read_bytes() == b""


def v_garbage(store: Path, given: dict[str, Any], expected: Any) -> None:
    write_lock(store, given["lock_file_raw"])
    started = time.monotonic()
    with pytest.raises(MemoryLockedError) as info:
        StoreLock(store, "add", timeout_ms=120_000).acquire()
    assert time.monotonic() - started < 60  # not waited out, however loaded the machine
    assert type(info.value).__name__ == expected["throws"]
    assert info.value.abandoned is True
    assert "abandoned" in str(info.value)
    assert str(info.value) == ours(expected["message"]).replace("<lockPath>", str(store / ".lock"))


def v_other_host(store: Path, given: dict[str, Any], expected: Any) -> None:
    write_lock(store, **given["existing"])
    before = (store / ".lock").read_bytes()
    with pytest.raises(MemoryLockedError) as info:
        StoreLock(store, "add", timeout_ms=given.get("timeoutMs", 0)).acquire()
    assert type(info.value).__name__ == expected["throws"]
    assert info.value.abandoned is expected["abandoned"]
    assert ((store / ".lock").read_bytes() == before) is expected["lock_file_left_in_place"]


def v_try_live(store: Path, given: dict[str, Any], expected: Any) -> None:
    if "dead" in str(given["existing"].get("pid")):
        write_lock(store, pid=holder_pid("<dead pid>"))  # never taken over: still held
        got = StoreLock(store, "add", timeout_ms=120_000).acquire(blocking=False)
        assert (None if got is False else got) is expected["result"]
        return
    holder = Holder(store)
    try:
        started = time.monotonic()
        got = StoreLock(store, "add", timeout_ms=120_000).acquire(blocking=False)
        assert time.monotonic() - started < 60  # not waited out
        assert (None if got is False else got) is expected["result"]
    finally:
        holder.release()


def v_error_name(store: Path, given: dict[str, Any], expected: Any) -> None:
    assert MemoryLockedError.__name__ == expected["name"]
    assert issubclass(MemoryLockedError, LockError)
    assert issubclass(MemoryLockedError, PiMemoryError)
    write_lock(store, pid=dead_pid())
    with pytest.raises(MemoryLockedError) as info:
        StoreLock(store, "replace").acquire()
    error = info.value
    assert [f.split()[0] for f in expected["fields"]] == ["lockPath", "holder", "op", "abandoned"]
    assert error.lock_path == store / ".lock"
    assert isinstance(error.holder, lock.LockStatus)
    assert error.op == "replace"
    assert error.abandoned is True


def v_message_templates(store: Path, given: dict[str, Any], expected: Any) -> None:
    path = store / ".lock"
    holder = lock.LockStatus("held", 4242, "box", "2026-10-01T00:00:00.000Z", "dream")
    values = {"lockPath": path, "holder": holder_ns(holder)}
    cases = {
        "abandoned_with_holder": lock.locked_message(path, holder, abandoned=True),
        "abandoned_unreadable": lock.locked_message(path, None, abandoned=True),
        "locked_by_holder": lock.locked_message(path, holder, abandoned=False),
        "still_being_written": lock.locked_message(path, None, abandoned=False),
    }
    assert set(cases) == set(expected)
    for key, message in cases.items():
        assert message == ours(expected[key]).format(**values), key


def v_status_lines(store: Path, given: dict[str, Any], expected: Any) -> None:
    assert lock.status_line(lock.read_lock_status(store)) == expected["absent"]
    write_lock(store, "")
    assert lock.status_line(lock.read_lock_status(store)) == expected["unreadable_or_empty"]
    write_lock(store, "garbage")
    assert lock.status_line(lock.read_lock_status(store)) == expected["unreadable_or_empty"]
    write_lock(store, pid=77, hostname="box", op="dream")
    status = lock.read_lock_status(store)
    assert lock.status_line(status) == expected["held"].format(
        op="dream", pid=77, hostname="box", startedAt="2026-10-01T00:00:00.000Z"
    )


def v_unlock_messages(store: Path, given: dict[str, Any], expected: Any) -> None:
    status = lock.LockStatus("held", 77, "box", "2026-10-01T00:00:00.000Z", "dream")
    assert expected["confirm_title"] == unlock.CONFIRM_TITLE
    assert unlock.CONFIRM_HELD.format(holder=lock.describe_holder(status)) == expected[
        "confirm_held"
    ].format(op="dream", pid=77, hostname="box", startedAt="2026-10-01T00:00:00.000Z")
    assert expected["confirm_other"] == unlock.CONFIRM_OTHER
    assert unlock.NO_LOCK == expected["no_lock"] == expected["vanished_during_confirm"]
    assert expected["removed"] == unlock.REMOVED
    assert expected["failure"] == unlock.FAILURE
    assert expected["resolve_failure"] == unlock.RESOLVE_FAILURE


def v_process_lock_timeout(store: Path, given: dict[str, Any], expected: Any) -> None:
    # The in-process lock is keyed by the store's MEMORY.md (``<memoryDir>/MEMORY.md``).
    key = os.path.join(os.path.realpath(store), "MEMORY.md")
    assert given["key"].replace("<memoryDir>", os.path.realpath(store)) == key
    if not given["held"]:
        taken = StoreLock(store, "add", timeout_ms=given["timeoutMs"])
        assert taken.acquire() is not False and "throws" not in expected
        taken.release()
        return
    with thread_holding_process_lock(store), pytest.raises(ProcessLockTimeoutError) as info:
        StoreLock(store, "add", timeout_ms=given["timeoutMs"]).acquire()
    assert type(info.value).__name__ == expected["throws"]
    assert str(info.value) == expected["message"].replace(given["key"], key)


def v_no_stall(store: Path, given: dict[str, Any], expected: Any) -> None:
    def impatient() -> str:
        with StoreLock(store, "add", timeout_ms=20):
            return "impatient"

    def later() -> str:
        with StoreLock(store, "add", timeout_ms=5000):
            return "after"

    with thread_holding_process_lock(store) as release:
        waiter, waiter_result = in_thread(impatient)
        waiter.join()
        queued, queued_result = in_thread(later)
        time.sleep(0.05)
        release()
    queued.join()
    assert isinstance(waiter_result[0], ProcessLockTimeoutError)
    assert queued_result == [expected["later_caller_result"]]


def v_unlock_flow(store: Path, capsys: pytest.CaptureFixture[str], expected: Any) -> None:
    # No lock.
    assert unlock.remove(store, yes=False, force=False, answer=None) == 0
    assert capsys.readouterr().out == expected["no_lock"] + "\n"
    # An unreadable lock, confirmed: the generic question, then removed.
    write_lock(store, "not json")
    asked: list[str] = []

    def agree(question: str) -> str:
        asked.append(question)
        return "y"

    assert unlock.remove(store, yes=False, force=False, answer=agree) == 0
    assert asked == [f"{expected['confirm_title']}: {expected['confirm_other']} [y/N] "]
    assert capsys.readouterr().out.splitlines()[-1] == expected["removed"]
    # A dead holder; the lock vanishes while the person reads the question.
    pid = dead_pid()
    write_lock(store, pid=pid)

    def vanish(question: str) -> str:
        asked.append(question)
        (store / ".lock").unlink()
        return "yes"

    assert unlock.remove(store, yes=False, force=False, answer=vanish) == 0
    assert (
        expected["confirm_held"].format(
            op="dream", pid=pid, hostname=lock.this_host(), startedAt="2026-10-01T00:00:00.000Z"
        )
        in asked[-1]
    )
    assert capsys.readouterr().out.splitlines()[-1] == expected["vanished_during_confirm"]
    # Removal that fails: a directory squats on the lock path.
    (store / ".lock").mkdir()
    (store / ".lock" / "x").write_text("x")
    assert unlock.remove(store, yes=True, force=False, answer=None) == 1
    err = capsys.readouterr().err
    assert err.startswith(expected["failure"].format(message=""))
    assert len(err.splitlines()) == 1


def with_lock(store: Path, given: dict[str, Any], expected: Any) -> None:
    """``withLock``: what the case sets up decides what it shows."""
    if "body" in given:
        v_no_renewal(store, given, expected)
    elif "existing" in given:
        v_other_host(store, given, expected)
    elif given.get("lock_file_raw") == "":
        v_zero_byte_waits(store, given, expected)
    else:
        v_garbage(store, given, expected)


def process_lock(store: Path, given: dict[str, Any], expected: Any) -> None:
    if "scenario" in given:
        v_no_stall(store, given, expected)
    else:
        v_process_lock_timeout(store, given, expected)


#: By ``fn``, or by the ``what`` of a described behaviour.
ADAPTERS: dict[str, Callable[[Path, dict[str, Any], Any], None]] = {
    "readLockStatus": v_read_status,
    "withLock": with_lock,
    "tryWithLock": v_try_live,
    "withProcessLock": process_lock,
    "what: lock file location": v_path,
    "what: op values written by the store": v_op_names,
    "what: close fails after record written": v_close_failure,
    "what: error class": v_error_name,
    "what: all MemoryLockedError messages": v_message_templates,
    "what: /memory Lock: line": v_status_lines,
    "what: /memory unlock": v_unlock_messages,
}
