"""What the files layout's memory tool removes or replaces stays recoverable for a while."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inproc import call, tool, user_config


@pytest.fixture
def work(hermetic_home: Path, tmp_path: Path) -> Path:
    user_config(hermetic_home, {"layout": "files", "lock": {"snapshotKeep": 2}})
    path = tmp_path / "work"
    path.mkdir()
    return path


def project_dir(home: Path) -> Path:
    [directory] = (home / ".pi" / "memory" / "local").iterdir()
    return directory


def test_a_removed_memory_is_listed_and_restored_after_many_writes(
    hermetic_home: Path, work: Path
) -> None:
    tool("memory", work, action="add", name="Port", content="SSH on 2222.", description="ssh")
    directory = project_dir(hermetic_home)
    original = (directory / "Port.md").read_bytes()
    assert tool("memory", work, action="remove", name="Port")["ok"]
    assert not (directory / "Port.md").exists()
    for n in range(6):  # more writes than lock.snapshotKeep: .backups/ rotates
        tool("memory", work, action="add", name=f"N{n}", content=f"note {n}.")
    shown = call("show", cwd=work)
    assert (
        "  Recoverable: 1 removed or replaced in the last 30 days "
        "(python -m pi_memory restore --layer project)"
    ) in shown.out.splitlines()
    listed = call("restore", cwd=work).out.splitlines()
    assert len(listed) == 2
    assert listed[0].endswith(" removed   Port — ssh [Port.md]")
    assert listed[1] == "restore one: python -m pi_memory restore --layer project NAME"
    restored = call("restore", "Port", cwd=work)
    assert restored.code == 0, restored.err
    assert restored.out.startswith('restored "Port" (Port.md) as it was before it was removed ')
    assert (directory / "Port.md").read_bytes() == original
    assert "- [Port](Port.md) — ssh" in (directory / "MEMORY.md").read_text("utf-8")


def test_a_replaced_memory_keeps_its_old_text_and_a_restore_can_be_undone(
    hermetic_home: Path, work: Path
) -> None:
    tool("memory", work, action="add", name="Port", content="SSH on 2222.")
    directory = project_dir(hermetic_home)
    first = (directory / "Port.md").read_bytes()
    tool("memory", work, action="replace", name="Port", content="SSH on 2200.")
    second = (directory / "Port.md").read_bytes()
    tool("memory", work, action="add", name="Port", content="SSH on 22.")  # add overwrites too
    third = (directory / "Port.md").read_bytes()
    assert call("restore", "Port", cwd=work).code == 0
    assert (directory / "Port.md").read_bytes() == second  # the newest kept copy
    assert call("restore", "Port.md", cwd=work).code == 0
    assert (directory / "Port.md").read_bytes() == third  # the restore kept what it replaced
    kept = [line for line in call("restore", cwd=work).out.splitlines() if "Port" in line]
    assert len(kept) == 4
    assert first in {p.read_bytes() for p in (directory / ".removed").glob("*/Port.md")}


def test_copies_older_than_keep_removed_days_are_pruned_by_a_later_write(
    hermetic_home: Path, work: Path
) -> None:
    user_config(hermetic_home, {"layout": "files", "keepRemovedDays": 7})
    tool("memory", work, action="add", name="Old", content="old.")
    directory = project_dir(hermetic_home)
    stale = directory / ".removed" / "2020-01-01T00-00-00-000Z-remove"
    stale.mkdir(parents=True)
    (stale / "Ancient.md").write_bytes((directory / "Old.md").read_bytes())
    mine = directory / ".removed" / "notes"  # not named by pi_memory: never touched
    mine.mkdir()
    assert "Ancient.md" in call("restore", cwd=work).out
    tool("memory", work, action="remove", name="Old")
    assert not stale.exists()
    assert mine.is_dir()
    listed = call("restore", cwd=work).out
    assert "Ancient.md" not in listed and "[Old.md]" in listed
    data = json.loads(call("show", "--json", cwd=work).out)
    assert data["layers"]["project"]["status"]["recoverable"] == 1


def test_a_copy_that_cannot_be_kept_stops_the_remove(hermetic_home: Path, work: Path) -> None:
    tool("memory", work, action="add", name="Port", content="SSH on 2222.")
    directory = project_dir(hermetic_home)
    (directory / ".removed").write_text("in the way", "utf-8")
    answer = tool("memory", work, action="remove", name="Port")
    assert not answer["ok"]
    assert (directory / "Port.md").is_file()
    assert "- [Port](Port.md)" in (directory / "MEMORY.md").read_text("utf-8")


def test_restore_answers_plainly(hermetic_home: Path, work: Path) -> None:
    assert call("restore", cwd=work).out == (
        "nothing the memory tool removed or replaced in the last 30 days\n"
    )
    missing = call("restore", "Nope", cwd=work)
    assert (missing.code, missing.out) == (1, "")
    assert missing.err.strip().endswith('no removed or replaced memory "Nope" is kept')
    user_config(hermetic_home, {"layout": "categories"})
    refused = call("restore", cwd=work)
    assert refused.code != 0
    assert "never deletes a memory" in refused.err
