"""A session's state: one record, saved field by field without waiting, and the files of
the layout before it still read (an upgrade mid-session loses nothing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_memory.session import dirs, state
from pi_memory.session.gate import ReviewGate
from pi_memory.session.state import SessionState
from tests.hookhelp import Hook, make_project, payload

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def hook(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Hook:
    return Hook(capsys, monkeypatch)


def test_the_state_round_trips_and_damage_reads_as_fresh() -> None:
    assert state.load("s-1") == SessionState()
    saved = SessionState("the index", state.FROZEN, 42, ("a", "b"), ReviewGate(3, "p3", 2, 5, 9))
    state.save("s-1", SessionState(), saved)
    assert state.load("s-1") == saved
    path = dirs.session_dir("s-1") / state.STATE_FILE
    path.write_text('{"frozen": 3, "surfaced": {"a": 1}, "turns": -2, "lastTurn": true}')
    assert state.load("s-1") == SessionState()
    path.write_text("[1,")
    assert state.load("s-1") == SessionState()


def test_a_save_writes_only_what_this_process_changed() -> None:
    first = state.load("s-1")
    state.save("s-1", first, first._replace(surfaced=("a",)))
    # A review that loaded before the prompt above saves its cursor: the surfaced set stays.
    state.save("s-1", first, first._replace(gate=first.gate._replace(cursor=8)))
    assert state.load("s-1") == SessionState(surfaced=("a",), gate=ReviewGate(cursor=8))


def test_a_save_never_waits_for_the_lock_and_nothing_is_lost() -> None:
    directory = dirs.session_dir("s-1")
    directory.mkdir(parents=True)
    (directory / state.LOCK_FILE).touch()  # another process is saving right now
    loaded = state.load("s-1")
    started = time.monotonic()
    state.save("s-1", loaded, loaded._replace(surfaced=("a",)))
    assert time.monotonic() - started < 1
    assert [p.name.startswith(state.PATCH_PREFIX) for p in directory.iterdir()].count(True) == 1
    assert state.load("s-1").surfaced == ("a",)
    os.unlink(directory / state.LOCK_FILE)
    loaded = state.load("s-1")
    state.save("s-1", loaded, loaded._replace(frozen="x"))
    assert sorted(p.name for p in directory.iterdir()) == [state.STATE_FILE]
    assert state.load("s-1") == SessionState(frozen="x", surfaced=("a",))


def test_a_lock_left_by_a_dead_saver_is_broken() -> None:
    directory = dirs.session_dir("s-1")
    directory.mkdir(parents=True)
    lock = directory / state.LOCK_FILE
    lock.touch()
    long_ago = time.time() - 2 * state.STALE_LOCK_SECONDS
    os.utime(lock, (long_ago, long_ago))
    state.save("s-1", SessionState(), SessionState(frozen="x"))
    assert sorted(p.name for p in directory.iterdir()) == [state.STATE_FILE]


#: One racing process: ``rounds`` times, load the state and save one more in its own field.
RACER = """
import sys
from pi_memory.session import state
field, rounds = sys.argv[1], int(sys.argv[2])
for n in range(1, rounds + 1):
    loaded = state.load("race")
    gate = loaded.gate._replace(**{field: n})
    state.save("race", loaded, loaded._replace(gate=gate))
"""


def test_processes_saving_different_fields_at_once_lose_no_update(hermetic_home: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(hermetic_home)}
    rounds = 150
    racers = [
        subprocess.Popen([sys.executable, "-c", RACER, field, str(rounds)], env=env)
        for field in ("turns", "cursor", "started_at")
    ]
    assert [p.wait(timeout=120) for p in racers] == [0, 0, 0]
    assert state.load("race").gate == ReviewGate(rounds, "", rounds, -1, rounds)


def legacy_session(sid: str, **files: str) -> Path:
    """A session directory as the version before ``state.json`` left it."""
    directory = dirs.session_dir(sid)
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name.replace("_", ".").replace("compress.watch", "compress-watch")).write_text(
            text, "utf-8"
        )
    return directory


def test_the_files_of_the_layout_before_are_read_and_folded_into_one() -> None:
    directory = legacy_session(
        "s-1",
        index_txt="the frozen index",
        surfaced_json='["a", "b"]',
        turns_json='{"turns": 4, "lastKey": "p4", "reviewedAt": 4}',
        review_json='{"lastTurn": 3, "cursor": 12}',
        reinject="frozen",
        compress_watch="77",
    )
    expected = SessionState(
        "the frozen index", state.FROZEN, 77, ("a", "b"), ReviewGate(4, "p4", 4, 3, 12)
    )
    assert state.load("s-1") == expected
    state.save("s-1", expected, expected._replace(surfaced=("a", "b", "c")))
    assert sorted(p.name for p in directory.iterdir()) == [state.STATE_FILE]
    assert state.load("s-1") == expected._replace(surfaced=("a", "b", "c"))
    # A worker of the version before, still running, records its review afterwards.
    (directory / "review.json").write_text('{"lastTurn": 5, "cursor": 20}', "utf-8")
    assert state.load("s-1").gate == ReviewGate(4, "p4", 4, 5, 20)


def test_an_upgrade_mid_session_surfaces_nothing_twice_and_reviews_no_turn_twice(
    tmp_path: Path, hook: Hook
) -> None:
    root = make_project(tmp_path)
    code, _, err = hook(
        "write", "--keyword", "postgres-port", "Postgres listens on port 5433 in staging.",
        stdin="", cwd=root,
    )  # fmt: skip
    assert code == 0, err
    ask = payload("claude-code", "UserPromptSubmit", root, prompt="which postgres port in staging?")
    sid = json.loads(ask)["session_id"]
    out = hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)[1]
    assert "5433" in out
    surfaced, frozen = state.load(sid).surfaced, state.load(sid).frozen
    assert surfaced and frozen
    # The same session as the version before this record left it.
    for name in os.listdir(dirs.session_dir(sid)):
        os.unlink(dirs.session_dir(sid) / name)
    legacy_session(sid, surfaced_json=json.dumps(list(surfaced)), index_txt=frozen)
    assert hook("hook", "UserPromptSubmit", stdin=ask, cwd=root) == (0, "", "")
