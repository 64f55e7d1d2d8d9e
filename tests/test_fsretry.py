from __future__ import annotations

import errno
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pi_memory.fs import fsretry, snapshot


class EmptiesAfter:
    """A directory that stays non-empty for the first ``n`` attempts to remove it.

    ``os.rmdir`` fails with a real ENOTEMPTY from the kernel until the waiting
    between attempts has cleared the directory out.
    """

    def __init__(self, directory: Path, n: int) -> None:
        self.directory = directory
        directory.mkdir()
        self.blocker = directory / "busy"
        self.blocker.write_text("x")
        self.n = n
        self.calls = 0
        self.sleeps: list[float] = []

    def remove(self) -> str:
        self.calls += 1
        os.rmdir(self.directory)
        return "removed"

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if len(self.sleeps) == self.n:
            self.blocker.unlink()


@pytest.mark.parametrize("failures", [1, 3, 6])
def test_transient_error_is_retried_until_it_passes(tmp_path: Path, failures: int) -> None:
    target = EmptiesAfter(tmp_path / "d", failures)
    assert fsretry.retry(target.remove, sleep=target.sleep) == "removed"
    assert target.calls == failures + 1
    assert target.sleeps == [d / 1000 for d in (20, 40, 80, 160, 300, 300)[:failures]]
    assert not target.directory.exists()


def test_persistent_transient_error_is_raised_after_seven_calls(tmp_path: Path) -> None:
    target = EmptiesAfter(tmp_path / "d", 99)
    with pytest.raises(OSError, match="not empty") as info:
        fsretry.retry(target.remove, sleep=target.sleep)
    assert info.value.errno == errno.ENOTEMPTY
    assert target.calls == 7
    assert target.sleeps == [0.02, 0.04, 0.08, 0.16, 0.3, 0.3]


def test_default_sleep_really_waits_the_ladder(tmp_path: Path) -> None:
    target = EmptiesAfter(tmp_path / "d", 99)
    started = time.monotonic()
    with pytest.raises(OSError, match="not empty"):
        fsretry.retry(target.remove)
    assert time.monotonic() - started >= 0.9
    assert target.calls == 7


def test_non_transient_error_is_raised_at_once(tmp_path: Path) -> None:
    calls: list[int] = []

    def remove_missing() -> None:
        calls.append(1)
        os.rmdir(tmp_path / "missing")

    with pytest.raises(FileNotFoundError):
        fsretry.retry(remove_missing, platform="win32", sleep=lambda _s: None)
    assert calls == [1]


def test_arguments_are_passed_through(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1")
    fsretry.retry(os.replace, tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "b").read_text() == "1"


@pytest.mark.skipif(sys.platform != "linux", reason="hard links to directories give EPERM on Linux")
@pytest.mark.parametrize(("platform", "calls"), [("linux", 1), ("darwin", 1), ("win32", 7)])
def test_permission_errors_are_transient_only_on_windows(
    tmp_path: Path, platform: str, calls: int
) -> None:
    made: list[int] = []

    def link_directory() -> None:
        made.append(1)
        os.link(tmp_path, tmp_path.parent / "linked")

    with pytest.raises(PermissionError):
        fsretry.retry(link_directory, platform=platform, sleep=lambda _s: None)
    assert len(made) == calls


def test_errors_that_are_not_os_errors_are_not_transient() -> None:
    assert not fsretry.is_transient(RuntimeError("boom"), "win32")
    assert not fsretry.is_transient(OSError("no errno"), "win32")
    assert fsretry.is_transient(OSError(errno.EBUSY, "busy"), "linux")


# -- conformance vectors -----------------------------------------------------------


class FailsWith:
    """Fails with a fresh ``OSError(code)`` on each of its first ``times`` calls, then copies."""

    def __init__(self, code: str, times: int = 1_000) -> None:
        self.code = code
        self.times = times
        self.raised: list[OSError] = []

    def __call__(self, source: Path, destination: Path) -> object:
        if len(self.raised) < self.times:
            number = getattr(errno, self.code)
            error = OSError(number, os.strerror(number))
            self.raised.append(error)
            raise error
        return shutil.copy2(source, destination)


def fs_retry_vector(given: dict[str, Any], expected: Any, tmp_path: Path) -> None:
    fn = given["fn"]
    if fn == "isTransientFsError":
        if "code" in given:
            number = getattr(errno, given["code"])
            error: BaseException = OSError(number, os.strerror(number))
            assert fsretry.is_transient_code(given["code"], given["platform"]) is expected
        else:  # an error described without a code ("Error('boom') without code")
            error = Exception(given["error"])
        assert fsretry.is_transient(error, given["platform"]) is expected
    elif fn == "withFsRetry":
        failing = FailsWith(given["always_fails_with"])
        sleeps: list[float] = []
        with pytest.raises(OSError) as info:  # noqa: PT011 -- the original error, whatever it is
            fsretry.retry(failing, "a", "b", platform=given["platform"], sleep=sleeps.append)
        assert len(failing.raised) == expected["calls"]
        assert info.value is failing.raised[-1]
        assert [round(s * 1000) for s in sleeps] == expected.get("delays_ms", [])
    elif fn == "pruneSnapshots rm options":
        assert (
            expected["maxRetries"],
            expected["retryDelay"],
        ) == (snapshot.RM_MAX_RETRIES, snapshot.RM_RETRY_DELAY_MS)
        # recursive + force: a nested tree goes, a missing one is no error.
        tree = tmp_path / "t"
        (tree / "a").mkdir(parents=True)
        (tree / "a" / "f.md").write_text("x")
        snapshot.remove_tree(tree)
        snapshot.remove_tree(tree)
        assert not tree.exists()
        # Its own retry: six more tries, 50 ms growing linearly, not the fsretry ladder.
        busy = EmptiesAfter(tmp_path / "busy", 99)
        with pytest.raises(OSError, match="not empty"):
            snapshot.remove_tree(busy.directory, remove=os.rmdir, sleep=busy.sleep)
        assert busy.sleeps == [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]
    elif fn == "createSnapshot":
        store = tmp_path / "store"
        store.mkdir()
        (store / "A.md").write_text("a")
        copy = FailsWith(given["cp_fails_once_with"], times=1)
        platform = given["platform"] or "linux"
        if not expected["succeeds"]:  # not transient here: a real refusal, the write aborted
            with pytest.raises(OSError) as refused:  # noqa: PT011 -- the original error
                snapshot.take_snapshot(
                    store, "write", [store / "A.md"], copy=copy, platform=platform
                )
            assert copy.raised == [refused.value]
            return
        point = snapshot.take_snapshot(
            store, "write", [store / "A.md"], copy=copy, platform=platform
        )
        assert (point / "A.md").read_text() == "a"
        assert len(copy.raised) == 1
    else:
        raise AssertionError(f"not an fs-retry behaviour: {fn}")
