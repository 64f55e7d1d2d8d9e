"""A worker on a hanging model: its job's deadline ends it, and a later worker takes its
jobs over — with a real hanging server on 127.0.0.1 and real worker processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pi_memory import env_names
from pi_memory.jobs import records
from pi_memory.jobs.records import JobRecord
from tests.fake_provider import FakeProvider, Hang, Say, Trickle, memory_json, write_memory_json
from tests.hookhelp import Hook, make_project, payload

REPO = Path(__file__).resolve().parent.parent
SESSION = REPO / "tests" / "data" / "jobs" / "session.jsonl"
#: The job's deadline where a test needs the worker to reach the model before it: a worker
#: needs well under a second of CPU for that, which a loaded two-core machine stretches
#: to several seconds; this is an order of magnitude more.
REACHES_THE_MODEL = 20
#: The deadline of a worker the test holds still before it matters how far it got.
HELD_STILL = 5
#: The budget of a later worker whose model answers (it is never waited out).
GENEROUS = 120


@pytest.fixture
def hook(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Hook:
    return Hook(capsys, monkeypatch)


def use_model(home: Path, provider: FakeProvider, job_seconds: int) -> None:
    """The user's model is ``provider``, each job within ``job_seconds``, no retries."""
    data = memory_json(provider, jobSeconds=job_seconds)
    data["providers"]["fake"]["maxRetries"] = 0
    write_memory_json(home, data)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def working_model() -> Iterator[FakeProvider]:
    """A second model, one that answers, for what a later session does."""
    fake = FakeProvider()
    fake.script(Say("NONE"))
    try:
        yield fake
    finally:
        fake.close()


@pytest.fixture
def later_session(
    project: Path, hermetic_home: Path, hook: Hook, working_model: FakeProvider
) -> Callable[[], FakeProvider]:
    """Start a later session in the project, its model one that answers (returned)."""

    def start() -> FakeProvider:
        use_model(hermetic_home, working_model, GENEROUS)
        session_start(hook, project)
        return working_model

    return start


@pytest.fixture
def job(project: Path, tmp_path: Path) -> JobRecord:
    """A review of a short session in ``project``, recorded and waiting for a worker."""
    return review_job(project, tmp_path)


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
    job: JobRecord,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    workers: list[subprocess.Popen[bytes]],
) -> None:
    use_model(hermetic_home, fake_provider, REACHES_THE_MODEL)
    # The reply trickles in a byte at a time: no read times out, the call never ends.
    fake_provider.script(Trickle(3600))
    key = records.key_of(job)
    workers.append(start_worker(key, Path(job.cwd)))
    # Its watchdog ended it (exit 3) while the model was still trickling, after the job's
    # deadline and grace, and long before the reply would have ended.
    assert workers[0].wait(timeout=600) == 3
    assert len(fake_provider.posts()) == 1
    deadline = records.deadline_of(key, workers[0].pid)
    assert deadline is not None and time.time() >= deadline + records.GRACE
    # Its attempt is counted; the job waits for the next worker.
    assert [r.attempts for r in records.pending(key)] == [1]


def hold_still_once_it_has_a_deadline(key: str, process: subprocess.Popen[bytes]) -> float:
    """Stop ``process`` once it has named its job's deadline (and so read its configuration):
    it holds the session's claim and can do nothing more until it is continued. Returns
    the deadline."""
    wait_for(lambda: records.deadline_of(key, process.pid) is not None, 600)
    os.kill(process.pid, signal.SIGSTOP)
    deadline = records.deadline_of(key, process.pid)
    assert deadline is not None
    return deadline


def test_a_later_session_retries_what_a_hanging_model_failed(
    job: JobRecord,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    later_session: Callable[[], FakeProvider],
    workers: list[subprocess.Popen[bytes]],
) -> None:
    use_model(hermetic_home, fake_provider, HELD_STILL)
    fake_provider.script(Hang(600))  # the model hangs past every deadline
    key = records.key_of(job)
    first = start_worker(key, Path(job.cwd))
    workers.append(first)
    hold_still_once_it_has_a_deadline(key, first)
    # A later session, its model working again, while the first worker holds the job.
    working_model = later_session()
    wait_for(lambda: records.waiter_alive(key), 600)  # its worker waits for the first one
    os.kill(first.pid, signal.SIGCONT)
    wait_for(lambda: records.pending(key) == [], 600)
    first.wait(timeout=600)  # ended at its deadline (or, held still past it, taken over)
    assert len(working_model.posts()) == 1
    log = (hermetic_home / ".pi/agent/memory-auto/pi_memory.log").read_text("utf-8")
    assert "extract: nothing" in log


def test_a_later_worker_takes_over_the_jobs_of_one_past_every_deadline(
    job: JobRecord,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    later_session: Callable[[], FakeProvider],
    workers: list[subprocess.Popen[bytes]],
) -> None:
    use_model(hermetic_home, fake_provider, HELD_STILL)
    fake_provider.script(Hang(600))
    key = records.key_of(job)
    stuck = start_worker(key, Path(job.cwd))
    workers.append(stuck)
    # A worker that cannot keep its own deadline (stopped, as a suspended machine stops it).
    deadline = hold_still_once_it_has_a_deadline(key, stuck)
    working_model = later_session()
    wait_for(lambda: records.pending(key) == [], 600)
    assert stuck.wait(timeout=600) == -signal.SIGKILL  # ended by the worker that took over
    assert time.time() >= deadline + records.GRACE  # and not before it was past every deadline
    assert len(working_model.posts()) == 1
