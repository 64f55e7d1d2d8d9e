"""Answers that must not mislead: what a person types is what the command works on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.inproc import call


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_a_bom_read_from_stdin_is_not_part_of_the_body(repo: Path) -> None:
    body = "\ufeffNotepad saved this.\n".encode()
    run = call("write", "--json", "--keyword", "bom", "-", stdin=body, cwd=repo)
    assert run.code == 0, run.err
    stored = (repo / ".pi/agent/memory-auto/CONVENTIONS.md").read_bytes()
    assert stored.endswith(b" | tags: bom -->\nNotepad saved this.\n")
    assert b"\xef\xbb\xbf" not in stored


def test_a_huge_keyword_is_not_echoed_whole(repo: Path) -> None:
    run = call("write", "--keyword", "k" * 5000, "A body.", cwd=repo)
    assert run.code == 1
    assert len(run.err) < 300 and "5000 characters" in run.err


def test_the_tool_refuses_a_huge_keyword_briefly(repo: Path) -> None:
    args = json.dumps({"body": "A body.", "keywords": ["k" * 5000]})
    run = call("tool", "memory_write", stdin=args, cwd=repo)
    answer = json.loads(run.out)
    assert answer["ok"] is False and len(answer["text"]) < 300
