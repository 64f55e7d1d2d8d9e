"""A keyword that is not text is refused at the door; a damaged one on disk never blocks a layer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inproc import call

LAYER = Path(".pi/agent/memory-auto")


def stored_files(root: Path) -> list[str]:
    layer = root / LAYER
    return sorted(p.name for p in layer.iterdir()) if layer.is_dir() else []


@pytest.mark.parametrize("keyword", ["kw\udcff", "a\ud800b"], ids=["invalid-utf8", "surrogate"])
def test_a_keyword_that_is_not_text_is_refused_and_nothing_is_stored(
    repo: Path, keyword: str
) -> None:
    run = call("write", "--keyword", keyword, "A body of text.", cwd=repo)
    assert run.code == 1 and run.out == ""
    assert run.err.count("\n") == 1
    assert "not valid UTF-8" in run.err
    assert "Traceback" not in run.err
    assert stored_files(repo) == []


def test_the_tool_refuses_a_lone_surrogate_keyword(repo: Path) -> None:
    args = '{"body": "A body of text.", "keywords": ["kw\\udcff"]}'
    run = call("tool", "memory_write", stdin=args, cwd=repo)
    answer = json.loads(run.out)
    assert answer["ok"] is False
    assert "not valid UTF-8" in answer["text"] and "internal error" not in answer["text"]
    assert stored_files(repo) == []


def test_a_body_that_is_not_text_is_refused(repo: Path) -> None:
    args = '{"body": "half \\udcff a body", "keywords": ["ok"]}'
    run = call("tool", "memory_write", stdin=args, cwd=repo)
    answer = json.loads(run.out)
    assert answer["ok"] is False and "not valid UTF-8" in answer["text"]
    assert stored_files(repo) == []


def test_a_damaged_keyword_on_disk_never_blocks_the_layer(
    repo: Path,
    hermetic_home: Path,
) -> None:
    layer = repo / LAYER
    layer.mkdir(parents=True)
    damaged = (
        b"<!-- mid: 20261001-0001 | t: 2026-10-01 10:00:00 | p: repo | src: user"
        b" | tags: kw\xff -->\nA row whose keyword lost a byte.\n"
    )
    (layer / "CONVENTIONS.md").write_bytes(damaged)

    run = call("write", "--keyword", "ok", "A second memory.", cwd=repo)
    assert (run.code, run.err) == (0, "")
    assert (layer / "CONVENTIONS.md").read_bytes().startswith(damaged)
    assert b"#kw\xff" in (layer / "MEMORY.md").read_bytes()

    run = call("rebuild", "project", cwd=repo)
    assert (run.code, run.err) == (0, "")

    run = call("search", "--mode", "tag", "kw\udcff", cwd=repo)
    assert (run.code, run.err) == (0, "")
    assert "A row whose keyword lost a byte." in run.out
    assert b"kw\xff" in (layer / "usage.json").read_bytes()
    # The credit survives the next read of the log.
    run = call("search", "--mode", "tag", "kw\udcff", cwd=repo)
    assert json.loads((layer / "usage.json").read_bytes().decode("utf-8", "replace")) != {}

    event = json.dumps({"cwd": str(repo), "hook_event_name": "SessionStart"})
    run = call("hook", "session-start", stdin=event, cwd=repo)
    assert (run.code, run.err) == (0, "")
    context = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    assert "#kw\ufffd" in context
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in context)
    assert not (hermetic_home / ".pi/agent/memory-auto/pi_memory.log").exists()


def test_a_damaged_row_imports_into_the_files_layout(repo: Path) -> None:
    layer = repo / LAYER
    layer.mkdir(parents=True)
    (layer / "CONVENTIONS.md").write_bytes(
        b"<!-- mid: 20261001-0001 | t: 2026-10-01 10:00:00 | p: repo | src: user"
        b" | tags: kw\xff -->\nA row whose body lost a byte \xfe here.\n"
    )
    run = call("import", "--from", "categories", "--to", "files", "project", cwd=repo)
    assert (run.code, run.err) == (0, "")
    assert run.out.startswith("imported 1 new memor")
    again = call("import", "--from", "categories", "--to", "files", "project", cwd=repo)
    assert again.code == 0, again.err
