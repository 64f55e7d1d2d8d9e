"""A write that adds a memory or retires some changes the ready tallies only where it wrote.

The ready index (:mod:`pi_memory.ready_index`) holds, per layer, the keywords
that can make its keyword table. A write that adds a memory or supersedes
others works out again only the keywords it changed, from the files' facts,
and keeps the rest as they were (``keywords.reach_after``), instead of summing
both layers. Here, on a store large enough that the table leaves keywords out,
in a repository whose committed memories are trusted (the project layer split
into this user's and the repository's), random writes of every kind (new
keywords, keywords at the edge of the table, other spellings, repeats,
supersedes) must each leave the ready tallies, the injection they render and
``MEMORY.md`` exactly what working them out from scratch gives.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pi_memory import ready_index
from pi_memory.entry import LAYERS, PROJECT, USER, Entry
from pi_memory.keyword_tally import FileFacts, facts_of, groups_of, split_tally
from pi_memory.keywords import Tally, canonical_key, reach_after, within_reach
from pi_memory.layouts.categories.format import format_entry
from pi_memory.naming.layer_files import INDEX_FILE
from pi_memory.open_store import open_store
from pi_memory.store import Store

NOW = datetime(2026, 11, 30, 12, 0, 0)
FILES = {
    PROJECT: ("CONVENTIONS.md", "DECISIONS.md", "FAILURES.md"),
    USER: ("PREFERENCES.md", "ENVIRONMENT.md"),
}
#: Keyword ``k{i:03d}`` is carried by ``16 - i // 20`` memories: the 200th keyword by 7,
#: so a keyword of 2 memories is left out of the table's reach (a floor of 3).
KEYWORDS = 300


def _count(i: int) -> int:
    return 16 - i // 20


def _entries(layer: str, rng: random.Random, scale: int) -> list[Entry]:
    made: list[Entry] = []
    for i in range(KEYWORDS // scale):
        for n in range(_count(i * scale)):
            spelling = f"K{i:03d}" if n == 1 and i % 7 == 0 else f"k{i:03d}"  # another spelling
            made.append(
                Entry(
                    id=f"20260101-{len(made):04x}",
                    time=f"2026-01-{1 + rng.randrange(28):02d} 10:00:00",
                    project="repo",
                    src="user",
                    keyword=spelling,
                    body=f"Memory {len(made)} of {spelling}: {rng.random()}",
                    layer=layer,
                    file=rng.choice(FILES[layer]),
                    superseded_by="20260101-0000" if rng.random() < 0.03 else "",
                )
            )
    return made


def _store(root: Path, home: Path) -> dict[str, list[Entry]]:
    rng = random.Random(7)
    made = {PROJECT: _entries(PROJECT, rng, 1), USER: _entries(USER, rng, 3)}
    dirs = {PROJECT: root / ".pi/agent/memory-auto", USER: home / ".pi/agent/memory-auto"}
    an_hour_ago = time.time() - 3600
    for layer, entries in made.items():
        dirs[layer].mkdir(parents=True)
        for file in FILES[layer]:
            rows = [format_entry(e) for e in entries if e.file == file]
            (dirs[layer] / file).write_text("\n".join(rows), "utf-8")
            os.utime(dirs[layer] / file, (an_hour_ago, an_hour_ago))
    git = ["git", "-C", str(root), "-c", "user.name=x", "-c", "user.email=x@x"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "memories"], check=True)
    config = home / ".pi/agent/memory.json"
    config.write_text(json.dumps({"trustedProjects": [str(root)]}), "utf-8")
    return made


def _plain(tally: Tally) -> tuple[int, int, list[tuple[str, int, str]]]:
    return tally.entries, tally.live, sorted(tally.groups)


def _from_scratch(store: Store) -> tuple[list[object], list[object]]:
    """The ready tallies as a store that kept none works them out."""
    fresh = Store(store.settings)
    indexes = []
    for layer in LAYERS:
        tally = fresh.tally(layer)
        assert tally is not None
        indexes.append(_plain(within_reach(tally)))
    blocks = []
    for block in fresh.injected():
        tally = block.tally()
        assert tally is not None
        blocks.append((block.label, _plain(within_reach(tally))))
    return indexes, blocks


def _write(
    store: Store, rng: random.Random, step: int, made: dict[str, list[Entry]]
) -> tuple[str, bool]:
    """One random write: its layer, and whether it added a memory or retired one."""
    layer = PROJECT if rng.random() < 0.75 else USER
    live = [e for e in made[layer] if not e.superseded_by]
    pick = rng.random()
    if pick < 0.15:
        body, keyword = rng.choice(live).body, "whatever"  # a repeat
    else:
        i = rng.choice([rng.randrange(KEYWORDS), 200 + rng.randrange(100), 280, 299])
        keyword = rng.choice([f"k{i:03d}", f"K{i:03d}", f"new{step}", f"k{i:03d}"])
        body = f"Written at step {step}: {rng.random()}"
    supersedes = [e.id for e in rng.sample(live, rng.randint(1, 3))] if rng.random() < 0.3 else []
    outcome = store.write(
        layer, body, [keyword], now=NOW + timedelta(minutes=step), supersedes=supersedes
    )
    retired = set(outcome.superseded)
    made[layer] = [
        e._replace(superseded_by=outcome.entry.id) if e.id in retired else e for e in made[layer]
    ]
    if not outcome.deduped:
        made[layer].append(outcome.entry)
    return layer, not outcome.deduped or bool(retired)


@pytest.mark.parametrize("seed", range(3))
def test_each_write_leaves_the_ready_tallies_as_worked_out_from_scratch(
    tmp_path: Path, hermetic_home: Path, seed: int
) -> None:
    root = tmp_path / "repo"
    made = _store(root, hermetic_home)
    rng = random.Random(seed)
    opened = open_store(root).store
    assert opened.keep_ready(), "a store that says nothing keeps its tallies ready"
    advanced = 0
    for step in range(30):
        store = open_store(root).store
        if step % 6 == 5:
            store.search(f"k{rng.randrange(KEYWORDS):03d}", now=NOW)  # the recalls move
            store = open_store(root).store
        layer, changed = _write(store, rng, step, made)
        advanced += changed and not store._tallies  # no layer was summed
        ready = ready_index.load(store.ready_signature(), {})
        assert ready is not None, step
        indexes, blocks = _from_scratch(store)
        assert [_plain(t) for _, _, t in ready.indexes] == indexes, step
        assert [(label, _plain(t)) for _, label, _, t in ready.blocks] == blocks, step
        assert ready_index.injection(ready, None) == Store(store.settings).injection(), step
        left = (store.directory(layer) / INDEX_FILE).read_bytes()
        Store(store.settings).rebuild(layer)
        assert (store.directory(layer) / INDEX_FILE).read_bytes() == left, (step, layer)
    assert advanced >= 12, "most writes must follow the tallies, or this shows nothing"
    project = Store(open_store(root).store.settings)
    assert project.foreign(), "the repository's memories must be split from this user's"


def _facts(rng: random.Random, files: int) -> list[tuple[list[Entry], set[str]]]:
    """Random files of entries, and per file which ids are this user's own."""
    made = []
    for n in range(files):
        entries = []
        for k in range(rng.randrange(1, 400)):
            key = min(int(rng.expovariate(0.02)), 299)
            entries.append(
                Entry(
                    id=f"2026{n:02d}{k:02d}-{k:04x}",
                    time=f"2026-01-{1 + rng.randrange(28):02d} 1{rng.randrange(10)}:00:00",
                    project="p",
                    src="user",
                    keyword=rng.choice([f"w{key}", f"W{key}"]) if key % 5 == 0 else f"w{key}",
                    body="b",
                    superseded_by="x" if rng.random() < 0.1 else "",
                )
            )
        made.append((entries, {e.id for e in entries if rng.random() < 0.2}))
    return made


@pytest.mark.parametrize("seed", range(40))
def test_the_groups_a_change_touched_follow_as_the_whole_tally_does(seed: int) -> None:
    """``reach_after`` from the groups of the changed keywords is the reach of the tally
    summed anew, whenever it answers; and it answers unless the table's floor went down."""
    rng = random.Random(seed)
    files = _facts(rng, rng.randint(1, 4))
    mode = rng.choice(["whole", "own", "theirs"])

    def tally_of(
        made: list[tuple[list[Entry], set[str]]],
    ) -> tuple[list[FileFacts], list[set[str] | None]]:
        facts = [facts_of(entries) for entries, _ in made]
        return facts, [None if mode == "whole" else mine for _, mine in made]

    facts, own = tally_of(files)
    theirs = mode == "theirs"
    before = within_reach(split_tally(facts, own, foreign=theirs))
    # The change: a few entries added, a few retired.
    keys: set[str] = set()
    now = f"2026-02-01 0{rng.randrange(10)}:00:00"
    for entries, mine in files:
        for _ in range(rng.randint(0, 2)):
            key = rng.choice([0, 5, 150, 299, rng.randrange(300)])
            spelling = f"W{key}" if rng.random() < 0.2 else f"w{key}"
            added = entries[0]._replace(id=f"new-{len(entries)}", keyword=spelling, time=now)
            entries.append(added._replace(superseded_by=""))
            if rng.random() < 0.5:
                mine.add(added.id)
            keys.add(canonical_key(spelling))
        for at in rng.sample(range(len(entries)), min(2, len(entries))):
            entries[at] = entries[at]._replace(superseded_by="y")
            keys.add(canonical_key(entries[at].keyword))
    facts, own = tally_of(files)
    whole = split_tally(facts, own, foreign=theirs)
    total, live, found = groups_of(facts, own, keys, foreign=theirs)
    assert (total, live) == (whole.entries, whole.live)
    followed = reach_after(before, total, live, found)
    if followed is not None:
        assert _plain(followed) == _plain(within_reach(whole))
    else:
        assert len(before.groups) >= 200


def test_a_keyword_left_out_is_not_lost_when_the_floor_goes_down() -> None:
    """200 keywords of 10 memories make the table, 20 of 9 are within reach, one of 5 is
    left out (the floor is 6); once a memory of one of the 200 is retired, the floor is 5
    and the one left out is within reach: its count is not known from the ready tally,
    so the layer is summed."""

    def entry(n: int, key: str, retired: bool = False) -> Entry:
        return Entry(f"20260101-{n:05x}", "2026-01-01 10:00:00", "p", "u", key, "b", "project",
                     superseded_by="x" if retired else "")  # fmt: skip

    made = [entry(n, f"top{n // 10:03d}") for n in range(2000)]
    made += [entry(2000 + n, f"next{n // 9:02d}") for n in range(180)]  # 20 of 9 memories
    made += [entry(3000 + n, "edge") for n in range(5)]
    before = within_reach(split_tally([facts_of(made)], [None], foreign=False))
    assert "edge" not in {key for key, _, _ in before.groups}
    retired = [made[0]._replace(superseded_by="y"), *made[1:]]
    after = split_tally([facts_of(retired)], [None], foreign=False)
    assert "edge" in {key for key, _, _ in within_reach(after).groups}
    total, live, found = groups_of([facts_of(retired)], [None], {"top000"}, foreign=False)
    assert reach_after(before, total, live, found) is None
    # A new memory of a keyword left out lowers no floor: it stays out, and is known to.
    added = [*made, entry(4000, "edge")]
    total, live, found = groups_of([facts_of(added)], [None], {"edge"}, foreign=False)
    followed = reach_after(before, total, live, found)
    whole = within_reach(split_tally([facts_of(added)], [None], foreign=False))
    assert followed is not None and _plain(followed) == _plain(whole)
