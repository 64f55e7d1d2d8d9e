"""The inbox survives a kill at any point: a real process staging, accepting and rejecting
proposals is SIGKILLed mid-operation, again and again, and what it leaves is whole."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from pi_memory import inbox
from pi_memory.fs import lock
from pi_memory.store import Settings, Store
from tests.clihelp import REPO

WORKER = r"""
import sys
from datetime import datetime, timezone
from pathlib import Path
from pi_memory import inbox
from pi_memory.inbox import Proposal, Source
from pi_memory.store import Settings, Store

root, layout, start = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
dirs = {"project": root / "project", "user": root / "user"}
store = Store(Settings(layout=layout, dirs=dirs, project_name="shop"))
for n in range(start, start + 100000):
    text = f"Fact number {n} holds for the shop."
    if layout == "categories":
        p = Proposal("project", "write", f"fact-{n}", text, "DECISIONS.md")
    else:
        p = Proposal("project", "add", f"fact-{n}", text, description=f"fact {n}", type="project")
    staged = inbox.stage(store, [p], Source("extract", "s", "t"), now=datetime.now(timezone.utc))
    item = staged.items[0]
    if n % 3 == 0:
        inbox.accept(store, item.id, now=datetime.now())
    elif n % 3 == 1:
        inbox.reject(store, item.id)
    if n == start + 1:  # one accept and one reject done: from here on, kill at any point
        print("ready", flush=True)
"""
FACT_RE = re.compile(r"Fact number (\d+) holds")
ROUNDS = 8


def _start(round_no: int) -> int:
    """The first proposal's number in a round: a multiple of 3, so it is accepted and the
    next one rejected before the worker says it is ready."""
    return round_no * 99999 + 3


def _store(root: Path, layout: str) -> Store:
    dirs = {"project": root / "project", "user": root / "user"}
    return Store(Settings(layout=layout, dirs=dirs, project_name="shop"))


def _facts(store: Store) -> Counter[int]:
    return Counter(int(m.group(1)) for e in store.read_all() for m in [FACT_RE.search(e.body)] if m)


def _check_whole(store: Store) -> None:
    """Every item parses, the rejected list is whole lines, the layer reads cleanly, and a
    lock the killed process left is provably abandoned (``unlock`` may clear it)."""
    directory = store.directory("project")
    assert inbox.damaged(store) == []
    rejected = inbox.inbox_dir(store, "project") / inbox.REJECTED_FILE
    raw = rejected.read_text() if rejected.exists() else ""
    assert raw == "" or raw.endswith("\n")
    assert all(re.fullmatch(r"[0-9a-f]{64}", line) for line in raw.split("\n")[:-1])
    assert store.layer("project").read_problems() == []
    status = lock.read_lock_status(directory)
    if status.kind != lock.ABSENT:
        assert lock.confirmed_abandoned(directory, status)
        lock.break_lock(directory, expected=status)


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
@pytest.mark.parametrize("layout", ["categories", "files"])
def test_killed_mid_operation_the_inbox_and_the_store_stay_whole(
    tmp_path: Path, layout: str
) -> None:
    store = _store(tmp_path, layout)
    for round_no in range(ROUNDS):
        child = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path), layout, str(_start(round_no))],
            cwd=REPO,
            stdout=subprocess.PIPE,
        )
        assert child.stdout is not None
        assert child.stdout.readline() == b"ready\n"
        time.sleep(0.01 + 0.023 * round_no)
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        _check_whole(store)
    facts = _facts(store)
    assert facts, "the worker never got as far as one accept"
    assert inbox.rejected(store, "project"), "the worker never got as far as one reject"
    assert max(facts.values()) == 1
    refused = set(inbox.rejected(store, "project"))
    for item in inbox.pending(store):
        assert item.fingerprint not in refused
        inbox.accept(store, item.id, now=datetime.now())  # a half-done accept finishes
    after = _facts(store)
    assert max(after.values()) == 1
    # A proposal killed before its reject is still pending and may be accepted; one
    # whose fingerprint was remembered never is.
    said = {
        inbox.fingerprint(
            inbox.Proposal("project", "write", "", f"Fact number {n} holds for the shop.")
        )
        for start in map(_start, range(ROUNDS))
        for n in range(start + 1, start + 6000, 3)
    }
    assert refused <= said  # the rejected are what the worker rejected, read as a memory reads
    bodies = [inbox.Proposal("project", "write", "", e.body) for e in store.read_all()]
    assert not {inbox.fingerprint(p) for p in bodies} & refused, "a rejected proposal was stored"
    assert inbox.pending(store) == []
