"""sessions search over real transcript samples laid out where each agent keeps them."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from pi_memory.agent_tools.registry import call_tool
from tests.conftest import DATA
from tests.inproc import call

SAMPLES = DATA / "transcripts"
#: Where each sample goes under HOME, and its modification time (newest last).
LAYOUT = {
    "claude_code_recorded_1.jsonl": (
        ".claude/projects/-srv-e2e-cc-run-proj/dad98d13-0000-4000-8000-000000000001.jsonl",
        1_000,
    ),
    "codex_rollout.jsonl": (
        ".codex/sessions/2026/11/30/rollout-2026-11-30T11-00-00-0199a0b2.jsonl",
        2_000,
    ),
    "gemini_session.json": (".gemini/tmp/9f2c/chats/session-2026-11-30T12-00-5b3c9a10.json", 3_000),
    "pi_recorded_1.jsonl": (
        ".pi/agent/sessions/--srv-e2e-pi-rpc-proj--/2026-11-30T03-34-10-912Z_01a22a84.jsonl",
        4_000,
    ),
}
NOW = 1_790_000_000
#: The sample's own sessionId (the file name here is made up).
CLAUDE_ID = json.loads((SAMPLES / "claude_code_recorded_1.jsonl").read_text().splitlines()[1])[
    "sessionId"
]


def lay_out(home: Path) -> None:
    for sample, (relative, age) in LAYOUT.items():
        target = home / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / sample, target)
        os.utime(target, (NOW + age, NOW + age))


def search(tmp_path: Path, *args: str) -> dict[str, object]:
    result = call("sessions", "search", "--json", *args, cwd=tmp_path)
    assert (result.code, result.err) == (0, "")
    data: dict[str, object] = json.loads(result.out)
    return data


def test_every_host_is_searched_newest_first(tmp_path: Path, hermetic_home: Path) -> None:
    lay_out(hermetic_home)
    data = search(tmp_path, "teal")
    hits = data["results"]
    assert isinstance(hits, list)
    assert [(h["host"], h["session_id"]) for h in hits] == [
        ("pi", "01a22a8e-4bef-7548-b654-1319d547455c"),
        ("claude-code", CLAUDE_ID),
    ]
    assert all("teal" in h["snippet"] for h in hits)
    assert hits[0]["project"] == "/srv/e2e/pi-rpc/proj"
    codex = search(tmp_path, "pnpm")["results"]
    assert [(h["host"], h["session_id"], h["project"]) for h in codex] == [  # type: ignore[union-attr]
        ("codex", "0199a0b2-1111-7000-8000-000000000002", "/home/u/proj")
    ]
    gemini = search(tmp_path, "mkdocs", "pipx")["results"]
    assert [(h["host"], h["session_id"]) for h in gemini] == [  # type: ignore[union-attr]
        ("gemini", "5b3c9a10-2222-4c1d-9e00-000000000004")
    ]
    assert data["stopped"] == "" and data["scanned"] == 4


def test_gemini_cli_0_61_chat_files_are_found_without_their_injected_context(
    tmp_path: Path, hermetic_home: Path
) -> None:
    # Gemini CLI 0.61 appends to session-*.jsonl and names the project in .project_root.
    project = hermetic_home / ".gemini" / "tmp" / "proj"
    (project / "chats").mkdir(parents=True)
    (project / ".project_root").write_text("/srv/e2e/gemini/proj", "utf-8")
    chat = project / "chats" / "session-2026-12-01T03-05-1b727ac8.jsonl"
    shutil.copyfile(SAMPLES / "gemini_recorded.jsonl", chat)
    hits = search(tmp_path, "rsync", "delete")["results"]
    assert [(h["host"], h["session_id"], h["project"]) for h in hits] == [  # type: ignore[union-attr]
        ("gemini", "1b727ac8-a602-4d22-b58b-a95f1ce67b59", "/srv/e2e/gemini/proj")
    ]
    # The index the hooks put into each prompt is in the file, but nobody said it.
    assert search(tmp_path, "supersede", "older")["results"] == []


def test_filters_by_host_and_project(tmp_path: Path, hermetic_home: Path) -> None:
    lay_out(hermetic_home)
    only = search(tmp_path, "teal", "--host", "claude-code")["results"]
    assert [h["host"] for h in only] == ["claude-code"]  # type: ignore[union-attr]
    assert search(tmp_path, "teal", "--project", "pi-rpc")["results"][0]["host"] == "pi"  # type: ignore[index]
    assert search(tmp_path, "teal", "--project", "elsewhere")["results"] == []


def test_every_word_must_be_in_one_message(tmp_path: Path, hermetic_home: Path) -> None:
    lay_out(hermetic_home)
    assert search(tmp_path, "pnpm", "mkdocs")["results"] == []  # two sessions, never one message


def test_text_form_names_session_date_project_and_snippet(
    tmp_path: Path, hermetic_home: Path
) -> None:
    lay_out(hermetic_home)
    out = call("sessions", "search", "pnpm", cwd=tmp_path).out
    lines = out.splitlines()
    assert lines[0] == '1 past session mentions "pnpm" (newest first; 4 looked at)'
    assert lines[2].endswith("  codex  0199a0b2-1111-7000-8000-000000000002  /home/u/proj")
    assert "pnpm" in lines[3]


def test_stops_at_the_page_and_at_the_scan_bound(tmp_path: Path, hermetic_home: Path) -> None:
    folder = hermetic_home / ".codex" / "sessions" / "2026" / "11" / "30"
    folder.mkdir(parents=True)
    for n in range(30):
        target = folder / f"rollout-2026-11-30T11-00-{n:02d}-x.jsonl"
        shutil.copyfile(SAMPLES / "codex_rollout.jsonl", target)
        os.utime(target, (NOW + n, NOW + n))
    data = search(tmp_path, "pnpm", "--limit", "3")
    assert (len(data["results"]), data["scanned"]) == (3, 3)  # type: ignore[arg-type]
    assert data["stopped"] == "the first 3 matching sessions"
    assert data["results"][0]["path"].endswith("-29-x.jsonl")  # type: ignore[index]
    data = search(tmp_path, "nowhere", "--max-sessions", "5")
    assert (data["results"], data["scanned"], data["stopped"]) == ([], 5, "5 sessions looked at")


def test_the_tool_and_the_memory_tools_sessions_scope(
    tmp_path: Path, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lay_out(hermetic_home)
    monkeypatch.chdir(tmp_path)
    ok, text = call_tool("session_search", {"query": "pipx"})
    assert ok and text.startswith('1 past session mentions "pipx"')
    assert "gemini  5b3c9a10-2222-4c1d-9e00-000000000004" in text
    assert call_tool("session_search", {"query": " "}) == (
        False,
        '"query" must hold the words to find',
    )
    assert call_tool("session_search", {"query": "x", "host": "vim"})[0] is False
    config = hermetic_home / ".pi" / "agent" / "memory.json"
    config.write_text('{"layout": "files"}')
    ok, text = call_tool("memory", {"action": "search", "query": "pnpm", "scope": "sessions"})
    assert ok and "codex  0199a0b2" in text


def test_a_query_is_required(tmp_path: Path) -> None:
    result = call("sessions", "search", cwd=tmp_path)
    assert result.code == 1 and result.err.count("\n") == 1
