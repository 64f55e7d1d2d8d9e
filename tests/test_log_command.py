"""``log``: the receipts real hooks and jobs wrote, filtered, as a table and as JSON; and
``show``'s paragraph about today's."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pi_memory import receipts
from tests.hookhelp import make_project, payload
from tests.inproc import call

SID = "55443e9c-7173-498f-ab21-5c26c4d6b176"  # the recorded Claude Code payloads' session


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    """A project where Claude Code and Gemini CLI ran their hooks and a review learned."""
    root = make_project(tmp_path)
    assert call("write", "--keyword", "staging-db", "Staging listens on 5433.", cwd=root).code == 0
    ask = "Which port does the staging database listen on?"
    for host, prompt in (("claude-code", "UserPromptSubmit"), ("gemini", "BeforeAgent")):
        start = payload(host, "SessionStart.startup", root)
        assert call("hook", "--host", host, "SessionStart", cwd=root, stdin=start).code == 0
        asked = payload(host, prompt, root, prompt=ask)
        assert call("hook", "--host", host, prompt, cwd=root, stdin=asked).code == 0
    learned = receipts.made(
        receipts.JOB, "review", host="claude-code", session=SID, ids=("m-1", "m-2"),
        layers=("user",), spent=900, note="stored: stored 2 memories",
    )  # fmt: skip
    assert receipts.append(learned)
    return root


def logged(root: Path, *args: str) -> list[dict[str, object]]:
    run = call("log", "--json", *args, cwd=root)
    assert (run.code, run.err) == (0, "")
    data = json.loads(run.out)
    found: list[dict[str, object]] = data["receipts"]
    assert data["count"] >= len(found)
    return found


def test_log_json_lists_every_receipt_oldest_first(worked: Path) -> None:
    every = logged(worked)
    assert [(r["host"], r["kind"], r["event"]) for r in every] == [
        ("claude-code", "hook", "inject"),
        ("claude-code", "hook", "surface"),
        ("gemini", "hook", "inject"),
        ("gemini", "hook", "inject"),  # Gemini CLI takes the index with the first prompt
        ("gemini", "hook", "surface"),
        ("claude-code", "job", "review"),
    ]
    assert list(every[0]) == [
        "at", "host", "session", "kind", "event", "layers", "ids",
        "bytes", "tokens", "spent", "ms", "outcome", "note",
    ]  # fmt: skip


def test_log_filters(worked: Path) -> None:
    assert {r["host"] for r in logged(worked, "--host", "gemini")} == {"gemini"}
    assert {r["session"] for r in logged(worked, "--session", SID)} == {SID}
    assert [r["event"] for r in logged(worked, "--kind", "job")] == ["review"]
    assert [r["host"] for r in logged(worked, "--event", "surface")] == ["claude-code", "gemini"]
    assert [r["event"] for r in logged(worked, "--layer", "user")] == ["review"]
    assert [r["event"] for r in logged(worked, "--memory", "m-2")] == ["review"]
    assert len(logged(worked, "--since", "today")) == 6
    assert logged(worked, "--since", "2999-01-01") == []
    assert [r["event"] for r in logged(worked, "--limit", "1")] == ["review"]
    data = json.loads(call("log", "--json", "--limit", "1", cwd=worked).out)
    assert data["count"] == 6 and data["summary"]["learned"] == 2


def test_log_prints_a_table_a_person_reads(worked: Path) -> None:
    run = call("log", "--host", "claude-code", cwd=worked)
    assert run.code == 0
    head, inject, surface, review = run.out.splitlines()
    assert head.split() == [
        "time", "host", "session", "what", "outcome", "memories", "prompt", "spent", "ms", "note",
    ]  # fmt: skip
    assert "hook inject" in inject and "startup" in inject
    assert "hook surface" in surface and "scorer" in surface
    assert " job review " in review and " 900 " in review and "stored 2 memories" in review
    today = time.strftime("%Y-%m-%d")
    assert all(line.startswith(today) for line in (inject, surface, review))
    older = call("log", "--limit", "2", cwd=worked).out.splitlines()
    assert older[-1] == "(4 older receipts not shown; --limit 0 shows all)"


def test_log_refuses_what_it_cannot_read(worked: Path) -> None:
    run = call("log", "--since", "last tuesday", cwd=worked)
    assert run.code == 1 and run.out == ""
    assert run.err == "pi_memory: --since: not a time: 'last tuesday' (today, 2h, 2026-03-14 …)\n"


def test_an_empty_log_says_so(tmp_path: Path) -> None:
    run = call("log", cwd=tmp_path)
    assert run.out.startswith("no receipts")


def test_since_understands_words_durations_and_dates() -> None:
    now = time.mktime((2026, 3, 14, 15, 30, 0, 0, 0, -1))
    midnight = time.mktime((2026, 3, 14, 0, 0, 0, 0, 0, -1))
    assert receipts.since_seconds("today", now) == midnight
    assert receipts.since_seconds("yesterday", now) == midnight - 86400
    assert receipts.since_seconds("90m", now) == now - 5400
    assert receipts.since_seconds("2h", now) == now - 7200
    assert receipts.since_seconds("7d", now) == now - 7 * 86400
    assert receipts.since_seconds("2026-03-14", now) == midnight
    assert receipts.since_seconds("2026-03-14T15:00", now) == now - 1800
    assert receipts.since_seconds("soon", now) is None


def test_show_sums_up_today(worked: Path) -> None:
    run = call("show", cwd=worked)
    assert run.code == 0
    assert run.out.splitlines()[-1] == (
        "Today: 2 sessions; 2 injected indexes and 2 memories recalled for prompts, "
        f"{sum(r.bytes for r in receipts.read())} bytes "
        f"(~{sum(r.tokens for r in receipts.read())} tokens) put into prompts; 2 learned by "
        "1 background job, 900 model tokens spent. Details: log --since today."
    )
    data = json.loads(call("show", "--json", cwd=worked).out)
    assert data["today"]["learned"] == 2 and data["today"]["receipts"] == 6
