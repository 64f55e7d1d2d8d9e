"""A memory's size: refused over ``memoryMaxBytes`` on every write path, and a huge
row already stored is shown clipped, quickly, by every reader."""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Final

import pytest

from pi_memory.agent_tools.memory import run_memory_tool
from pi_memory.config.defaults import MEMORY_MAX_BYTES, TOOL_RESULT_MAX_BYTES
from pi_memory.jobs.consolidate_plan import parse_plan
from pi_memory.jobs.dream_categories import CategoriesStaging
from pi_memory.jobs.review import parse_review
from pi_memory.jobs.staging import MAIN_ACTIONS, Staging
from pi_memory.model.types import ToolCall
from tests.clihelp import run_process
from tests.conftest import files_store
from tests.inproc import call, tool, user_config
from tests.mcpclient import McpClient

NOW = datetime(2026, 10, 2, 8, 14, 3, tzinfo=timezone.utc)
#: One byte over the default limit, in words a memory could hold.
TOO_LARGE = ("Deploy with make ship. " * 200)[:MEMORY_MAX_BYTES] + "x"
LIMIT = f"over the limit of {MEMORY_MAX_BYTES:,} bytes (memoryMaxBytes in memory.json)"


def test_the_default_is_a_few_kilobytes() -> None:
    assert 2048 <= MEMORY_MAX_BYTES <= 8192
    assert len(TOO_LARGE.encode()) == MEMORY_MAX_BYTES + 1


# -- every write path refuses a body over the limit, naming it ---------------------------


def test_write_refuses_a_body_over_the_limit(repo: Path) -> None:
    run = call("write", "--keyword", "deploy", "-", cwd=repo, stdin=TOO_LARGE)
    assert run.code == 1
    assert f"the memory body is {MEMORY_MAX_BYTES + 1:,} bytes, {LIMIT}" in run.err
    assert call("search", "--mode", "recent", cwd=repo).out.count("[") == 0


def test_the_limit_is_a_setting(repo: Path, hermetic_home: Path) -> None:
    user_config(hermetic_home, {"memoryMaxBytes": 8192})
    assert call("write", "--keyword", "deploy", "-", cwd=repo, stdin=TOO_LARGE).code == 0
    user_config(hermetic_home, {"memoryMaxBytes": 1000})
    run = call("write", "--keyword", "deploy", "-", cwd=repo, stdin="x " * 600)
    assert run.code == 1 and "over the limit of 1,000 bytes (memoryMaxBytes" in run.err


def test_a_huge_body_is_refused_at_once(repo: Path) -> None:
    flood = "word " * 4_000_000  # 20 MB
    started = time.monotonic()
    run = call("write", "--keyword", "flood", "-", cwd=repo, stdin=flood)
    assert run.code == 1 and "20,000,000 bytes" not in run.err and LIMIT in run.err
    assert time.monotonic() - started < 10


def test_the_agent_tool_refuses_a_body_over_the_limit(repo: Path) -> None:
    answer = tool("memory_write", repo, body=TOO_LARGE, keyword="deploy")
    assert answer["ok"] is False and LIMIT in answer["text"]


def test_the_mcp_server_refuses_a_body_over_the_limit(repo: Path) -> None:
    client = McpClient(repo)
    try:
        client.initialize()
        ok, text = client.call("memory_write", body=TOO_LARGE, keyword="deploy")
        assert not ok and LIMIT in text
        ok, text = client.call("memory_write", body="Deploy with make ship.", keyword="deploy")
        assert ok, text
    finally:
        client.close()


def test_the_files_layout_memory_tool_refuses_content_over_the_limit(tmp_path: Path) -> None:
    store = files_store(tmp_path / "project")
    add = {"action": "add", "name": "deploy", "content": TOO_LARGE}
    result = run_memory_tool(store, "project", add, NOW)
    assert not result.ok and result.text == f"content is {MEMORY_MAX_BYTES + 1:,} bytes, {LIMIT}"
    ok = run_memory_tool(store, "project", {**add, "content": "Deploy with make ship."}, NOW)
    assert ok.ok, ok.text
    bigger = {"action": "replace", "name": "deploy", "content": TOO_LARGE}
    assert LIMIT in run_memory_tool(store, "project", bigger, NOW).text
    long_line = {"action": "replace", "name": "deploy", "description": "d" * 5000}
    assert LIMIT in run_memory_tool(store, "project", long_line, NOW).text
    assert [e.body for e in store.read("project")] == ["Deploy with make ship."]


def test_a_headless_agent_hears_the_limit_at_once(tmp_path: Path) -> None:
    staging = Staging([], MAIN_ACTIONS, NOW, max_body_bytes=MEMORY_MAX_BYTES)
    args = {"action": "add", "name": "deploy", "content": TOO_LARGE}
    answer = staging.answer(ToolCall("1", "memory", args))
    assert LIMIT in answer and staging.staged == []
    categories = CategoriesStaging([], "project", NOW, MEMORY_MAX_BYTES)
    answer = categories.answer(ToolCall("2", "write", {"body": TOO_LARGE, "keyword": "deploy"}))
    assert LIMIT in answer and categories.writes == []


def test_a_review_leaves_out_a_body_over_the_limit() -> None:
    reply = f"===MEMORY===\nKEYWORD: deploy\nBODY:\n{TOO_LARGE}\n"
    plan = parse_review(
        reply, max_entries=5, known={}, categories=True, max_body_bytes=MEMORY_MAX_BYTES
    )
    assert plan.entries == () and any(LIMIT in why for why in plan.rejected)


def test_a_merge_never_applies_a_text_over_the_limit(repo: Path) -> None:
    from pi_memory.open_store import open_store

    for body in ("Deploy with make ship.", "Deploy by running make ship."):
        assert call("write", "--keyword", "deploy", body, cwd=repo).code == 0
    import os

    os.chdir(repo)
    pool = open_store().store.read("project")
    keep, drop = pool[0].id, pool[1].id
    reply = f"===MERGE===\nKEEP: {keep}\nDROP: {drop}\nTEXT:\n{TOO_LARGE}\n"
    plan = parse_plan(reply, pool, max_body_bytes=MEMORY_MAX_BYTES)
    assert TOO_LARGE not in [m.text for m in plan.merges]
    assert any(LIMIT in why for why in plan.rejected)


def test_import_refuses_a_memory_over_the_limit(repo: Path, hermetic_home: Path) -> None:
    user_config(hermetic_home, {"memoryMaxBytes": 8192})
    assert call("write", "--keyword", "deploy", "-", cwd=repo, stdin=TOO_LARGE).code == 0
    user_config(hermetic_home, {"memoryMaxBytes": 4096})
    run = call("import", "--from", "categories", "--to", "files", "project", cwd=repo)
    assert run.code == 1 and LIMIT in run.err


# -- a huge row already stored: every reader stays quick and shows it clipped -------------


#: Processor time a reader of the 3 MB row may take (about 1 s here, cold): the
#: machine's load stretches the wall clock, not this.
CPU_SECONDS: Final = 10.0


@contextmanager
def cpu_seconds() -> Iterator[Callable[[], float]]:
    """The processor time of the child processes run inside the block."""

    def total() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before = total()
    after: list[float] = []
    yield lambda: after[0] - before
    after.append(total())


@pytest.fixture
def huge_row(repo: Path) -> Path:
    """A project layer holding one ordinary memory and one 3 MB row written by hand."""
    assert call("write", "--keyword", "deploy", "Deploy with make ship.", cwd=repo).code == 0
    rows = repo / ".pi" / "agent" / "memory-auto" / "CONVENTIONS.md"
    body = "\n".join(f"line {n} of a cloned file: flood flood flood flood" for n in range(60_000))
    assert len(body) > 3_000_000
    with rows.open("a", encoding="utf-8") as out:
        out.write(
            "\n<!-- mid: 20261001-beef | t: 2026-10-01 09:00:00 | p: repo | src: user "
            f"| tags: flood -->\n{body}\n"
        )
    return repo


@pytest.mark.parametrize(
    "args",
    [("show",), ("search", "flood"), ("search", "--mode", "recent"), ("search", "--json", "flood")],
)
def test_reading_a_huge_row_is_quick_and_clipped(huge_row: Path, args: tuple[str, ...]) -> None:
    with cpu_seconds() as spent:
        run = run_process(*args, cwd=huge_row)
    assert run.code == 0, run.err
    assert len(run.out.encode()) < MEMORY_MAX_BYTES + 4096, len(run.out)
    if args[0] == "search":
        assert "more bytes not shown; the whole text is in project/CONVENTIONS.md" in run.out
    assert spent() < CPU_SECONDS


def test_the_session_start_hook_with_a_huge_row_is_quick(huge_row: Path) -> None:
    event = {"session_id": "s1", "cwd": str(huge_row), "hook_event_name": "SessionStart"}
    with cpu_seconds() as spent:
        run = run_process(
            "hook", "--host", "claude-code", "SessionStart", cwd=huge_row, stdin=json.dumps(event)
        )
    assert run.code == 0, run.err
    assert "#deploy" in run.out and "flood flood" not in run.out
    assert len(run.out.encode()) < 20_000
    assert spent() < CPU_SECONDS


def test_a_tool_answer_is_capped(huge_row: Path) -> None:
    answer = tool("memory_search", huge_row, query="flood")
    assert answer["ok"] is True
    assert len(answer["text"].encode()) <= MEMORY_MAX_BYTES + 1024
    assert "more bytes not shown" in answer["text"]


def test_a_page_of_many_large_memories_is_capped_whole(repo: Path) -> None:
    for n in range(10):
        body = f"Release step {n}: " + ("ship it carefully " * 220)[:4000]
        assert call("write", "--keyword", f"release {n}", body, cwd=repo).code == 0, n
    answer = tool("memory_search", repo, query="release")
    text = answer["text"]
    assert len(text.encode()) <= TOOL_RESULT_MAX_BYTES + 200
    assert text.endswith("ask for less: a narrower query, a later page, or one memory by id]")


def test_a_consolidation_page_shows_a_huge_row_clipped_and_never_rewrites_it() -> None:
    from pi_memory.entry import PROJECT, Entry
    from pi_memory.jobs.consolidate_plan import page_prompt

    def entry(n: int, body: str) -> Entry:
        return Entry(
            id=f"20261001-{n:04x}",
            time="2026-10-01 09:00:00",
            project="repo",
            src="user",
            keyword="flood",
            body=body,
            layer=PROJECT,
            file="CONVENTIONS.md",
        )

    huge = entry(1, "flood " * 500_000)  # 3 MB, written by hand
    small = entry(2, "Flood the cache before a deploy.")
    page = page_prompt([huge, small], [huge, small])
    assert len(page.encode()) < MEMORY_MAX_BYTES + 4096, len(page)
    assert "more bytes not shown; the whole text is in CONVENTIONS.md" in page
    assert "Flood the cache before a deploy." in page

    # Its text is more than the model saw: a merge may fold others into it, not rewrite it.
    rewrite = f"===MERGE===\nKEEP: {huge.id}\nDROP: {small.id}\nTEXT:\nFlood it.\n"
    plan = parse_plan(rewrite, [huge, small], max_body_bytes=MEMORY_MAX_BYTES)
    assert plan.merges == () and any(LIMIT in why for why in plan.rejected), plan.rejected
    fold = f"===MERGE===\nKEEP: {huge.id}\nDROP: {small.id}\n"
    plan = parse_plan(fold, [huge, small], max_body_bytes=MEMORY_MAX_BYTES)
    assert [(m.keep, m.drop, m.text) for m in plan.merges] == [(huge.id, (small.id,), "")]
