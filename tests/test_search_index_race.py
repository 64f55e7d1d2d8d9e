"""Writers racing, and killed mid-write, never make a kept search index say what a file
does not hold.

Real processes: writers (one of them killed with SIGKILL again and again, its lock
cleared as a person would with ``unlock``) append and repeat memories in one category
file while a checker process opens the file, takes the identity of the bytes it holds
open, loads the search index kept for that identity, and compares what the index says
(every entry, and which entries hold a word) with those very bytes, parsed.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from pi_memory import search_index
from pi_memory.entry import PROJECT
from pi_memory.layouts.categories.format import decode, parse_entries
from pi_memory.open_store import open_store
from pi_memory.retrieval import search
from tests.clihelp import REPO

FILE = "DECISIONS.md"
NOW = datetime(2026, 11, 30, 12, 0, 0)

WRITER = """
import sys, time
from datetime import datetime
from pathlib import Path
from pi_memory.open_store import open_store
project, writer = Path(sys.argv[1]), sys.argv[2]
i = 0
while True:
    i += 1
    body = ("Every writer repeats this fact about port 5433." if i % 3 == 0
            else f"Writer {writer} notes fact {i}: port {5000 + i} serves staging.")
    try:
        open_store(project).store.write("project", body, ["race"], now=datetime.now(),
                                        file=sys.argv[3])
    except Exception as exc:  # a lock a killed writer left: cleared by the test
        time.sleep(0.05)
"""

CHECKER = """
import sys, time
from pathlib import Path
from pi_memory import search_index
from pi_memory.layouts.categories.format import decode, parse_entries
path, until = Path(sys.argv[1]), time.time() + float(sys.argv[2])
checked = overlaid = wrong = 0
while time.time() < until:
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        continue
    with handle:
        st = __import__("os").fstat(handle.fileno())
        index = search_index.load(path, (st.st_mtime_ns, st.st_size, st.st_ino))
        data = handle.read()
    if index is None:
        continue
    truth = parse_entries(decode(data), "project", path.name)
    held = [n for n, e in enumerate(truth) if "staging" in e.body.lower()]
    checked += 1
    overlaid += bool(index.added or index.changed)
    if (search_index.entries_at(index, range(index.size)) != truth
            or search_index.matching(index, ["staging"], []) != held):
        wrong += 1
        print("WRONG", len(truth), index.size, index.indexed, flush=True)
print(checked, overlaid, wrong)
"""


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_racing_and_killed_writers_never_leave_an_index_that_lies(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    store = open_store(project).store
    for n in range(40):
        store.write(PROJECT, f"Fact {n}: staging deploys at {n}:00.", ["seed"], file=FILE, now=NOW)
    path = store.directory(PROJECT) / FILE
    old = time.time() - 3600  # written earlier: its index may be kept
    os.utime(path, (old, old))
    store.search("staging", now=NOW)
    assert search_index.load(path, _identity(path)) is not None
    env = dict(os.environ, PYTHONPATH=str(REPO))

    def writer(name: str) -> subprocess.Popen[str]:
        argv = [sys.executable, "-c", WRITER, str(project), name, FILE]
        return subprocess.Popen(argv, env=env, stderr=subprocess.DEVNULL, text=True)

    seconds = 12.0
    checker = subprocess.Popen(
        [sys.executable, "-c", CHECKER, str(path), str(seconds)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    steady = writer("steady")
    rng = random.Random(3)
    deadline = time.time() + seconds - 1
    while time.time() < deadline:
        killed = writer("killed")
        time.sleep(rng.uniform(0.2, 0.9))
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        unlock = [sys.executable, "-m", "pi_memory", "unlock", "--yes"]
        subprocess.run(unlock, cwd=project, env=env, capture_output=True, check=False)
    out, _ = checker.communicate(timeout=600)
    steady.send_signal(signal.SIGKILL)
    steady.wait()
    subprocess.run(unlock, cwd=project, env=env, capture_output=True, check=False)
    checked, overlaid, wrong = map(int, out.split()[-3:])
    assert wrong == 0, out
    assert checked > 0 and overlaid > 0, out  # it did look, at tables with changes laid over
    truth = parse_entries(decode(path.read_bytes()), PROJECT, FILE)
    index = search_index.load(path, _identity(path))
    assert index is None or search_index.entries_at(index, range(index.size)) == truth
    query = "staging port"
    expected = search(truth, query, now=NOW)
    assert open_store(project).store.search(query, now=NOW, credit=False) == expected


def _identity(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return (st.st_mtime_ns, st.st_size, st.st_ino)
