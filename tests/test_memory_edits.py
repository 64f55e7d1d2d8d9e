"""A person's changes to stored memories (the viewer's actions), on both layouts:
edit with a check against a stale read, remove and restore, retire one for another."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from pi_memory import memory_edits
from pi_memory.entry import PROJECT, Entry
from pi_memory.errors import EntryRejected
from pi_memory.open_store import open_store
from pi_memory.store import Store
from tests.clihelp import run_process

NOW = datetime(2026, 11, 30, 12, 0, 0)


@pytest.fixture(params=("categories", "files"))
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


def fresh(project: Path) -> Store:
    return open_store(project, warn=False).store


def one(project: Path, entry_id: str) -> Entry:
    return next(e for e in fresh(project).read(PROJECT) if e.id == entry_id)


def written(project: Path, body: str, keyword: str = "deploy") -> Entry:
    return fresh(project).write(PROJECT, body, [keyword], now=NOW).entry


def test_an_edit_changes_the_text_and_keeps_the_old_one(layout: str, project: Path) -> None:
    entry = written(project, "Deploy with make deploy")
    seen = memory_edits.version(one(project, entry.id))
    memory_edits.edit(fresh(project), PROJECT, entry.id, "Deploy with make ship", seen)
    after = one(project, entry.id)
    assert after.body == "Deploy with make ship"
    assert (after.id, after.keyword) == (entry.id, entry.keyword)
    bodies = [v.entry.body for v in memory_edits.history(fresh(project), PROJECT, entry.id)]
    assert "Deploy with make deploy" in bodies


def test_an_edit_of_a_memory_changed_meanwhile_is_refused(layout: str, project: Path) -> None:
    entry = written(project, "Deploy with make deploy")
    seen = memory_edits.version(one(project, entry.id))
    # Another process (a hook, a session) writes the same memory again: seen 2.
    assert (
        run_process("write", "--keyword", "deploy", "Deploy with make deploy", cwd=project).code
        == 0
    )
    with pytest.raises(memory_edits.StaleEdit, match="changed on disk"):
        memory_edits.edit(fresh(project), PROJECT, entry.id, "my old page's text", seen)
    after = one(project, entry.id)
    assert (after.body, after.seen) == ("Deploy with make deploy", 2)


def test_an_edit_passes_the_write_checks(layout: str, project: Path) -> None:
    entry = written(project, "Deploy with make deploy")
    seen = memory_edits.version(entry)
    with pytest.raises(EntryRejected, match="HTML comment"):
        memory_edits.edit(fresh(project), PROJECT, entry.id, "a --> b", seen)
    with pytest.raises(EntryRejected, match="control character"):
        memory_edits.edit(fresh(project), PROJECT, entry.id, "bell \x07", seen)
    assert one(project, entry.id).body == "Deploy with make deploy"


def test_a_removed_memory_can_be_restored(layout: str, project: Path) -> None:
    entry = written(project, "Deploy with make deploy")
    keep = written(project, "Tests run with pytest -q", "testing")
    memory_edits.remove(
        fresh(project), PROJECT, entry.id, memory_edits.version(one(project, entry.id))
    )
    assert [e.id for e in fresh(project).read(PROJECT)] == [keep.id]
    gone = memory_edits.removed(fresh(project), PROJECT)
    assert [r.entry.id for r in gone] == [entry.id]
    memory_edits.restore(fresh(project), PROJECT, entry.id)
    back = one(project, entry.id)
    assert back.body == "Deploy with make deploy"
    assert memory_edits.removed(fresh(project), PROJECT) == []
    with pytest.raises(EntryRejected, match="already"):
        memory_edits.restore(fresh(project), PROJECT, entry.id)


def test_retire_supersedes_one_side_and_keeps_both(layout: str, project: Path) -> None:
    old = written(project, "The staging database listens on port 5432", "database")
    new = written(project, "The staging database listens on port 6543", "database")
    store = fresh(project)
    memory_edits.retire(
        store,
        PROJECT,
        (old.id, memory_edits.version(one(project, old.id))),
        (new.id, memory_edits.version(one(project, new.id))),
        body="The staging database listens on port 6543 (since November)",
    )
    entries = {e.id: e for e in fresh(project).read(PROJECT)}
    assert entries[old.id].superseded_by == new.id
    assert old.id in entries[new.id].supersedes
    assert entries[new.id].body.endswith("(since November)")


def test_retire_refuses_what_cannot_be(layout: str, project: Path) -> None:
    a = written(project, "The staging database listens on port 5432", "database")
    version = memory_edits.version(one(project, a.id))
    with pytest.raises(EntryRejected, match="itself"):
        memory_edits.retire(fresh(project), PROJECT, (a.id, version), (a.id, version))
    with pytest.raises(memory_edits.StaleEdit, match="no longer"):
        memory_edits.retire(fresh(project), PROJECT, (a.id, version), ("20260101-dead", "x"))
