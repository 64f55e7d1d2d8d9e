"""Several processes writing to one store at once lose nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
