"""A category file that cannot be read is skipped and said; the rest is served.

The file is made unreadable for real: a directory stands where the file should
be, so opening it fails with ``IsADirectoryError`` whoever runs the test (a mode
of 000 stops nobody who runs as root).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.hookhelp import Hook, make_project, payload
from tests.inproc import call, tool


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    root = make_project(tmp_path)
    for args in (
        ("--layer", "user", "Use zsh for every shell snippet", "--keyword", "zsh"),
        ("Deploy through staging first", "--keyword", "deploy"),
        ("--file", "DECISIONS.md", "We chose Postgres", "--keyword", "postgres"),
    ):
        assert call("write", *args, cwd=root).code == 0
    decisions = root / ".pi" / "agent" / "memory-auto" / "DECISIONS.md"
    decisions.unlink()
    decisions.mkdir()  # unreadable as a file
    # Older than the caches' two-second racy window, so whatever a search would keep
    # about it is kept: the note must come every time, not only the first.
    os.utime(decisions, (time.time() - 60, time.time() - 60))
    return root


NOTE = "project/DECISIONS.md could not be read (Is a directory); its memories are left out"


def test_search_serves_both_layers_and_says_what_it_skipped(damaged: Path) -> None:
    for query in ("zsh", "deploy", "staging", "staging"):
        run = call("search", query, cwd=damaged)
        assert run.code == 0, run.err
        assert NOTE in run.out
    assert "Use zsh" in call("search", "zsh", cwd=damaged).out
    assert "Deploy through staging" in call("search", "staging", cwd=damaged).out
    data = json.loads(call("search", "--json", "staging", cwd=damaged).out)
    assert data["notes"] == [NOTE]
    assert [r["keyword"] for r in data["results"]] == ["deploy"]


def test_show_reports_the_file_and_shows_the_rest(damaged: Path) -> None:
    run = call("show", cwd=damaged)
    assert run.code == 0, run.err
    assert "#zsh" in run.out
    assert "#deploy" in run.out
    assert "1 file not read (DECISIONS.md: Is a directory)" in run.out


def test_the_tool_answers_with_the_rest_and_the_note(damaged: Path) -> None:
    answer = tool("memory_search", damaged, query="zsh")
    assert answer["ok"] is True
    assert "Use zsh" in answer["text"]
    assert NOTE in answer["text"]


def test_session_start_injects_the_rest_and_tells_the_user(
    damaged: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = Hook(capsys, monkeypatch)
    event = payload("claude-code", "SessionStart.startup", damaged)
    code, out, _ = hook("hook", "--host", "claude-code", "session-start", stdin=event, cwd=damaged)
    assert code == 0
    answer = json.loads(out)
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert "#zsh" in context
    assert "#deploy" in context
    assert NOTE in answer["systemMessage"]
