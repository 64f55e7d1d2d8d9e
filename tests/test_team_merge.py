"""The project layer merges with plain git: two clones, a commit on each, a merge."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_memory.layouts.categories.layer import GITATTRIBUTES, GITATTRIBUTES_TEXT
from tests.inproc import call

LAYER = Path(".pi/agent/memory-auto")


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Teammate")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "teammate@example.invalid")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=60
    )


def write(clone: Path, keyword: str, body: str) -> None:
    result = call("write", "--keyword", keyword, body, cwd=clone)
    assert result.code == 0, result.err


def commit(clone: Path, message: str) -> None:
    assert git(clone, "add", "-A").returncode == 0
    done = git(clone, "commit", "-q", "-m", message)
    assert done.returncode == 0, done.stderr


def memories(clone: Path) -> list[dict[str, object]]:
    found = call("search", "--json", "--mode", "recent", cwd=clone)
    assert found.code == 0, found.err
    hits: list[dict[str, object]] = json.loads(found.out)["results"]
    return hits


def test_two_branches_that_each_add_a_memory_merge_cleanly(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    assert git(origin, "init", "-q", "-b", "main").returncode == 0
    write(origin, "deploy", "Deploy with rsync.")
    assert (origin / LAYER / GITATTRIBUTES).read_text("utf-8") == GITATTRIBUTES_TEXT
    commit(origin, "first memory")
    a, b = tmp_path / "a", tmp_path / "b"
    assert git(tmp_path, "clone", "-q", str(origin), str(a)).returncode == 0
    assert git(tmp_path, "clone", "-q", str(origin), str(b)).returncode == 0
    # Each teammate trusts the layer the repository brought (once): the others'
    # memories reach their model from then on, marked as from the repository.
    for clone in (a, b):
        assert call("trust", cwd=clone).code == 0

    write(a, "lint", "Run ruff before every commit.")
    write(a, "deploy", "Deploy with rsync.")  # re-confirmed: seen 2
    commit(a, "a's memories")
    write(b, "pnpm", "Use pnpm, not npm.")
    for _ in range(2):
        write(b, "deploy", "Deploy with rsync.")  # re-confirmed twice: seen 3
    commit(b, "b's memories")

    merged = git(b, "pull", "-q", "--no-rebase", "--no-edit", str(a), "main")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert git(b, "diff", "--name-only", "--diff-filter=U").stdout == ""
    layer = b / LAYER
    for path in layer.iterdir():
        if path.is_file():
            assert "<<<<<<<" not in path.read_text("utf-8"), path.name

    # Folded on read: one memory per id, the larger seen count.
    found = memories(b)
    bodies = sorted(str(hit["body"]) for hit in found)
    assert bodies == ["Deploy with rsync.", "Run ruff before every commit.", "Use pnpm, not npm."]
    assert len({hit["id"] for hit in found}) == 3
    [deploy] = [hit for hit in found if hit["body"] == "Deploy with rsync."]
    assert deploy["seen"] == 3
    conventions = (layer / "CONVENTIONS.md").read_text("utf-8")
    assert conventions.count(f"mid: {deploy['id']}") == 2  # on disk until the next write

    # Repaired by the next write: one row per id, and MEMORY.md rebuilt from the rows.
    write(b, "docker", "The dev database runs in docker compose.")
    conventions = (layer / "CONVENTIONS.md").read_text("utf-8")
    assert conventions.count(f"mid: {deploy['id']}") == 1
    assert "| seen: 3 |" in conventions
    assert len(memories(b)) == 4
    index = (layer / "MEMORY.md").read_text("utf-8")
    assert index.count("<!-- stats:") == 1
    assert index.splitlines()[2:] == ["#deploy", "#docker", "#lint", "#pnpm"]
    commit(b, "merged memories")
    # Merging back the other way is a fast-forward, and a's store reads the same.
    assert git(a, "pull", "-q", "--no-rebase", "--no-edit", str(b), "main").returncode == 0
    assert sorted(str(hit["body"]) for hit in memories(a)) == sorted(
        [*bodies, "The dev database runs in docker compose."]
    )


def test_a_users_own_gitattributes_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert git(root, "init", "-q").returncode == 0
    (root / LAYER).mkdir(parents=True)
    (root / LAYER / GITATTRIBUTES).write_text("*.md -merge\n", "utf-8")
    write(root, "deploy", "Deploy with rsync.")
    assert (root / LAYER / GITATTRIBUTES).read_text("utf-8") == "*.md -merge\n"
