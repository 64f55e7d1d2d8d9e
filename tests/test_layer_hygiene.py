"""A committed project layer: no stall on a foreign lock, no junk in git, no stale temp files."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from pi_memory.fs.lock import format_record, lock_path
from tests.inproc import call, user_config
from tests.lockholder import Holder

LAYER = Path(".pi/agent/memory-auto")


def start(repo: Path) -> dict[str, object]:
    event = json.dumps({"cwd": str(repo), "hook_event_name": "SessionStart"})
    run = call("hook", "session-start", cwd=repo, stdin=event)
    assert (run.code, run.err) == (0, "")
    payload: dict[str, object] = json.loads(run.out)
    return payload


def test_a_foreign_lock_does_not_stall_the_hook_and_is_reported(
    repo: Path, hermetic_home: Path
) -> None:
    # A lock timeout far beyond any slow machine, so "not waited out" is a clear line.
    user_config(hermetic_home, {"lock": {"timeoutMs": 120_000}})
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    record = format_record(4242, "build-server-7", "2026-01-01T00:00:00.000Z", "add")
    lock_path(repo / LAYER).write_bytes(record)
    began = time.monotonic()
    payload = start(repo)
    assert time.monotonic() - began < 60  # the lock timeout is 120 s: it was not waited out
    assert "#deploy" in str(payload["hookSpecificOutput"])
    message = str(payload["systemMessage"])
    assert "build-server-7" in message and str(repo / LAYER) in message
    assert "python -m pi_memory unlock" in message


def git_status(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(line[3:] for line in out.splitlines())


def test_what_must_never_be_committed_is_ignored(repo: Path) -> None:
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    assert call("search", "deploy", cwd=repo).code == 0  # writes usage.json
    layer = repo / LAYER
    assert (layer / "usage.json").exists()
    for junk in (".lock", ".CONVENTIONS.md.0123456789ab.tmp", "CONVENTIONS.md.bak"):
        (layer / junk).write_text("x", "utf-8")
    (layer / ".backups" / "20260101").mkdir(parents=True)
    (layer / ".backups" / "20260101" / "CONVENTIONS.md").write_text("x", "utf-8")
    listed = git_status(repo)
    prefix = str(LAYER) + "/"
    assert listed == [
        prefix + ".gitattributes",
        prefix + ".gitignore",
        prefix + "CONVENTIONS.md",
        prefix + "MEMORY.md",
    ]


def test_a_gitignore_the_user_edited_is_left_alone(repo: Path) -> None:
    layer = repo / LAYER
    layer.mkdir(parents=True)
    (layer / ".gitignore").write_text("mine\n", "utf-8")
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    assert (layer / ".gitignore").read_text("utf-8") == "mine\n"


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_old_temp_files_are_cleaned_by_the_next_write_and_young_ones_reported(repo: Path) -> None:
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    layer = repo / LAYER
    old = layer / ".CONVENTIONS.md.0123456789ab.tmp"
    young = layer / ".MEMORY.md.ba9876543210.tmp"
    other = layer / ".notes.tmp"  # not a name this package makes: never touched
    for path in (old, young, other):
        path.write_text("half a file", "utf-8")
    age(old, 3600)
    age(other, 3600)
    assert call("write", "--keyword", "lint", "Lint with ruff.", cwd=repo).code == 0
    assert not old.exists()
    assert young.exists() and other.exists()
    shown = call("show", cwd=repo).out
    assert "1 temp file left by an interrupted write" in shown


def test_show_removes_the_abandoned_ones_and_says_what_it_found(repo: Path) -> None:
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    layer = repo / LAYER
    old = layer / ".CONVENTIONS.md.0123456789ab.tmp"
    young = layer / ".MEMORY.md.ba9876543210.tmp"
    for path in (old, young):
        path.write_text("half a file", "utf-8")
    age(old, 3600)
    shown = call("show", cwd=repo).out
    assert (
        "removed 1 temp file an interrupted write left over 10 minutes ago; "
        "1 temp file left by an interrupted write: .MEMORY.md.ba9876543210.tmp"
    ) in shown
    assert not old.exists() and young.exists()
    age(young, 3600)
    data = json.loads(call("show", "--json", cwd=repo).out)
    assert data["layers"]["project"]["temp_files"] == {"left": [], "removed": 1}
    assert not young.exists()
    assert not (layer / ".lock").exists()


def test_show_leaves_them_while_another_process_holds_the_lock(repo: Path) -> None:
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    layer = repo / LAYER
    old = layer / ".CONVENTIONS.md.0123456789ab.tmp"
    holder = Holder(layer)
    try:
        old.write_text("half a file", "utf-8")  # after the holder's own sweep
        age(old, 3600)
        shown = call("show", cwd=repo).out
    finally:
        holder.release()
    assert old.exists() and "1 temp file left by an interrupted write" in shown


def test_rebuild_sweeps_whatever_the_directory_size(repo: Path) -> None:
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    old = repo / LAYER / ".CONVENTIONS.md.0123456789ab.tmp"
    old.write_text("half a file", "utf-8")
    age(old, 3600)
    assert call("rebuild", "project", cwd=repo).code == 0
    assert not old.exists()
