"""A worker on a hanging model: its job's deadline ends it, and a later worker takes its
jobs over — with a real hanging server on 127.0.0.1 and real worker processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_memory import env_names
from pi_memory.jobs import records
from pi_memory.jobs.records import JobRecord
from tests.fake_provider import FakeProvider, Hang, Say, Trickle, memory_json, write_memory_json
from tests.hookhelp import Hook, make_project, payload

REPO = Path(__file__).resolve().parent.parent
SESSION = REPO / "tests" / "data" / "jobs" / "session.jsonl"
#: Each job's deadline in these tests.
JOB_SECONDS = 2


@pytest.fixture
def hook(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Hook:
    return Hook(capsys, monkeypatch)


@pytest.fixture
def project(tmp_path: Path, hermetic_home: Path, fake_provider: FakeProvider) -> Path:
    data = memory_json(fake_provider, jobSeconds=JOB_SECONDS)
    data["providers"]["fake"]["maxRetries"] = 0
    write_memory_json(hermetic_home, data)
    return make_project(tmp_path)


@pytest.fixture
def workers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Worker processes a test starts; none outlives it."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def review_job(root: Path, tmp_path: Path, sid: str = "s-hang") -> JobRecord:
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_bytes(SESSION.read_bytes())
    job = JobRecord(
        kind=records.REVIEW, session=sid, cwd=str(root), transcript=str(transcript),
        host="claude-code", end=transcript.stat().st_size, created=time.time(),
    )  # fmt: skip
    records.write_record(job)
    return job


def start_worker(key: str, root: Path) -> subprocess.Popen[bytes]:
    """``python -m pi_memory worker KEY`` as the hooks start it (without detaching)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), env_names.WORKER: "1"}
    return subprocess.Popen([sys.executable, "-m", "pi_memory", "worker", key], cwd=root, env=env)


def wait_for(check: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def session_start(hook: Hook, root: Path) -> None:
    start = payload("claude-code", "SessionStart.startup", root, session_id="a-later-session")
    assert hook("hook", "SessionStart", stdin=start, cwd=root)[0] == 0


def test_a_worker_whose_model_never_finishes_ends_at_its_jobs_deadline(
    project: Path,
    tmp_path: Path,
    fake_provider: FakeProvider,
    workers: list[subprocess.Popen[bytes]],
) -> None:
    # The reply trickles in a byte at a time: no read times out, the call never ends.
    fake_provider.script(Trickle(120))
    job = review_job(project, tmp_path)
    started = time.monotonic()
    workers.append(start_worker(records.key_of(job), project))
    assert workers[0].wait(timeout=JOB_SECONDS + records.GRACE + 15) == 3
    assert time.monotonic() - started < JOB_SECONDS + records.GRACE + 10
    # Its attempt is counted; the job waits for the next worker.
    assert [r.attempts for r in records.pending(records.key_of(job))] == [1]


def test_a_later_session_retries_what_a_hanging_model_failed(
    project: Path,
    tmp_path: Path,
    hook: Hook,
    fake_provider: FakeProvider,
    workers: list[subprocess.Popen[bytes]],
) -> None:
    fake_provider.script(Hang(60), Say("NONE"))  # the model hangs, then works again
    job = review_job(project, tmp_path)
    key = records.key_of(job)
    workers.append(start_worker(key, project))
    wait_for(lambda: len(fake_provider.posts()) == 1, 20)  # the first worker is waiting
    session_start(hook, project)  # a later session, while it still waits
    wait_for(lambda: records.pending(key) == [], JOB_SECONDS + records.GRACE + 20)
    assert len(fake_provider.posts()) == 2
    log = (Path(os.environ["HOME"]) / ".pi/agent/memory-auto/pi_memory.log").read_text("utf-8")
    assert "extract: nothing" in log


def test_a_later_worker_takes_over_the_jobs_of_one_past_every_deadline(
    project: Path,
    tmp_path: Path,
    hook: Hook,
    fake_provider: FakeProvider,
    workers: list[subprocess.Popen[bytes]],
) -> None:
    fake_provider.script(Hang(60), Say("NONE"))
    job = review_job(project, tmp_path)
    key = records.key_of(job)
    stuck = start_worker(key, project)
    workers.append(stuck)
    wait_for(lambda: len(fake_provider.posts()) == 1, 20)
    deadline = json.loads((records.jobs_dir(key) / records.DEADLINE_FILE).read_text("utf-8"))
    assert deadline["pid"] == stuck.pid
    # A worker that cannot keep its own deadline (stopped, as a suspended machine stops it).
    os.kill(stuck.pid, signal.SIGSTOP)
    session_start(hook, project)
    wait_for(lambda: records.pending(key) == [], JOB_SECONDS + records.GRACE + 20)
    assert stuck.wait(timeout=10) == -signal.SIGKILL  # ended by the worker that took over
    assert len(fake_provider.posts()) == 2
