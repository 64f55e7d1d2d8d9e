"""Control characters are refused at the door on every write path; tab and newline are kept.

A NUL would make git see a memory file as binary (the project layer's union
merge then conflicts); an escape sequence or a DEL would reach a terminal or
a model as it is.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_memory.control_chars import control_issue
from tests.inproc import call, tool, user_config

LAYER = Path(".pi/agent/memory-auto")
CONTROLS = ["\x00", "\x1b", "\x7f", "\x9b", "\x0b", "\x0c", "\x08"]


def stored(root: Path) -> str:
    layer = root / LAYER
    if not layer.is_dir():
        return ""
    return "".join(p.read_text("utf-8") for p in sorted(layer.glob("*.md")))


@pytest.mark.parametrize("char", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_a_body_with_a_control_character_is_refused_and_nothing_is_stored(
    repo: Path, char: str
) -> None:
    run = call("write", "--keyword", "build", f"Run make{char} before pushing.", cwd=repo)
    assert run.code == 1 and run.out == ""
    assert f"U+{ord(char):04X}" in run.err and run.err.count("\n") == 1, run.err
    assert "Run make" not in stored(repo)


def test_tabs_and_line_breaks_are_kept(repo: Path) -> None:
    body = "Indent the Makefile with tabs:\n\tbuild:\n\t\tmake all"
    run = call("write", "--keyword", "make\tfile", body, cwd=repo)
    assert run.code == 0, run.err
    assert body in stored(repo) and "tags: make file -->" in stored(repo)  # spaced, as before
    # A CR is a line break too: it is stored as LF, as before.
    assert call("write", "--keyword", "crlf", "One line.\r\nTwo lines.", cwd=repo).code == 0
    assert "One line.\nTwo lines." in stored(repo)


@pytest.mark.parametrize("char", ["\x1b", "\x00", "\x7f", "\x85"])
def test_a_keyword_with_a_control_character_is_refused(repo: Path, char: str) -> None:
    run = call("write", "--keyword", f"red{char}[31m", "A body of text.", cwd=repo)
    assert run.code == 1 and f"U+{ord(char):04X}" in run.err, run.err
    assert stored(repo) == ""


def test_the_agent_tool_refuses_them_too(repo: Path) -> None:
    answer = tool("memory_write", repo, body="A NUL\x00 here.", keywords=["build"])
    assert answer["ok"] is False and "U+0000" in answer["text"]
    answer = tool("memory_write", repo, body="Fine body.", keywords=["esc\x1b"])
    assert answer["ok"] is False and "U+001B" in answer["text"]
    assert stored(repo) == ""


def test_the_files_layouts_memory_tool_refuses_them(hermetic_home: Path, tmp_path: Path) -> None:
    user_config(hermetic_home, {"layout": "files"})
    work = tmp_path / "work"
    work.mkdir()
    for args in (
        {"name": "Build", "content": "Run make\x00 first."},
        {"name": "Bu\x1bild", "content": "Run make first."},
        {"name": "Build", "content": "Run make first.", "description": "del\x7f"},
    ):
        answer = tool("memory", work, action="add", **args)
        assert answer["ok"] is False and "U+00" in answer["text"], answer
    assert tool("memory", work, action="add", name="Build", content="Run\tmake.")["ok"]
    answer = tool("memory", work, action="replace", name="Build", content="Now\x00 this.")
    assert answer["ok"] is False and "U+0000" in answer["text"]
    files = list((hermetic_home / ".pi" / "memory").rglob("*.md"))
    assert b"\x00" not in b"".join(p.read_bytes() for p in files)
    assert any(b"Run\tmake." in p.read_bytes() for p in files)


def test_a_stored_memory_stays_a_text_file_to_git(repo: Path) -> None:
    assert call("write", "--keyword", "build", "Run make first.", cwd=repo).code == 0
    assert call("write", "--keyword", "nul", "A NUL\x00 byte.", cwd=repo).code == 1
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    numstat = subprocess.run(
        ["git", "-C", str(repo), "diff", "--cached", "--numstat"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert "-\t-\t" not in numstat  # git's mark for a binary file


def test_the_check_names_the_first_one_and_where() -> None:
    assert control_issue("plain text\twith\nlines, 中文") is None
    assert control_issue("ab\x00c\x1b") == (
        "contains the control character U+0000 at character 3"
        " (only tabs and line breaks can be stored)"
    )


def test_a_json_tool_call_reports_the_character(repo: Path) -> None:
    run = call(
        "tool", "memory_write", cwd=repo, stdin=json.dumps({"body": "x\x07y", "keywords": ["k"]})
    )
    assert json.loads(run.out)["ok"] is False and "U+0007" in json.loads(run.out)["text"]
