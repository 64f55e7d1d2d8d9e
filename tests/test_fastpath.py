"""The hooks' fast path: a repeated hook answers from its note, and any change is a miss."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hookhelp import Hook, make_project, payload

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def hook(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Hook:
    return Hook(capsys, monkeypatch)


def write(hook: Hook, root: Path, keyword: str, body: str) -> None:
    code, _, err = hook("write", "--keyword", keyword, body, stdin="", cwd=root)
    assert code == 0, err


def imports_of(event: str, stdin: str, cwd: Path) -> tuple[str, set[str]]:
    """A real hook process: its stdout and the package modules it imported."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi_memory", "hook", event],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=True,
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    return proc.stdout, {n for n in names if n.startswith("pi_memory")}


def test_a_repeated_hook_answers_without_the_configuration_or_the_store(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    write_cmd = [sys.executable, "-m", "pi_memory", "write", "--keyword", "staging-db"]
    fact = "The staging database listens on port 5433, not 5432."
    subprocess.run([*write_cmd, fact], cwd=root, env=env, check=True, capture_output=True)
    start = payload("claude-code", "SessionStart.startup", root)
    first, full = imports_of("SessionStart", start, root)
    again, fast = imports_of("SessionStart", start, root)
    assert first == again and "#staging-db" in first
    heavy = {"pi_memory.config.load", "pi_memory.store", "pi_memory.layouts", "pi_memory.entry"}
    assert heavy <= full
    assert not fast & heavy
    ask = payload("claude-code", "UserPromptSubmit", root, prompt="staging database port?")
    imports_of("UserPromptSubmit", ask, root)  # the first prompt builds the scorer's corpus
    ask = payload(
        "claude-code", "UserPromptSubmit", root, prompt="staging database port?", session_id="s2"
    )
    answer, fast = imports_of("UserPromptSubmit", ask, root)
    assert "port 5433" in answer
    assert not fast & {"pi_memory.config.load", "pi_memory.store", "pi_memory.open_store"}


def start_text(hook: Hook, root: Path, **changes: str) -> str:
    start = payload("claude-code", "SessionStart.startup", root, **changes)
    code, out, err = hook("hook", "SessionStart", stdin=start, cwd=root)
    assert (code, err) == (0, "")
    if not out:
        return ""
    text: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return text


def test_a_new_memory_a_new_config_or_a_lock_is_a_miss(
    tmp_path: Path, hook: Hook, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    assert "#deploy" in start_text(hook, root)
    write(hook, root, "ports", "The staging database listens on port 5433.")
    assert "#ports" in start_text(hook, root)  # a changed category file
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"autoSurfacing": {"enabled": False}}), "utf-8")
    ask = payload("claude-code", "UserPromptSubmit", root, prompt="staging database port?")
    assert hook("hook", "UserPromptSubmit", stdin=ask, cwd=root) == (0, "", "")
    config.write_text("{}", "utf-8")
    assert "5433" in hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)[1]
    monkeypatch.setenv("PI_MEMORY_AUTO_INDEX_BUDGET", "200")  # the environment is part of it
    assert "#ports" in start_text(hook, root)
    record = {"pid": 999_999_999, "hostname": os.uname().nodename, "startedAt": "x", "op": "add"}
    (root / ".pi/agent/memory-auto/.lock").write_text(json.dumps(record), "utf-8")
    start = payload("claude-code", "SessionStart.startup", root)
    answer = json.loads(hook("hook", "SessionStart", stdin=start, cwd=root)[1])
    assert "abandoned lock" in answer["systemMessage"]  # never hidden behind a note


def test_a_damaged_note_is_a_miss(tmp_path: Path, hook: Hook, hermetic_home: Path) -> None:
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    first = start_text(hook, root)
    ask = payload("claude-code", "UserPromptSubmit", root, prompt="how do we deploy with rsync?")
    assert "Deploy with rsync." in hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)[1]
    notes = list((hermetic_home / ".cache/pi_memory/hooks").iterdir())
    assert {p.suffix for p in notes} == {".json", ".corpus", ".ready"}
    for note in notes:
        note.write_bytes(b"\x00garbage")
    assert start_text(hook, root) == first
    ask = payload(
        "claude-code",
        "UserPromptSubmit",
        root,
        prompt="how do we deploy with rsync?",
        session_id="s2",
    )
    assert "Deploy with rsync." in hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)[1]
    (hermetic_home / ".cache/pi_memory/hooks").glob("*.corpus").__next__().write_bytes(b"x")
    ask = payload(
        "claude-code",
        "UserPromptSubmit",
        root,
        prompt="how do we deploy with rsync?",
        session_id="s3",
    )
    assert "Deploy with rsync." in hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)[1]


def _crc_stem(cwd: str) -> str:
    """A note's name before it was the FNV-1a hash of its directory."""
    import zlib

    raw = cwd.encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"


def test_a_session_start_removes_the_notes_of_the_former_naming_once(
    tmp_path: Path, hook: Hook, hermetic_home: Path
) -> None:
    """Notes named by zlib's crc32 and adler32 of their directory are never read since
    names became FNV-1a hashes; the full hook's prune removes them and their corpora
    (as large as a store) once, and nothing else: a current note, a ready index (still
    named by zlib), a file that is no note."""
    from pi_memory.hosts import fastpath
    from pi_memory.hosts.quick_hook import note_stem

    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    notes = hermetic_home / ".cache/pi_memory/hooks"
    notes.mkdir(parents=True, exist_ok=True)
    old = [_crc_stem(str(root)), _crc_stem("/srv/gone"), _crc_stem("/srv/caf\udcff")]
    for stem, cwd in zip(old, [str(root), "/srv/gone", "/srv/caf\udcff"]):
        note = json.dumps({"v": 2, "cwd": cwd}, ensure_ascii=True)
        (notes / f"{stem}.json").write_text(note, "utf-8")
        (notes / f"{stem}.corpus").write_bytes(b"corpus")
    current = notes / f"{note_stem('/srv/kept')}.json"
    current.write_text(json.dumps({"v": 3, "cwd": "/srv/kept"}), "utf-8")
    ready = notes / f"{_crc_stem('/srv/kept')}.ready"
    ready.write_text("{}", "utf-8")
    odd = notes / f"{_crc_stem('x')}.json"
    odd.write_bytes(b"\x00not a note")
    assert "#deploy" in start_text(hook, root)  # the slow path: a fresh home prunes
    left = {p.name for p in notes.iterdir()}
    assert not {f"{stem}.json" for stem in old} & left
    assert not {f"{stem}.corpus" for stem in old} & left
    assert {current.name, ready.name, odd.name, f"{note_stem(str(root))}.json"} <= left
    assert (notes.parent / fastpath.RENAMED_MARK).is_file()
    again = notes / f"{_crc_stem('/srv/later')}.json"
    again.write_text(json.dumps({"v": 2, "cwd": "/srv/later"}), "utf-8")
    fastpath.prune(30, time.time())
    assert again.exists()  # once: a directory's notes are not read at every prune
