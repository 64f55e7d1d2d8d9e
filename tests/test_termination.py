"""SIGTERM and SIGHUP end a writer the way ^C does: its lock is released on the way out.

Real processes and real signals: a host sends SIGTERM to a hook past its time
and to an MCP server whose client quits, a closing terminal sends SIGHUP.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.lockholder import HOLD
from tests.mcpclient import McpClient

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

SIGNALS = [signal.SIGTERM, signal.SIGHUP] if os.name == "posix" else []


@pytest.fixture(autouse=True)
def hangup_as_from_a_terminal() -> Iterator[None]:
    """The processes these tests start have SIGHUP's default action, as one started from a
    terminal has, even when this run ignores it (under ``nohup``, as CI runners may run):
    an ignored SIGHUP is inherited, and a process that ignores it is right to keep it
    (its own case below)."""
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, before)


def holder(directory: Path, prelude: str = "") -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-c", prelude + HOLD, str(directory), "add"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"held\n"
    return proc


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_holder_told_to_end_releases_the_lock(tmp_path: Path, signum: int) -> None:
    proc = holder(tmp_path)
    assert (tmp_path / ".lock").exists()
    proc.send_signal(signum)
    proc.communicate(timeout=30)
    assert proc.returncode != 0
    assert not (tmp_path / ".lock").exists()


def test_a_nohup_holder_keeps_ignoring_sighup(tmp_path: Path) -> None:
    prelude = "import signal\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
    proc = holder(tmp_path, prelude)
    proc.send_signal(signal.SIGHUP)
    time.sleep(0.2)
    assert proc.poll() is None and (tmp_path / ".lock").exists()
    out, _ = proc.communicate(b"", timeout=30)
    assert out == b"released\n" and not (tmp_path / ".lock").exists()


# A signal that lands while a finaliser runs (an object's __del__, a weakref callback)
# raises there, where Python prints "Exception ignored" with a traceback and goes on.
IN_FINALISER = """
import sys, time
from pathlib import Path
from pi_memory.fs.lock import StoreLock
from pi_memory.fs.termination import Terminated

class Slow:
    def __del__(self):
        print("finalising", flush=True)
        end = time.monotonic() + 30
        while time.monotonic() < end:
            pass

try:
    with StoreLock(Path(sys.argv[1]), "add"):
        slow = Slow()
        del slow
        print("finaliser done", flush=True)
        time.sleep(30)
except Terminated as ended:
    print("ended", flush=True)
    sys.exit(ended.exit_code)
"""


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_during_a_finaliser_still_ends_the_run_without_a_traceback(
    tmp_path: Path, signum: int
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", IN_FINALISER, str(tmp_path)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"finalising\n"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err and b"Exception ignored" not in err, err
    # The signal is raised a moment after the finaliser returns: before, inside or after
    # the next print, which it may cut between its text and its newline.
    assert out.endswith(b"ended\n"), out
    assert b"finaliser done\n".startswith(out[: -len(b"ended\n")]), out
    assert proc.returncode == 128 + signum
    assert not (tmp_path / ".lock").exists()


def big_store(project: Path, count: int) -> Path:
    """A categories project layer of ``count`` memories, so that a write takes a while."""
    from pi_memory.entry import Entry
    from pi_memory.layouts.categories.format import format_entry

    layer = project / ".pi/agent/memory-auto"
    layer.mkdir(parents=True)
    rows = [
        format_entry(
            Entry(
                id=f"20260101-{i:04x}",
                time="2026-01-01 10:00:00",
                project="p",
                src="user",
                keyword=f"topic {i % 150}",
                body=f"Fact number {i} about component {i % 97} and its setting {i * 7}.",
                file="CONVENTIONS.md",
            )
        )
        for i in range(count)
    ]
    (layer / "CONVENTIONS.md").write_text("\n".join(rows), "utf-8")
    return layer


def signal_when_locked(proc: subprocess.Popen[bytes], lock: Path, signum: int) -> bool:
    """Send ``signum`` the moment ``lock`` appears; False when the process ended first."""
    while proc.poll() is None:
        if lock.exists():
            proc.send_signal(signum)
            return True
        time.sleep(0.0005)
    return False


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_cli_write_told_to_end_leaves_no_lock(
    hermetic_home: Path, repo: Path, signum: int
) -> None:
    layer = big_store(repo, 6000)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    hit = 0
    for n in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-m", "pi_memory", "write", "--keyword", "k", f"Signal fact {n}."],
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        hit += signal_when_locked(proc, layer / ".lock", signum)
        _, err = proc.communicate(timeout=60)
        assert not (layer / ".lock").exists(), err
        assert b"Traceback" not in err
        assert proc.returncode in (0, 128 + signum), err
    assert hit  # at least one signal landed while the lock was held


def test_the_mcp_server_told_to_end_mid_write_answers_and_leaves_no_lock(
    hermetic_home: Path, repo: Path
) -> None:
    layer = big_store(repo, 6000)
    client = McpClient(repo)
    client.initialize()
    client.send(
        "tools/call",
        {"name": "memory_write", "arguments": {"body": "Quit fact.", "keywords": ["k"]}},
    )
    assert signal_when_locked(client.proc, layer / ".lock", signal.SIGTERM)
    code, replies, err = client.close()
    assert code == 128 + signal.SIGTERM, err
    assert not (layer / ".lock").exists()
    # The request read before the signal was finished and answered.
    assert len(replies) == 1 and b"Quit fact" not in err
    assert "Quit fact." in (layer / "CONVENTIONS.md").read_text("utf-8")
