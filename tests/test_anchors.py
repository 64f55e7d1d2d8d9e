"""Anchors: a project memory remembers the code it mentions, and turns suspect when that
code changes. Every test runs real git in a repository made for it."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest

from pi_memory import anchors
from pi_memory.anchors import cache, record
from pi_memory.anchors.mentions import MAX_PATHS, mentions
from pi_memory.anchors.verdict import FRESH, SUSPECT, UNKNOWN, verdict_of
from pi_memory.entry import PROJECT
from pi_memory.open_store import open_store
from pi_memory.store import Store

NOW = datetime(2026, 12, 2, 9, 30)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout.strip()


def cpu_seconds() -> float:
    """CPU time of this process and of the children it waited for (git), user and system."""
    used = os.times()
    return used.user + used.system + used.children_user + used.children_system


def commit_file(root: Path, relative: str, text: str | bytes, message: str = "change") -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    git(root, "add", relative)
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, "src/deploy.py", "def deploy_all():\n    return 3\n")
    commit_file(root, "README.md", "shop\n")
    return root


def store_of(root: Path) -> Store:
    return open_store(root, warn=False).store


def write(root: Path, body: str, keyword: str = "deploy") -> str:
    return store_of(root).write(PROJECT, body, [keyword], now=NOW).entry.id


def check(root: Path) -> dict[str, anchors.Verdict]:
    store = store_of(root)
    return cache.refresh(store.directory(PROJECT), root, time.time())


def test_a_commit_that_changes_the_anchored_file_makes_the_memory_suspect(project: Path) -> None:
    memory = write(project, "src/deploy.py retries three times before it gives up")
    other = write(project, "Releases are tagged by hand on Fridays", keyword="release")
    directory = store_of(project).directory(PROJECT)
    line = record.read(directory)[memory]
    assert [p for p, _ in line.found.paths] == ["src/deploy.py"]
    assert line.found.commit == git(project, "rev-parse", "HEAD")
    assert other not in record.read(directory)
    assert check(project)[memory] == anchors.Verdict(FRESH)
    commit_file(project, "src/deploy.py", "def deploy_all():\n    return 5\n")
    verdicts = check(project)
    assert verdicts[memory] == anchors.Verdict(SUSPECT, "src/deploy.py changed since")
    assert anchors.suspects(directory) == {memory: "src/deploy.py changed since"}
    assert verdict_of(verdicts, other).state == UNKNOWN


def test_an_uncommitted_edit_is_not_a_change_yet(project: Path) -> None:
    memory = write(project, "src/deploy.py retries three times")
    (project / "src/deploy.py").write_text("changed, not committed\n")
    assert check(project)[memory].state == FRESH


def test_a_deleted_or_renamed_file_makes_it_suspect(project: Path) -> None:
    memory = write(project, "see README.md for the setup")
    git(project, "mv", "README.md", "README.txt")
    git(project, "commit", "-q", "-m", "rename")
    assert check(project)[memory] == anchors.Verdict(SUSPECT, "README.md deleted or renamed since")


def test_a_code_name_is_suspect_only_once_it_is_gone_from_its_file(project: Path) -> None:
    memory = write(project, "Ship with deploy_all() and never by hand")
    found = record.read(store_of(project).directory(PROJECT))[memory].found
    assert [(n, p) for n, p, _ in found.names] == [("deploy_all", "src/deploy.py")]
    commit_file(project, "src/deploy.py", "def deploy_all():\n    return 4\n# more\n")
    assert check(project)[memory].state == FRESH
    commit_file(project, "src/deploy.py", "def ship_everything():\n    return 4\n")
    assert check(project)[memory] == anchors.Verdict(
        SUSPECT, "deploy_all no longer in src/deploy.py"
    )


def test_a_bare_file_name_finds_its_one_tracked_file(project: Path) -> None:
    memory = write(project, "deploy.py is the entry point")
    found = record.read(store_of(project).directory(PROJECT))[memory].found
    assert [p for p, _ in found.paths] == ["src/deploy.py"]


def test_writing_the_same_memory_again_anchors_it_afresh(project: Path) -> None:
    memory = write(project, "src/deploy.py retries three times")
    commit_file(project, "src/deploy.py", "def deploy_all():\n    return 9\n")
    assert check(project)[memory].state == SUSPECT
    assert write(project, "src/deploy.py retries three times") == memory
    assert check(project)[memory].state == FRESH


def test_a_memory_the_caller_just_read_is_anchored_as_read(project: Path) -> None:
    memory = write(project, "Releases are tagged by hand on Fridays", keyword="release")
    store = store_of(project)
    [entry] = [e for e in store.layer(PROJECT).read() if e.id == memory]
    # The memory tool and a job's staging pass the memory they read: the layer (every
    # file of it, in the files layout) is not read again to find it by its id.
    found = store.anchor(memory, NOW, entry=entry._replace(body="see src/deploy.py"))
    assert found is not None and [p for p, _ in found.paths] == ["src/deploy.py"]
    line = record.read(store.directory(PROJECT))[memory]
    assert [p for p, _ in line.found.paths] == ["src/deploy.py"]
    # Found by its id: the body as stored, which mentions no code.
    assert store_of(project).anchor(memory, NOW) is None


# -- bad input: each a defined verdict, never an error -------------------------------------


def test_paths_outside_the_repository_are_not_anchored(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n")
    body = f"compare {outside} with ../elsewhere.py and /etc/hostname"
    memory = write(project, body)
    assert memory not in record.read(store_of(project).directory(PROJECT))
    assert verdict_of(check(project), memory) == anchors.Verdict(UNKNOWN, "no anchor")


def test_thousands_of_paths_anchor_a_bounded_few_quickly(project: Path) -> None:
    for n in range(30):
        (project / f"src/m{n}.py").write_text(f"v = {n}\n")
    git(project, "add", "src")
    git(project, "commit", "-q", "-m", "modules")
    body = " ".join(f"src/m{n % 30}.py src/missing{n}.py" for n in range(3000))
    assert len(mentions(body).paths) <= 48
    # Quickly, in CPU time (this process's and git's: a loaded machine stretches the wall
    # clock, not the work): about 0.1 s, where a lookup per mention would cost many.
    started = cpu_seconds()
    memory = write(project, body[:4000].rsplit(" ", 1)[0])  # the most a body may hold
    assert cpu_seconds() - started < 1.0
    found = record.read(store_of(project).directory(PROJECT))[memory].found
    assert 0 < len(found.paths) <= MAX_PATHS
    assert check(project)[memory].state == FRESH


def test_a_binary_file_is_anchored_by_its_content(project: Path) -> None:
    commit_file(project, "assets/logo.png", b"\x89PNG\x00\x01\x02deploy_all\x00")
    memory = write(project, "assets/logo.png is the shop's logo, drawn by deploy_all")
    found = record.read(store_of(project).directory(PROJECT))[memory].found
    assert [p for p, _ in found.paths] == ["assets/logo.png"]
    assert [p for _, p, _ in found.names] == ["src/deploy.py"]  # never a binary file
    commit_file(project, "assets/logo.png", b"\x89PNG\x00\x03")
    assert check(project)[memory] == anchors.Verdict(SUSPECT, "assets/logo.png changed since")


def test_a_shallow_clone_anchors_and_judges(project: Path, tmp_path: Path) -> None:
    commit_file(project, "src/deploy.py", "def deploy_all():\n    return 7\n")
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{project}", str(shallow)], check=True
    )
    assert git(shallow, "rev-parse", "--is-shallow-repository") == "true"
    memory = write(shallow, "src/deploy.py returns seven")
    assert check(shallow)[memory].state == FRESH
    commit_file(shallow, "src/deploy.py", "def deploy_all():\n    return 8\n")
    assert check(shallow)[memory].state == SUSPECT


def test_no_git_at_all_anchors_by_content(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "src/deploy.py").write_text("def deploy_all():\n    pass\n")
    memory = write(root, "src/deploy.py calls deploy_all")
    found = record.read(store_of(root).directory(PROJECT))[memory].found
    assert found.via == "disk" and found.commit == ""
    assert check(root)[memory].state == FRESH
    (root / "src/deploy.py").write_text("def ship():\n    pass\n")
    assert check(root)[memory] == anchors.Verdict(
        SUSPECT, "src/deploy.py changed since; deploy_all no longer in src/deploy.py"
    )


def test_no_git_program_leaves_a_git_anchor_unknown(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = write(project, "src/deploy.py retries three times")
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    verdict = check(project)[memory]
    assert verdict.state == UNKNOWN and "git cannot name the current commit" in verdict.reason


def test_a_detached_head_is_judged_like_a_branch(project: Path) -> None:
    git(project, "checkout", "-q", "--detach")
    memory = write(project, "src/deploy.py retries three times")
    assert check(project)[memory].state == FRESH
    commit_file(project, "src/deploy.py", "changed\n")
    assert check(project)[memory].state == SUSPECT


def test_a_rebase_that_rewrote_the_anchor_commit_is_no_change(project: Path) -> None:
    memory = write(project, "src/deploy.py retries three times")
    anchored_at = record.read(store_of(project).directory(PROJECT))[memory].found.commit
    git(project, "commit", "-q", "--amend", "-m", "reworded")
    git(project, "reflog", "expire", "--expire=now", "--all")
    git(project, "gc", "-q", "--prune=now")
    missing = subprocess.run(
        ["git", "-C", str(project), "cat-file", "-e", anchored_at], check=False
    )
    assert missing.returncode != 0  # the anchor's commit is gone
    assert check(project)[memory].state == FRESH


def test_a_repository_without_a_commit_anchors_by_content(tmp_path: Path) -> None:
    root = tmp_path / "new"
    root.mkdir()
    git(root, "init", "-q")
    (root / "notes.txt").write_text("hello\n")
    memory = write(root, "notes.txt says hello")
    assert record.read(store_of(root).directory(PROJECT))[memory].found.via == "disk"
    assert check(root)[memory].state == FRESH


def test_a_damaged_anchors_file_is_read_around(project: Path) -> None:
    memory = write(project, "src/deploy.py retries three times")
    path = record.path(store_of(project).directory(PROJECT))
    path.write_text("not json\n" + path.read_text() + '{"id": 3}\n\x00\n')
    assert check(project)[memory].state == FRESH


def test_user_memories_are_not_anchored(project: Path) -> None:
    store = store_of(project)
    store.write("user", "src/deploy.py is everywhere", ["deploy"], now=NOW)
    assert not record.path(store.directory("user")).exists()


# -- the cache the hooks read ----------------------------------------------------------------


def test_a_check_is_due_after_a_commit_or_a_write_and_not_otherwise(project: Path) -> None:
    directory = store_of(project).directory(PROJECT)
    assert not cache.due(directory, project, time.time())  # nothing anchored
    write(project, "src/deploy.py retries three times")
    assert cache.due(directory, project, time.time())
    check(project)
    assert not cache.due(directory, project, time.time())
    commit_file(project, "README.md", "more\n")
    assert cache.due(directory, project, time.time())
    check(project)
    git(project, "pack-refs", "--all")
    assert not cache.due(directory, project, time.time())  # HEAD read from packed refs
    write(project, "README.md says more")
    assert cache.due(directory, project, time.time())


def test_mentions_keep_code_names_and_leave_prose() -> None:
    found = mentions("Use `render` and open_store() via StoreLock, not the Store; v1.2 is out.")
    assert found.names == ("render", "open_store", "StoreLock")
    assert found.paths == ()
    assert mentions("see ./src/a.py:12, src/b.py. and /abs/c.py", "/abs").paths == (
        "src/a.py",
        "src/b.py",
        "c.py",
    )
