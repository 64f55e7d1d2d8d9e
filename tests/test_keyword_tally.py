"""The keyword tally summed from each file's facts is the tally of the entries themselves.

A session start renders the keyword table from the facts each category file
left in the cache (:mod:`pi_memory.keyword_tally`) instead of reading the
layer; the table must be the one the entries give, byte for byte, for every
part a project layer is split into (the user's own memories, those from the
repository). Checked over many random layers with rival spellings of one
keyword, superseded memories and equal times.
"""

from __future__ import annotations

import ast
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from pi_memory.entry import Entry
from pi_memory.keyword_tally import facts_of, is_facts, layer_tally, split_tally
from pi_memory.keywords import TABLE_CAP, Tally, collect_keywords, rows_of, tally_of

SPELLINGS = ("deploy", "Deploy", "de-ploy", "redis", "Redis cache", "redis_cache", "端口", "c#")
FILES = ("A.md", "B.md", "C.md")


def random_layer(rng: random.Random) -> dict[str, list[Entry]]:
    files: dict[str, list[Entry]] = {file: [] for file in FILES}
    for n in range(rng.randrange(0, 60)):
        file = rng.choice(FILES)
        files[file].append(
            Entry(
                id=f"20260101-{n:04x}",
                time=f"2026-01-0{rng.randrange(1, 4)} 10:00:00",
                project="p",
                src="",
                keyword=rng.choice(SPELLINGS),
                body=f"body {n}",
                layer="project",
                file=file,
                superseded_by=rng.choice(["", "", "", "20260101-ffff"]),
            )
        )
    return files


def same(a: Tally, b: Tally) -> bool:
    """Equal tallies (the order of the keywords is the table's to decide)."""
    return a._replace(groups=sorted(a.groups)) == b._replace(groups=sorted(b.groups))


def rows(tally: Tally) -> list[tuple[str, int, int]]:
    recalls = {"deploy": 3, "rediscache": 9}
    return [(r.keyword, r.count, r.recalls) for r in rows_of(tally, recalls, cap=5)]


@pytest.mark.parametrize("seed", range(300))
def test_summed_facts_equal_the_entries_tally(seed: int) -> None:
    rng = random.Random(seed)
    files = random_layer(rng)
    entries = [e for file in FILES for e in files[file]]
    facts = [facts_of(files[file]) for file in FILES]
    assert same(layer_tally(facts), tally_of(entries))
    assert rows(layer_tally(facts)) == rows(tally_of(entries))
    own = frozenset(e.id for e in entries if rng.random() < 0.3)
    tracked = {file for file in FILES if rng.random() < 0.7}
    mine = [own if file in tracked else None for file in FILES]
    ours = [e for e in entries if e.file not in tracked or e.id in own]
    theirs = [e for e in entries if e.file in tracked and e.id not in own]
    assert same(split_tally(facts, mine, foreign=False), tally_of(ours))
    assert same(split_tally(facts, mine, foreign=True), tally_of(theirs))


def test_the_table_of_a_tally_is_the_table_of_the_entries() -> None:
    rng = random.Random(7)
    for _ in range(100):
        entries = [e for es in random_layer(rng).values() for e in es]
        recalls = {"deploy": rng.randrange(0, 12), "redis": rng.randrange(0, 3)}
        for cap in (0, 1, 3, 200):
            assert rows_of(tally_of(entries), recalls, cap) == collect_keywords(
                entries, recalls, cap
            )


def test_facts_of_another_shape_are_refused() -> None:
    facts = facts_of([])
    assert is_facts(tuple(facts)) == facts
    with pytest.raises((TypeError, ValueError)):
        is_facts(tuple(facts)[:-1])
    with pytest.raises(ValueError, match="another shape"):
        is_facts((*tuple(facts)[:5], (1,), (), (), 0))


def test_keywords_out_of_reach_are_left_out_without_changing_the_table() -> None:
    """Only keywords that cannot reach the cap, whatever their recalls, are skipped:
    the table equals sorting every keyword (checked against that definition)."""
    rng = random.Random(11)
    for _ in range(200):
        groups = tuple(
            (f"k{n}", rng.choice([1, 1, 1, 2, 3, 5, 8, 9, 10]), f"k{n}")
            for n in range(rng.randrange(1, 40))
        )
        tally = Tally(len(groups), len(groups), groups)
        recalls = {key: rng.randrange(0, 12) for key, _, _ in groups if rng.random() < 0.4}
        cap = rng.randrange(1, 12)
        every = sorted(
            groups,
            key=lambda g: (-(g[1] + min(recalls.get(g[0], 0), 4)), -g[1], g[2].casefold(), g[2]),
        )[:cap]
        shown = [(r.keyword, r.count) for r in rows_of(tally, recalls, cap)]
        assert shown == [(g[2], g[1]) for g in every]


#: The table of a large layer's keywords that can still reach it (about 220 at 100,000
#: memories), then of many tied at its floor; in a new interpreter, as a write renders it.
TABLE_SCRIPT = """
import sys
from pi_memory.keywords import Tally, TABLE_CAP, rows_of
def table(n):
    sys.modules.pop("heapq", None)  # older versions' collections imports it
    groups = tuple((f"k{i}", 3 + i % 7, f"K{i}") for i in range(n))
    rows = rows_of(Tally(n, n, groups), {"k5": 2, "k9": 30})
    return [(row.keyword, row.count, row.recalls) for row in rows], "heapq" in sys.modules
print(repr((table(TABLE_CAP + 20), table(5 * TABLE_CAP))))
"""


def test_a_table_is_ordered_without_importing_heapq() -> None:
    """Importing heapq would cost a write more than sorting the rows within reach does."""
    done = subprocess.run(
        [sys.executable, "-c", TABLE_SCRIPT],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    recalls = {"k5": 2, "k9": 30}
    tables = ast.literal_eval(done.stdout)
    for (table, imported), n in zip(tables, (TABLE_CAP + 20, 5 * TABLE_CAP)):
        assert not imported
        groups = [(f"k{i}", 3 + i % 7, f"K{i}") for i in range(n)]
        every = sorted(
            groups,
            key=lambda g: (-(g[1] + min(recalls.get(g[0], 0), 4)), -g[1], g[2].casefold(), g[2]),
        )[:TABLE_CAP]
        assert table == [(g[2], g[1], recalls.get(g[0], 0)) for g in every]
