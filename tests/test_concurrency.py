"""Several processes writing to one store at once lose nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from pi_memory.layouts.categories.format import parse_entries
from pi_memory.open_store import open_store
from tests.clihelp import REPO

WRITERS = 6
PER_WRITER = 5

SCRIPT = """
import sys
from datetime import datetime
from pathlib import Path
from pi_memory.open_store import open_store
store = open_store(Path(sys.argv[1])).store
writer = sys.argv[2]
for i in range(int(sys.argv[3])):
    store.write("project", f"Writer {writer} fact number {i} is distinct.", ["race"],
                now=datetime.now(), file=("DECISIONS.md" if i % 2 else "FAILURES.md"))
    store.write("project", "Every writer states this same fact.", ["shared"], now=datetime.now())
"""


#: A writer waits for the lock as long as the test waits for the writer: what is
#: checked is that nothing is lost, and on a loaded machine six writers queue for
#: longer than the default five seconds (a timed-out writer is not a lost write).
PATIENT = {"lock": {"timeoutMs": 120_000}}


def run_writers(project: Path, **config: object) -> None:
    home = Path(os.environ["HOME"])
    (home / ".pi/agent").mkdir(parents=True, exist_ok=True)
    (home / ".pi/agent/memory.json").write_text(json.dumps({**PATIENT, **config}), "utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SCRIPT, str(project), str(w), str(PER_WRITER)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WRITERS)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    run_writers(project)
    layer = project / ".pi/agent/memory-auto"
    entries = [
        e
        for name in ("CONVENTIONS.md", "DECISIONS.md", "FAILURES.md")
        if (layer / name).exists()
        for e in parse_entries((layer / name).read_text("utf-8"), "project", name)
    ]
    distinct = {e.body for e in entries if e.keyword == "race"}
    assert distinct == {
        f"Writer {w} fact number {i} is distinct."
        for w in range(WRITERS)
        for i in range(PER_WRITER)
    }
    shared = [e for e in entries if e.keyword == "shared"]
    assert len(shared) == 1
    assert shared[0].seen == WRITERS * PER_WRITER
    assert len({e.id for e in entries}) == len(entries)
    assert not (layer / ".lock").exists()
    assert "entries=31 " in (layer / "MEMORY.md").read_text("utf-8")


def test_concurrent_writers_lose_nothing_in_the_files_layout(
    tmp_path: Path, hermetic_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    run_writers(project, layout="files")
    entries = open_store(project).store.read("project")
    distinct = {e.body for e in entries if e.keyword == "race"}
    assert distinct == {
        f"Writer {w} fact number {i} is distinct."
        for w in range(WRITERS)
        for i in range(PER_WRITER)
    }
    shared = [e for e in entries if e.keyword == "shared"]
    assert [e.seen for e in shared] == [WRITERS * PER_WRITER]
    index = (open_store(project).store.directory("project") / "MEMORY.md").read_text("utf-8")
    assert sum(line.startswith("- [") for line in index.splitlines()) == len(entries)


def _staged_by_both(layer: Path, count: int, proc: list[subprocess.Popen[str]]) -> None:
    """Wait until the writers have staged their change (temp files beside the targets)."""
    import time

    deadline = time.monotonic() + 120
    while len(list(layer.glob(".*.tmp"))) < count:
        assert all(p.poll() is None for p in proc), [p.communicate() for p in proc]
        assert time.monotonic() < deadline, sorted(p.name for p in layer.iterdir())
        time.sleep(0.01)


@pytest.mark.parametrize(("layout", "temp_files"), [("categories", 2), ("files", 4)])
def test_two_writers_that_both_prepared_the_same_fact_store_one_memory(
    tmp_path: Path, hermetic_home: Path, layout: str, temp_files: int
) -> None:
    """Both read the layer and stage an append of the same text before either holds the
    lock; the one that comes second sees the layer changed, decides again, and repeats
    the memory the first stored instead of storing it twice."""
    from tests.lockholder import Holder

    project = tmp_path / "proj"
    project.mkdir()
    (hermetic_home / ".pi/agent").mkdir(parents=True)
    config = {**PATIENT, "layout": layout}
    (hermetic_home / ".pi/agent/memory.json").write_text(json.dumps(config), "utf-8")
    store = open_store(project).store
    store.write("project", "An earlier fact stays.", ["early"], now=datetime.now())
    layer = store.directory("project")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    fact = "Both writers state this fact at once."
    holder = Holder(layer)
    try:
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "pi_memory", "write", "--keyword", "both", fact],
                cwd=project,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        _staged_by_both(layer, temp_files, procs)
    finally:
        holder.release()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    same = [e for e in open_store(project).store.read("project") if e.body == fact]
    assert [e.seen for e in same] == [2]
    assert not list(layer.glob(".*.tmp"))
