"""A write brings MEMORY.md up to date from what it changed, and that equals a rebuild.

A write no longer reads its layer: it finds what it may repeat or supersede
through each file's search index, and refreshes ``MEMORY.md`` from the keyword
facts it kept for the one file it changed. Over many random sequences of
writes (new memories, repeats, supersedes, both layers, both layouts) the
``MEMORY.md`` each write leaves must be byte for byte what a rebuild from the
layer's files gives, and every cache the write followed (the facts, the search
index, the entries decoded from it) what the files say.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pi_memory.entry import LAYERS
from pi_memory.keyword_tally import facts_of
from pi_memory.layouts.categories.format import decode, fold_merged, parse_entries
from pi_memory.naming.layer_files import INDEX_FILE
from pi_memory.open_store import open_store
from pi_memory.store import Store

NOW = datetime(2026, 11, 30, 12, 0, 0)
KEYWORDS = ("deploy", "Deploy", "redis", "staging-db", "端口", "de-ploy")
BODIES = [f"Fact {n}: the service on port {5400 + n} restarts nightly." for n in range(12)]


@pytest.fixture(params=("categories", "files"))
def layout(request: pytest.FixtureRequest, hermetic_home: Path) -> str:
    name: str = request.param
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"layout": name}), "utf-8")
    return name


def index_text(store: Store, layer: str) -> bytes:
    path = store.directory(layer) / INDEX_FILE
    return path.read_bytes() if path.exists() else b""


def memory_lines(text: bytes) -> list[bytes]:
    return sorted(line for line in text.splitlines() if line.startswith(b"- ["))


def random_write(store: Store, rng: random.Random, step: int, written: list[str]) -> str:
    """One write of a random kind; returns its layer."""
    layer = rng.choice(LAYERS)
    body = rng.choice(BODIES)
    supersedes = rng.sample(written, 1) if written and rng.random() < 0.3 else []
    outcome = store.write(
        layer,
        body if rng.random() < 0.8 else body.upper() + " ",  # a repeat, written otherwise
        [rng.choice(KEYWORDS)],
        now=NOW + timedelta(minutes=step),
        supersedes=supersedes,
    )
    written.append(outcome.entry.id)
    return layer


def caches_agree(store: Store, layer: str) -> None:
    """The facts and search index the writes followed say what the files say."""
    from pi_memory import search_index

    opened = Store(store.settings).layer(layer)
    facts = opened.facts()
    if facts is None:
        return
    for file, _, known in facts:
        path = store.directory(layer) / file
        truth = parse_entries(decode(path.read_bytes()), layer, file) if path.exists() else []
        assert known == facts_of(fold_merged(truth), len(truth))
        index = search_index.for_file(path, lambda: None)
        if index is not None:
            assert search_index.entries_at(index, range(index.size)) == truth
            assert index.size == len(truth)


@pytest.mark.parametrize("seed", range(12))
def test_each_write_leaves_memory_md_as_a_rebuild_does(
    layout: str, tmp_path: Path, hermetic_home: Path, seed: int
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    rng = random.Random(seed)
    written: list[str] = []
    for step in range(14):
        if step == 7:
            # Committed, and on another person's machine: the memories so far came from
            # the repository (not used here until trusted, yet still in MEMORY.md).
            git = ["git", "-C", str(root), "-c", "user.name=x", "-c", "user.email=x@x"]
            subprocess.run([*git, "add", "-A"], check=True)
            subprocess.run([*git, "commit", "-qm", "memories", "--allow-empty"], check=True)
            shutil.rmtree(hermetic_home / ".pi/agent/memory-trust", ignore_errors=True)
        store = open_store(root).store
        if step % 4 == 3:
            store.search(rng.choice(["deploy", "redis", "port"]), now=NOW)  # the recalls
            store = open_store(root).store
        layer = random_write(store, rng, step, written)
        # The write refreshed its own layer's MEMORY.md (a search refreshes none).
        left = index_text(store, layer)
        Store(store.settings).rebuild(layer)
        rebuilt = index_text(store, layer)
        if layout == "categories":
            assert rebuilt.decode() == left.decode(), (step, layer)
            caches_agree(store, layer)
        else:
            # pi-memory's index is the person's: a write edits its own line in place
            # (the newest at the end), a rebuild lists the same lines oldest first.
            assert memory_lines(left) == memory_lines(rebuilt), (step, layer)
