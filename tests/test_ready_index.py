"""A session start after a write or a search renders from the index kept ready, and says the same.

Real hook processes on a real git project: a start whose note differs only in
the layer directories (a write's category file, a search's recall log) must not
open the configuration or the store, and must inject, and leave in each
``MEMORY.md``, exactly what a start with no cache at all does. A ready index
that disagrees with the files (a hand edit, a writer killed before it kept the
index) is never believed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_memory.fs.parse_cache import _cache_file
from tests.hookhelp import make_project, payload

REPO = Path(__file__).resolve().parent.parent
HEAVY = {"pi_memory.config.load", "pi_memory.store", "pi_memory.open_store"}


def run(root: Path, *args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-m", "pi_memory", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def start(root: Path) -> tuple[str, set[str]]:
    """A real session start: what it injected, and the package modules it imported."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi_memory", "hook", "SessionStart"],
        input=payload("claude-code", "SessionStart.startup", root),
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=True,
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    text: str = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    return text, {n for n in names if n.startswith("pi_memory")}


def cache(home: Path) -> Path:
    return home / ".cache" / "pi_memory"


def indexes(root: Path, home: Path) -> list[str]:
    return [
        (d / "MEMORY.md").read_text("utf-8")
        for d in (home / ".pi/agent/memory-auto", root / ".pi/agent/memory-auto")
    ]


def from_scratch(root: Path, home: Path) -> tuple[str, list[str]]:
    """What a start with no note, no ready index and no parse cache injects and leaves."""
    shutil.rmtree(cache(home), ignore_errors=True)
    text, imported = start(root)
    assert imported >= HEAVY
    return text, indexes(root, home)


def seed(root: Path, committed: bool) -> None:
    for n, keyword in enumerate(["deploy", "Deploy", "redis", "staging-db", "deploy"]):
        run(root, "write", "--keyword", keyword, f"Fact number {n} about {keyword}.")
    run(root, "write", "--layer", "user", "--keyword", "editor", "The user edits in vim.")
    run(root, "search", "editor")  # the first search adds a recall log: a new file
    run(root, "search", "redis")  # and so to the project layer
    run(root, "search", "deploy")
    if committed:
        # Memories another person committed: a trusted project shows them in a block of
        # their own, and this user's later writes stay theirs.
        git = ["git", "-C", str(root), "-c", "user.name=x", "-c", "user.email=x@x"]
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", "memories"], check=True)
        config = Path(os.environ["HOME"]) / ".pi/agent/memory.json"
        config.write_text(json.dumps({"trustedProjects": [str(root)]}), "utf-8")
        trust = Path(os.environ["HOME"]) / ".pi/agent/memory-trust"
        shutil.rmtree(trust)  # as on another person's machine: none of them is this user's


@pytest.mark.parametrize("committed", [False, True])
def test_a_start_after_a_write_or_a_search_renders_from_the_ready_index(
    tmp_path: Path, hermetic_home: Path, committed: bool
) -> None:
    root = make_project(tmp_path)
    seed(root, committed)
    start(root)  # the full work: note and ready index
    steps = [
        ("write", "--keyword", "redis", "The cache moved to redis 7."),
        # Credits a keyword: staging-db (1 memory) climbs above redis (2) in the table.
        ("search", "staging-db"),
        ("search", "staging-db"),
        ("search", "staging-db"),
        ("write", "--keyword", "deploy", "Fact number 1 about Deploy."),  # a repeat
        ("write", "--layer", "user", "--keyword", "Editor", "The user also uses nano."),
    ]
    for n, step in enumerate(steps):
        run(root, *step)
        text, imported = start(root)
        assert not imported & HEAVY, step
        left = indexes(root, hermetic_home)
        assert (text, left) == from_scratch(root, hermetic_home), step
        assert ("from the repository" in text) == committed
        if n == 3 and not committed:  # one block: the order is the ranking
            assert text.index("#staging-db") < text.index("#redis")
        start(root)  # leaves the note and the ready index again, as a real session would


def test_a_ready_index_that_disagrees_with_the_files_is_not_believed(
    tmp_path: Path, hermetic_home: Path
) -> None:
    root = make_project(tmp_path)
    seed(root, committed=False)
    start(root)
    run(root, "write", "--keyword", "redis", "The cache moved to redis 7.")
    # A person's own edit after the write, which kept the ready index: the index no
    # longer describes the file (so it is as if the writer had been killed before it).
    category = root / ".pi/agent/memory-auto/CONVENTIONS.md"
    rows = category.read_text("utf-8")
    hand = "<!-- mid: 20260101-abcd | t: 2026-01-01 10:00:00 | p: repo | tags: by-hand -->\n"
    category.write_text(rows + "\n" + hand + "Written by hand.\n", "utf-8")
    text, imported = start(root)
    assert imported >= HEAVY
    assert "#by-hand" in text
    assert (text, indexes(root, hermetic_home)) == from_scratch(root, hermetic_home)


def test_a_damaged_ready_index_costs_one_full_start(tmp_path: Path, hermetic_home: Path) -> None:
    root = make_project(tmp_path)
    seed(root, committed=False)
    start(root)
    run(root, "write", "--keyword", "redis", "The cache moved to redis 7.")
    for ready in (cache(hermetic_home) / "hooks").glob("*.ready"):
        ready.write_bytes(ready.read_bytes()[:40])
    # The write left the next start its answer; a recall log changed since needs the index.
    (root / ".pi/agent/memory-auto/usage.json").write_text('{"redis": 3}\n', "utf-8")
    text, imported = start(root)
    assert imported >= HEAVY
    assert (text, indexes(root, hermetic_home)) == from_scratch(root, hermetic_home)


def test_a_repeat_moves_the_ready_index_without_summing_a_layer(
    tmp_path: Path, hermetic_home: Path
) -> None:
    root = make_project(tmp_path)
    seed(root, committed=False)
    user = hermetic_home / ".pi/agent/memory-auto"
    an_hour_ago = time.time() - 3600  # written earlier, as a real store was: facts are kept
    for path in [*user.glob("*.md"), *(root / ".pi/agent/memory-auto").glob("*.md")]:
        os.utime(path, (an_hour_ago, an_hour_ago))
    start(root)
    # The user layer's keyword facts are gone from the cache: a write to the project
    # layer that sums the tallies works them out again and keeps them.
    kept = [_cache_file(path, "tally")[0] for path in user.glob("*.md") if path.name != "MEMORY.md"]
    assert any(path.exists() for path in kept)
    for path in kept:
        path.unlink(missing_ok=True)
    run(root, "write", "--keyword", "deploy", "Fact number 1 about Deploy.")  # a repeat
    assert not any(path.exists() for path in kept)
    text, imported = start(root)
    assert not imported & HEAVY
    assert (text, indexes(root, hermetic_home)) == from_scratch(root, hermetic_home)
    assert "seen: 2" in (root / ".pi/agent/memory-auto/CONVENTIONS.md").read_text("utf-8")


def test_a_repeat_still_brings_memory_md_up_to_date(tmp_path: Path, hermetic_home: Path) -> None:
    root = make_project(tmp_path)
    seed(root, committed=False)
    start(root)
    layer = root / ".pi/agent/memory-auto"
    (layer / "MEMORY.md").unlink()  # as a write whose refresh failed leaves it: due again
    run(root, "search", "staging-db")  # a recall: the table's order changes too
    run(root, "search", "staging-db")
    run(root, "write", "--keyword", "deploy", "Fact number 1 about Deploy.")  # a repeat
    written = (layer / "MEMORY.md").read_text("utf-8")
    assert "seen: 2" in (layer / "CONVENTIONS.md").read_text("utf-8")
    assert written == from_scratch(root, hermetic_home)[1][1]
