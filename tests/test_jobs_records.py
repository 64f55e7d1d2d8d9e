"""Session state, job records, the worker's claim and the detached worker, with real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_memory.jobs import records, worker
from pi_memory.jobs.records import JobRecord
from pi_memory.session import dirs as session
from pi_memory.session import gate, state
from tests.hookhelp import Hook, make_project, payload

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def hook(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Hook:
    return Hook(capsys, monkeypatch)


def record(kind: str = records.REVIEW, end: int = 120, sid: str = "s-1") -> JobRecord:
    return JobRecord(
        kind=kind, session=sid, cwd="/p", transcript="/t.jsonl", host="claude-code", end=end
    )


def test_session_keys_are_file_names() -> None:
    assert session.session_key("55443e9c-7173-498f-ab21-5c26c4d6b176") == (
        "55443e9c-7173-498f-ab21-5c26c4d6b176"
    )
    odd = session.session_key("../../etc/passwd")
    assert odd.startswith("x") and "/" not in odd and odd == session.session_key("../../etc/passwd")
    assert session.session_key(".hidden") != ".hidden"
    assert session.session_key("") != ""


def test_the_gate_counts_a_turn_once_and_reviews_every_n_turns() -> None:
    counted, due = gate.turn_ended(gate.ReviewGate(), "p1", 2)
    assert gate.turn_ended(counted, "p1", 2) == (counted, False)  # the same turn delivered twice
    assert not due
    counted, due = gate.turn_ended(counted, "p2", 2)
    assert due and counted.started_at == 2  # recorded before the review runs
    assert not gate.turn_ended(counted, "p2", 2)[1]
    assert not gate.turn_ended(counted, "p3", 2)[1]
    assert gate.turn_ended(gate.turn_ended(counted, "p3", 2)[0], "p4", 2)[1]


def test_the_prompts_count_the_turns_before_them() -> None:
    counted, due = gate.prompted(gate.ReviewGate(), "p1", 2)
    assert (counted.turns, due) == (1, False)  # no turn has ended yet
    assert gate.prompted(counted, "p1", 2) == (counted, False)  # the same prompt again
    counted, due = gate.prompted(counted, "p2", 2)
    assert not due
    counted, due = gate.prompted(counted, "p3", 2)  # turns 1 and 2 ended
    assert due and counted.started_at == 2
    assert not gate.prompted(counted, "p3", 2)[1]
    counted, due = gate.prompted(counted, "p4", 2)
    assert not due
    assert gate.prompted(counted, "p5", 2)[1]


def test_old_sessions_are_pruned_but_not_those_with_jobs() -> None:
    for key in ("old", "busy", "new"):
        state.save(key, state.SessionState(), state.SessionState(frozen="x"))
    records.write_record(record(sid="busy"))
    long_ago = time.time() - 30 * 86_400
    for key in ("old", "busy"):
        os.utime(session.session_dir(key), (long_ago, long_ago))
    assert session.prune(14, time.time()) == ["old"]
    assert not session.session_dir("old").exists()
    assert session.session_dir("busy").exists() and session.session_dir("new").exists()
    state.save("old", state.SessionState(), state.SessionState(frozen="x"))
    os.utime(session.session_dir("old"), (long_ago, long_ago))
    assert session.prune(14, time.time()) is None  # at most once a day


def test_notes_of_directories_no_hook_visited_are_pruned(
    tmp_path: Path, hook: Hook, hermetic_home: Path
) -> None:
    from pi_memory.hosts import fastpath

    root = make_project(tmp_path)
    code, _, err = hook("write", "--keyword", "k", "A fact.", stdin="", cwd=root)
    assert code == 0, err
    start = payload("claude-code", "SessionStart.startup", root)
    assert hook("hook", "SessionStart", stdin=start, cwd=root)[0] == 0
    notes = hermetic_home / ".cache/pi_memory/hooks"
    assert {p.suffix for p in notes.iterdir()} == {".json", ".ready"}  # the note, the index
    assert fastpath.prune(14, time.time()) == 0
    assert fastpath.prune(14, time.time() + 15 * 86_400) == 2
    assert list(notes.iterdir()) == []


def test_a_record_is_named_by_its_range_and_damage_is_ignored() -> None:
    first = records.write_record(record())
    assert records.write_record(record()) == first  # the same job twice is one record
    records.write_record(record(records.FLUSH, end=300))
    records.write_record(record(records.HANDOFF, end=120))
    assert [r.name for r in records.pending("s-1")] == ["handoff-120", "review-120", "flush-300"]
    first.write_text("{not json", "utf-8")
    first.with_name("foreign.json").write_text(json.dumps({"kind": "rm -rf"}), "utf-8")
    assert [r.name for r in records.pending("s-1")] == ["handoff-120", "flush-300"]
    assert records.decode(records.encode(record())) == record()
    assert records.decode(json.dumps({**record()._asdict(), "end": "120"})) is None


def test_a_failed_job_is_retried_then_set_aside() -> None:
    job = record()
    records.write_record(job)
    for attempt in range(1, records.MAX_ATTEMPTS):
        records.failed(job._replace(attempts=attempt - 1))
        assert records.pending("s-1")[0].attempts == attempt
    records.failed(job._replace(attempts=records.MAX_ATTEMPTS - 1))
    assert records.pending("s-1") == []
    assert records.record_path(job).with_suffix(".failed").exists()


HOLD = """
import sys, time
from pi_memory.jobs import records
assert records.claim(sys.argv[1])
print("claimed", flush=True)
sys.stdin.read()
records.release(sys.argv[1])
"""


def test_one_worker_per_session_and_a_dead_workers_claim_is_taken_over() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with subprocess.Popen(
        [sys.executable, "-c", HOLD, "s-1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "claimed\n"
            assert not records.claim("s-1")  # a live worker has it
            assert worker.worker_alive("s-1")
        finally:
            holder.kill()  # dies holding the claim, as a crashed worker would
            holder.wait()
    assert records.claim_path("s-1").exists()
    assert not worker.worker_alive("s-1")
    assert records.claim("s-1")  # the dead holder's claim is taken over
    records.release("s-1")
    assert not records.claim_path("s-1").exists()


def wait_for(check: object, seconds: float = 600.0) -> None:
    """Until ``check()`` holds; the bound only ends a test that failed (a loaded machine
    may take many seconds to start a worker)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def configure_model(home: Path) -> None:
    """A model that resolves (nobody listens there: a job that calls it fails)."""
    config = {
        "defaults": {"model": "fake/some-model"},
        "providers": {
            "fake": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai",
                "maxRetries": 0,
                "retryBackoffMs": 10,
            }
        },
    }
    path = home / ".pi/agent/memory.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config), "utf-8")


def test_a_prompt_starts_a_detached_review_every_review_turns_turns(
    tmp_path: Path, hook: Hook, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's Stop is not hooked: each prompt says the turn before it ended."""
    monkeypatch.setenv("PI_MEMORY_AUTO_REVIEW_TURNS", "2")
    configure_model(hermetic_home)
    root = make_project(tmp_path)
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text('{"type": "user"}\n', "utf-8")
    sid = json.loads(payload("claude-code", "UserPromptSubmit", root))["session_id"]
    key = session.session_key(sid)

    def ask(turn: str) -> None:
        asked = payload("claude-code", "UserPromptSubmit", root, prompt="hi", prompt_id=turn)
        assert hook("hook", "UserPromptSubmit", stdin=asked, cwd=root)[0] == 0

    ask("turn-1")
    ask("turn-1")  # the same prompt delivered again
    ask("turn-2")  # turn 1 ended
    # An earlier install's Stop hook still runs: its work is the prompt's now.
    stop = payload("claude-code", "Stop", root, prompt_id="turn-2")
    assert hook("hook", "Stop", stdin=stop, cwd=root) == (0, "", "")
    assert records.pending(key) == []
    ask("turn-3")  # turn 2 ended: a review is due
    # The hook returned at once; a detached worker took the recorded job, ran it
    # (the transcript is too short to review) and deleted its record.
    size = transcript.stat().st_size
    log_file = hermetic_home / ".pi/agent/memory-auto/pi_memory.log"
    wait_for(
        lambda: (
            log_file.exists()
            and f"job review-{size} of session {sid}" in log_file.read_text("utf-8")
        )
    )
    wait_for(lambda: not records.pending(key) and not records.claim_path(key).exists())
    assert "extract: skipped" in log_file.read_text("utf-8")
    assert state.load(sid).gate == gate.ReviewGate(3, "turn-3", 2, -1, 0)


def test_a_job_left_by_a_dead_worker_is_picked_up_at_session_start(
    tmp_path: Path, hook: Hook, hermetic_home: Path
) -> None:
    configure_model(hermetic_home)
    root = make_project(tmp_path)
    job = record(sid="crashed-session")
    records.write_record(job)
    dead = {"pid": 999_999_999, "hostname": os.uname().nodename, "startedAt": "x", "op": "job"}
    records.claim_path("crashed-session").write_text(json.dumps(dead), "utf-8")
    start = payload("claude-code", "SessionStart.startup", root)
    assert hook("hook", "SessionStart", stdin=start, cwd=root)[0] == 0
    wait_for(lambda: records.pending("crashed-session")[0].attempts == 1)
    wait_for(lambda: not records.claim_path("crashed-session").exists())


def test_no_model_no_background_work(tmp_path: Path, hook: Hook, hermetic_home: Path) -> None:
    root = make_project(tmp_path)
    records.write_record(record(sid="waiting"))
    start = payload("claude-code", "SessionStart.startup", root)
    assert hook("hook", "SessionStart", stdin=start, cwd=root)[0] == 0
    time.sleep(0.3)
    assert records.pending("waiting")[0].attempts == 0
    assert not (session.session_dir("waiting") / worker.LOG_FILE).exists()


def test_a_due_consolidation_is_caught_up_in_the_background(
    tmp_path: Path, hook: Hook, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_MEMORY_AUTO_CONSOLIDATE_EVERY", "2")
    root = make_project(tmp_path)
    for n in range(3):
        code, _, err = hook("write", "--keyword", f"k{n}", f"Fact number {n}.", stdin="", cwd=root)
        assert code == 0, err
    start = payload("claude-code", "SessionStart.startup", root)
    assert hook("hook", "SessionStart", stdin=start, cwd=root)[0] == 0
    assert records.pending(records.CONSOLIDATE) == []  # no model: nothing starts
    configure_model(hermetic_home)
    assert hook("hook", "SessionStart", stdin=start, cwd=root)[0] == 0
    log_file = hermetic_home / ".pi/agent/memory-auto/pi_memory.log"
    # The worker ran the round (the model is unreachable, so it failed and is kept): once,
    # however many workers the start began, so each session start costs one attempt.
    wait_for(lambda: log_file.exists() and "job consolidate-project" in log_file.read_text("utf-8"))
    wait_for(lambda: not workers_in(root))  # every worker this start began has ended
    assert [(r.layer, r.attempts) for r in records.pending(records.CONSOLIDATE)] == [("project", 1)]
    assert log_file.read_text("utf-8").count("job consolidate-project") == 1


def workers_in(root: Path) -> list[int]:
    """The worker processes running in ``root`` (they run detached: found by their
    command line, which names the directory they work in)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue  # not a process, or one that ended meanwhile
        if b"run_worker" in command and os.fsencode(root) in command.split(b"\0"):
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("door", ["write", "tool"])
def test_a_write_past_the_threshold_starts_the_round_without_waiting_for_a_session(
    door: str, tmp_path: Path, hook: Hook, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Consolidation is checked after every rebuild of the index, not only at session start.
    monkeypatch.setenv("PI_MEMORY_AUTO_CONSOLIDATE_EVERY", "2")
    root = make_project(tmp_path)
    configure_model(hermetic_home)

    def write(n: int) -> None:
        if door == "write":
            args: tuple[str, ...] = ("write", "--keyword", f"k{n}", f"Fact number {n}.")
            stdin = ""
        else:
            args = ("tool", "memory_write")
            stdin = json.dumps({"body": f"Fact number {n}.", "keywords": [f"k{n}"]})
        code, _, err = hook(*args, stdin=stdin, cwd=root)
        assert code == 0, err

    write(0)  # the layer's first MEMORY.md: its watermark starts at 0
    write(1)
    assert records.pending(records.CONSOLIDATE) == []  # one new memory since: not due yet
    write(2)
    log_file = hermetic_home / ".pi/agent/memory-auto/pi_memory.log"
    wait_for(lambda: log_file.exists() and "job consolidate-project" in log_file.read_text("utf-8"))
    wait_for(lambda: not workers_in(root))  # every worker the write began has ended
    assert [(r.layer, r.attempts) for r in records.pending(records.CONSOLIDATE)] == [("project", 1)]
