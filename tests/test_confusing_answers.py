"""Answers that must not mislead: what a person types is what the command works on."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inproc import call


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


def test_a_query_of_symbols_is_searched_not_replaced_by_recent(repo: Path) -> None:
    assert call("write", "--keyword", "lang", "The engine is written in C++17.", cwd=repo).code == 0
    assert call("write", "--keyword", "shell", "Scripts use bash, not zsh.", cwd=repo).code == 0
    data = json.loads(call("search", "--json", "c++", cwd=repo).out)
    assert (data["mode"], data["fallback"], data["total"]) == ("keyword", False, 1)
    assert data["results"][0]["body"] == "The engine is written in C++17."
    missing = json.loads(call("search", "--json", "c#", cwd=repo).out)
    assert (missing["mode"], missing["fallback"]) == ("keyword", True)


def test_a_keyword_copied_from_an_index_line_works_in_tag_mode(repo: Path) -> None:
    for body in ("First a1 note.", "Second a1 note."):
        assert call("write", "--keyword", "a1", body, cwd=repo).code == 0
    index = (repo / ".pi/agent/memory-auto/MEMORY.md").read_text("utf-8")
    line = next(line for line in index.splitlines() if line.startswith("#a1"))
    assert line == "#a1 (2)"
    data = json.loads(call("search", "--json", "--mode", "tag", line, cwd=repo).out)
    assert (data["mode"], data["total"]) == ("tag", 2)
    data = json.loads(call("search", "--json", "--mode", "tag", "a1 (2)", cwd=repo).out)
    assert data["total"] == 2
