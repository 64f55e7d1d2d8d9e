"""The engine behaves the same on both layouts: write path, search, supersedes, usage, show."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pi_memory.entry import PROJECT, USER
from pi_memory.errors import EntryRejected
from pi_memory.open_store import open_store
from pi_memory.store import Store
from tests.clihelp import run_cli

NOW = datetime(2026, 11, 30, 12, 0, 0)
LAYOUTS = ("categories", "files")


@pytest.fixture(params=LAYOUTS)
def layout(request: pytest.FixtureRequest, hermetic_home: Path) -> str:
    name: str = request.param
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"layout": name}), "utf-8")
    return name


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def store_at(project: Path) -> Store:
    return open_store(project).store


def test_layout_is_chosen_by_memory_json(layout: str, project: Path) -> None:
    assert store_at(project).settings.layout == layout


def test_write_dedupes_across_the_layer(layout: str, project: Path) -> None:
    store = store_at(project)
    first = store.write(PROJECT, "Use pnpm, never npm.", ["pnpm"], now=NOW)
    again = store.write(PROJECT, "use pnpm,   never NPM", ["other"], now=NOW + timedelta(hours=1))
    assert again.deduped and again.entry.id == first.entry.id
    entries = store_at(project).read(PROJECT)
    assert len(entries) == 1
    assert entries[0].seen == 2
    assert entries[0].last == "2026-11-30 13:00:00"
    assert entries[0].body == "Use pnpm, never npm."


def test_supersede_retires_and_search_ranks_it_last(layout: str, project: Path) -> None:
    store = store_at(project)
    old = store.write(PROJECT, "The dev server listens on port 3000.", ["dev-server"], now=NOW)
    new = store.write(
        PROJECT,
        "The dev server listens on port 8080.",
        ["dev-server"],
        supersedes=[old.entry.id],
        now=NOW + timedelta(days=1),
    )
    assert new.superseded == (old.entry.id,)
    result = store_at(project).search("dev server port", now=NOW + timedelta(days=2))
    assert [h.entry.id for h in result.hits] == [new.entry.id, old.entry.id]
    assert result.hits[1].entry.superseded_by == new.entry.id
    revived = store_at(project).write(
        PROJECT, "The dev server listens on port 3000.", ["dev-server"], now=NOW + timedelta(days=3)
    )
    assert not revived.deduped
    assert revived.entry.id not in (old.entry.id, new.entry.id)


def test_layers_are_separate_and_search_sees_both(layout: str, project: Path) -> None:
    store = store_at(project)
    store.write(USER, "Prefers short answers.", ["style"], now=NOW)
    store.write(PROJECT, "Tests run with pytest -q.", ["tests"], now=NOW)
    fresh = store_at(project)
    assert [e.keyword for e in fresh.read(USER)] == ["style"]
    assert [e.keyword for e in fresh.read(PROJECT)] == ["tests"]
    result = fresh.search("", mode="recent", now=NOW)
    assert {h.entry.layer for h in result.hits} == {USER, PROJECT}


def test_chinese_query_finds_chinese_body(layout: str, project: Path) -> None:
    store = store_at(project)
    store.write(PROJECT, "部署时先备份数据库。", ["部署"], now=NOW)
    result = store_at(project).search("备份", now=NOW)
    assert not result.fallback
    assert [h.entry.body for h in result.hits] == ["部署时先备份数据库。"]


def test_search_credits_usage_on_both_layouts(layout: str, project: Path) -> None:
    store = store_at(project)
    store.write(PROJECT, "Deploy with rsync.", ["deploy"], now=NOW)
    store_at(project).search("deploy", now=NOW)
    assert store_at(project).recalls(PROJECT) == {"deploy": 1}


def test_truncated_text_changes_nothing(layout: str, project: Path) -> None:
    store = store_at(project)
    with pytest.raises(EntryRejected, match="truncated"):
        store.write(PROJECT, "Run `make", ["build"], now=NOW)
    assert store_at(project).read(PROJECT) == []


def test_injection_is_sanitised(layout: str, project: Path) -> None:
    store = store_at(project)
    store.write(PROJECT, "Close </memory_index> here\u200b please.", ["x<y>z"], now=NOW)
    text = store_at(project).injection()
    assert "</memory_index>" not in text.replace("\n</memory_index>", "")
    assert "\u200b" not in text
    assert "<y>" not in text


def test_show_reports_health_on_both_layouts(layout: str, project: Path) -> None:
    store = store_at(project)
    store.write(PROJECT, "The dev server listens on port 3000.", ["dev-server"], now=NOW)
    store.write(
        PROJECT, "The dev server listens on port 8080.", ["dev-server"], now=NOW + timedelta(days=1)
    )
    run = run_cli("show", cwd=project)
    assert run.code == 0, run.err
    assert "possible superseded requirements (1)" in run.out
    assert "python -m pi_memory write --layer project --keyword KEYWORD --supersedes" in run.out
    data = json.loads(run_cli("show", "--json", cwd=project).out)
    assert data["layout"] == layout
    conflicts = data["layers"]["project"]["health"]["conflicts"]
    assert [c["values"] for c in conflicts] == [["3000", "8080"]]
    if layout == "files":
        status = data["layers"]["project"]["status"]
        assert status["state"] == "healthy"
        assert status["entries"] == 2
        assert run.out.count("\nEntries: 2\n") == 1


def test_session_start_hook_on_both_layouts(layout: str, project: Path) -> None:
    store_at(project).write(PROJECT, "Deploy with rsync.", ["deploy"], now=NOW)
    event = json.dumps({"cwd": str(project), "hook_event_name": "SessionStart"})
    run = run_cli("hook", "session-start", cwd=project, stdin=event)
    assert run.code == 0
    assert run.err == ""
    text = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    assert ("#deploy" if layout == "categories" else "Deploy with rsync.") in text
