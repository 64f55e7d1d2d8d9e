"""The detectors on notes written from templates: every word is common.

Each join is forced onto each of its paths (prefix index, token partitions,
all-pairs bitmasks) and must give exactly the brute-force definition's pairs.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest

from pi_memory.detect import conflicts, duplicates, set_join
from pi_memory.detect.conflicts import find_conflicts, find_conflicts_bruteforce
from pi_memory.detect.duplicates import find_duplicates, find_duplicates_bruteforce
from pi_memory.detect.pairs import features
from pi_memory.detect.set_join import dense_join, partition_join, popcount, rank_order, rarity_ranks
from pi_memory.detect.text_features import jaccard
from tests.similarity_stores import narrow_store

PATHS = {
    # What the estimates choose.
    "chosen": {},
    "prefix": {"_PARTITION_VISITS_PER_SET": math.inf, "DENSE_MIN_GROUP": math.inf},
    "partition": {"_PARTITION_VISITS_PER_SET": 0},
    "dense": {"DENSE_MIN_GROUP": 0, "PREFIX_VISIT_COST": math.inf},
}


def _sets(seed: int, count: int, vocabulary: int) -> list[frozenset[str]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocabulary)]
    made = []
    for _ in range(count):
        if made and rng.random() < 0.3:
            base = set(rng.choice(made))
            base.discard(rng.choice(sorted(base)))
            base.add(rng.choice(words))
            made.append(frozenset(base))
        else:
            made.append(frozenset(rng.sample(words, rng.randint(1, 14))))
    return made


def _qualifying(sets: list[frozenset[str]], threshold: float) -> set[tuple[int, int]]:
    return {
        (i, j)
        for i, j in itertools.combinations(range(len(sets)), 2)
        if jaccard(sets[i], sets[j]) >= threshold
    }


def test_popcount() -> None:
    assert [popcount(n) for n in (0, 1, 2, 3, 255, 1 << 200, (1 << 200) - 1)] == [
        0, 1, 1, 2, 8, 1, 200,
    ]  # fmt: skip


@pytest.mark.parametrize("threshold", [0.6, 2 / 3, 0.7, 0.5 / 0.6, 0.9, 1.0])
@pytest.mark.parametrize("seed", range(4))
def test_partition_join_finds_every_qualifying_pair(threshold: float, seed: int) -> None:
    sets = _sets(seed, 150, 24)
    ids = rarity_ranks(sets)
    candidates = partition_join(sets, list(range(len(sets))), threshold, ids)
    wanted = _qualifying(sets, threshold)
    assert wanted <= candidates
    assert wanted  # the sets were made to hold such pairs


@pytest.mark.parametrize("threshold", [0.3, 0.45, 0.5, 0.8])
@pytest.mark.parametrize("seed", range(4))
def test_dense_join_is_exact(threshold: float, seed: int) -> None:
    sets = _sets(100 + seed, 120, 30)
    members = list(range(len(sets)))
    assert set(dense_join(sets, members, threshold)) == _qualifying(sets, threshold)
    odd = {(i, j) for i, j in _qualifying(sets, threshold) if (i + j) % 2 == 0}
    apart = lambda i, j: (i + j) % 2 == 1  # noqa: E731 -- a rule for the test only
    assert set(dense_join(sets, members, threshold, apart)) == odd


def test_each_path_is_taken_where_it_pays() -> None:
    store = narrow_store(0, 1000)
    group = features(store)["project"]
    ranks = rarity_ranks(item.tokens for item in group)
    orders = [rank_order(item.tokens, ranks) for item in group]
    everyone = list(range(len(group)))
    assert duplicates._partitioned(everyone, duplicates.MIN_SCORE / 0.6, orders)
    by_keyword: dict[str, list[int]] = {}
    for index, item in enumerate(group):
        by_keyword.setdefault(item.key, []).append(index)
    assert all(duplicates._dense(members, 0.45, orders) for members in by_keyword.values())
    # Ordinary prose keeps the prefix index.
    prose = [frozenset(f"{word}{i}" for word in ("a", "b", "c", "d")) for i in range(500)]
    prose_orders = [sorted(words) for words in prose]
    assert not duplicates._partitioned(list(range(500)), 0.8, prose_orders)


def test_a_glance_rules_out_the_dense_join_for_prose_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Prose: no two bodies share a word, so a glance at a few of them is enough.
    prose_orders = [[4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3] for i in range(500)]
    members = list(range(500))
    samples: list[int] = []
    estimate = duplicates.prefix_cost

    def counted(orders: Any, members: Any, threshold: float, sample: int = 250) -> float:
        samples.append(sample)
        return estimate(orders, members, threshold, sample)

    monkeypatch.setattr(duplicates, "prefix_cost", counted)
    assert not duplicates._dense(members, 0.45, prose_orders)
    assert samples == [duplicates._GLANCE]
    # Notes from one template: the glance sees enough visits, and the full estimate decides.
    group = features(narrow_store(0, 1000))["project"]
    ranks = rarity_ranks(item.tokens for item in group)
    orders = [rank_order(item.tokens, ranks) for item in group]
    samples.clear()
    assert duplicates._dense(list(range(300)), 0.45, orders)
    assert samples == [duplicates._GLANCE, set_join._COST_SAMPLE]


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("seed", range(2))
def test_every_path_equals_the_definition(
    monkeypatch: pytest.MonkeyPatch, path: str, seed: int
) -> None:
    for module in (duplicates, conflicts, set_join):
        for name, value in PATHS[path].items():
            if hasattr(module, name):
                monkeypatch.setattr(module, name, value)
    store = narrow_store(seed, 300)
    found = find_duplicates(store)
    assert found == find_duplicates_bruteforce(store)
    assert found
    conflicting = find_conflicts(store)
    assert conflicting == find_conflicts_bruteforce(store)
    assert conflicting
