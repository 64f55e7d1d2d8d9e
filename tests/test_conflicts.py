from __future__ import annotations

import math
import random

import pytest

from pi_memory.detect import set_join
from pi_memory.detect.conflicts import ConflictPair, find_conflicts, find_conflicts_bruteforce
from pi_memory.detect.duplicates import find_duplicates
from tests.similarity_stores import random_store, shuffled
from tests.test_duplicates import entry


def test_a_diverged_number_is_a_conflict_older_first() -> None:
    new = entry("20261002-bbbb", "The dev server listens on port 8080.", "dev-server")
    old = entry("20261001-aaaa", "The dev server listens on port 3000.", "dev-server")
    # tokens with numbers: 6 shared of 8 → 0.75; confidence 0.5 + 0.5 * 0.75
    assert find_conflicts([new, old]) == [
        ConflictPair(
            older="20261001-aaaa",
            newer="20261002-bbbb",
            layer="project",
            shared="dev-server",
            values=("3000", "8080"),
            confidence=0.875,
            similarity=0.75,
            numeric=True,
        )
    ]


def test_no_shared_keyword_no_conflict() -> None:
    a = entry("20261001-aaaa", "The dev server listens on port 3000.", "dev-server")
    b = entry("20261002-bbbb", "The dev server listens on port 8080.", "api")
    assert find_conflicts([a, b]) == []


def test_keywords_match_by_canonical_key() -> None:
    a = entry("20261001-aaaa", "The dev server listens on port 3000.", "Dev Server")
    b = entry("20261002-bbbb", "The dev server listens on port 8080.", "dev_server")
    [pair] = find_conflicts([a, b])
    assert pair.shared == "Dev Server"


def test_identical_bodies_are_left_to_the_duplicate_detector() -> None:
    a = entry("20261001-aaaa", "Use pnpm for installs.")
    b = entry("20261002-bbbb", "use  PNPM for installs")
    assert find_conflicts([a, b]) == []


def test_replaced_words_are_a_conflict_with_those_words_as_values() -> None:
    a = entry("20261001-aaaa", "Use pnpm for installs", "installs")
    b = entry("20261002-bbbb", "Use npm for installs", "installs")
    [pair] = find_conflicts([a, b])
    assert (pair.values, pair.numeric) == (("pnpm", "npm"), False)
    assert pair.similarity == pytest.approx(3 / 5)
    assert pair.confidence == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "Deploy goes through rsync to the staging host before every release.",
            "Deploys go through rsync to the staging host before each release.",
        ),
        (
            "The dev database is started by docker compose.",
            "The dev database is the one that docker compose starts.",
        ),
        # The design's own example pair: a merge candidate, never a conflict.
        (
            "Deploy goes through rsync to the staging host.",
            "Deploy uses rsync to reach the staging host.",
        ),
        # A Chinese rewording: its character pairs are not values.
        ("测试数据库由 docker compose 启动。", "测试数据库用 docker compose 来启动。"),
    ],
)
def test_a_rewording_is_a_merge_candidate_not_a_conflict(older: str, newer: str) -> None:
    a = entry("20261001-aaaa", older)
    b = entry("20261002-bbbb", newer)
    assert find_conflicts([a, b]) == find_conflicts_bruteforce([a, b]) == []
    [duplicate] = find_duplicates([a, b])
    assert (duplicate.a, duplicate.b) == ("20261001-aaaa", "20261002-bbbb")


@pytest.mark.parametrize(
    ("older", "newer", "values"),
    [
        (
            "Deploy goes through rsync to the staging host before every release.",
            "Deploys go through scp to the staging host before each release.",
            ("rsync", "scp"),
        ),
        (
            "Run the unit tests before every deploy.",
            "Run the unit tests after each deploy.",
            ("before", "after"),
        ),
        (
            "Always use tabs in the Makefile.",
            "Never use tabs in the Makefile.",
            ("always", "never"),
        ),
        (
            "The dev database is started by docker compose.",
            "The dev database is started by podman compose.",
            ("docker", "podman"),
        ),
        (
            "测试数据库由 docker compose 启动。",
            "测试数据库由 podman compose 启动。",
            ("docker", "podman"),
        ),
        ("Logs go to /var/log/app.", "Logs go to /srv/log/app.", ("var", "srv")),
    ],
)
def test_a_word_conflicts_values_are_the_content_words_that_differ(
    older: str, newer: str, values: tuple[str, ...]
) -> None:
    a = entry("20261001-aaaa", older)
    b = entry("20261002-bbbb", newer)
    pairs = find_conflicts([a, b])
    assert pairs == find_conflicts_bruteforce([a, b])
    [pair] = pairs
    assert (pair.values, pair.numeric) == (values, False)


def test_an_addition_is_an_elaboration_not_a_conflict() -> None:
    a = entry("20261001-aaaa", "Use pnpm for installs")
    b = entry("20261002-bbbb", "Use pnpm for installs in CI")
    assert find_conflicts([a, b]) == []


def test_unrelated_bodies_under_one_keyword_are_not_a_conflict() -> None:
    a = entry("20261001-aaaa", "Deploy with rsync --delete; back up the previous release first 2")
    b = entry("20261002-bbbb", "Deploys happen on Fridays after 5")
    assert find_conflicts([a, b]) == []


def test_a_number_on_one_side_only_is_judged_by_words() -> None:
    a = entry("20261001-aaaa", "Builds run on node 18")
    b = entry("20261002-bbbb", "Builds run on node")
    assert find_conflicts([a, b]) == []


def test_numbers_rank_first_then_similarity() -> None:
    store = [
        entry("20261001-aaaa", "Use pnpm for installs", "installs"),
        entry("20261002-bbbb", "Use npm for installs", "installs"),
        entry("20261003-cccc", "API timeout is 30 seconds for the staging host", "timeout"),
        entry("20261004-dddd", "API timeout is 60 seconds", "timeout"),
        entry("20261005-eeee", "The dev server listens on port 3000.", "dev-server"),
        entry("20261006-ffff", "The dev server listens on port 8080.", "dev-server"),
    ]
    pairs = find_conflicts(store)
    assert [(p.older, p.newer, p.numeric) for p in pairs] == [
        ("20261005-eeee", "20261006-ffff", True),
        ("20261003-cccc", "20261004-dddd", True),
        ("20261001-aaaa", "20261002-bbbb", False),
    ]
    assert pairs[1].values == ("30", "60")


def test_superseded_rows_and_other_layers_are_ignored() -> None:
    a = entry(
        "20261001-aaaa", "The dev server listens on port 3000.", superseded_by="20261002-bbbb"
    )
    b = entry("20261002-bbbb", "The dev server listens on port 8080.")
    c = entry("20261003-cccc", "The dev server listens on port 9090.", layer="user")
    assert find_conflicts([a, b, c]) == []


@pytest.mark.parametrize("seed", range(120))
def test_fast_path_equals_the_definition(seed: int) -> None:
    store = random_store(seed)
    assert find_conflicts(store) == find_conflicts_bruteforce(store)


def test_one_large_keyword_group_goes_through_the_index_and_stays_exact() -> None:
    words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
    store = [
        entry(
            f"2026100{1 + i % 9}-{i:04x}",
            (
                " ".join(words[(i + k) % 8] for k in range(i % 5 + 2))
                if i % 2
                # One word swapped where it stands: a changed value.
                else f"zeta {words[(i // 2) % 8]} theta eta"
            )
            + f" {i % 7}",
            "one-keyword",
        )
        for i in range(300)
    ]
    fast = find_conflicts(store)
    assert fast == find_conflicts_bruteforce(store)
    assert any(p.numeric for p in fast)
    assert any(not p.numeric for p in fast)


def _swapped_prose(seed: int, count: int) -> list[str]:
    """Bodies of about 1 to 12 words under one keyword, many a copy of another with a few
    runs of words replaced where they stood, some with a function word or an inflection
    of one of their words (two spellings of one content word)."""
    rng = random.Random(seed)
    syllables = ["ka", "lo", "mi", "ren", "tas", "vo", "zu", "pel"]
    vocabulary = [a + b for a in syllables for b in syllables]
    vocabulary += ["deploy", "deploys", "release", "released"]
    bodies: list[str] = []
    for _ in range(count):
        if bodies and rng.random() < 0.6:
            words = rng.choice(bodies).split()
            for _ in range(rng.randint(1, 3)):
                # One to three words where one to three stood: the sizes drift apart too.
                at = rng.randrange(len(words))
                words[at : at + rng.randint(1, 3)] = rng.sample(vocabulary, rng.randint(1, 3))
        else:
            words = rng.sample(vocabulary, rng.randint(1, 12))
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words) + 1), rng.choice(["the", "is", "to"]))
        bodies.append(" ".join(words))
    return bodies


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("path", ["prefix", "dense"])
def test_a_large_keyword_group_of_replaced_words_stays_exact(
    monkeypatch: pytest.MonkeyPatch, path: str, seed: int
) -> None:
    # Large enough for the join, without numbers: every pair the rule accepts has to
    # come out of the join's filters, short bodies and long, one word replaced or three,
    # by either way of joining.
    if path == "prefix":
        monkeypatch.setattr(set_join, "DENSE_MIN_GROUP", math.inf)
    else:
        monkeypatch.setattr(set_join, "DENSE_MIN_GROUP", 0)
        monkeypatch.setattr(set_join, "PREFIX_VISIT_COST", math.inf)
    bodies = _swapped_prose(seed, 240)
    store = [
        entry(f"2026100{1 + i % 9}-{i:04x}", body, "one-keyword") for i, body in enumerate(bodies)
    ]
    fast = find_conflicts(store)
    assert fast == find_conflicts_bruteforce(store)
    assert not any(p.numeric for p in fast)
    replaced = {len(p.values) for p in fast}
    assert {2, 4, 6} <= replaced, replaced  # 1, 2 and 3 words on each side


@pytest.mark.parametrize("seed", range(4))
def test_small_keyword_groups_of_replaced_words_stay_exact(seed: int) -> None:
    # Groups small enough to be compared pair by pair, by ascending size: a word
    # conflict whose sides differ in size (one word for two or three) has to be found
    # as surely as one of equal sizes.
    store = [
        entry(f"2026100{1 + i % 9}-{k:02x}{i:02x}", body, f"keyword-{k}")
        for k in range(40)
        for i, body in enumerate(_swapped_prose(seed * 1000 + k, set_join.SMALL_GROUP))
    ]
    fast = find_conflicts(store)
    assert fast == find_conflicts_bruteforce(store)
    uneven = {len(p.values) for p in fast} & {3, 5}  # 1 for 2 or 2 for 3 words
    assert uneven, {len(p.values) for p in fast}


def test_random_stores_produce_both_kinds() -> None:
    pairs = [pair for seed in range(40) for pair in find_conflicts(random_store(seed))]
    assert any(p.numeric for p in pairs)
    assert any(not p.numeric for p in pairs)


@pytest.mark.parametrize("seed", range(20))
def test_order_does_not_depend_on_input_order(seed: int) -> None:
    store = random_store(2000 + seed)
    assert find_conflicts(shuffled(store, seed)) == find_conflicts(store)


def test_limit_keeps_the_best() -> None:
    store = random_store(11, 250)
    full = find_conflicts(store)
    assert len(full) > 2
    assert find_conflicts(store, limit=2) == full[:2]


def test_a_pair_exactly_at_the_similarity_gate_is_kept() -> None:
    # words: 3 of 10 shared → exactly 0.3, and the sizes' ratio is exactly the gate too.
    a = entry("20261001-aaaa", "alpha beta gamma 3000", "k")
    b = entry("20261002-bbbb", "alpha beta gamma da db dc dd de df dg 8080", "k")
    pairs = find_conflicts([a, b])
    assert pairs == find_conflicts_bruteforce([a, b])
    assert [p.values for p in pairs] == [("3000", "8080")]


def test_a_future_date_counts_as_now_and_never_outranks_a_correction_of_that_moment() -> None:
    from datetime import datetime

    now = datetime(2026, 10, 5, 12, 0, 0)
    planted = entry(
        "20991231-ffff", "The dev server listens on port 6666.", "dev-server",
        time="2099-12-31 23:59:59",
    )  # fmt: skip
    earlier = entry("20261005-aaaa", "The dev server listens on port 8080.", "dev-server",
                    time="2026-10-05 11:59:59")  # fmt: skip
    correction = earlier._replace(time="2026-10-05 12:00:00")
    # The planted row counts as written now: later than a write of a second ago ...
    assert [(p.older, p.newer) for p in find_conflicts([planted, earlier], now=now)] == [
        ("20261005-aaaa", "20991231-ffff")
    ]
    # ... but not later than a correction written now, whatever its date or id claims.
    for found in (
        find_conflicts([planted, correction], now=now),
        find_conflicts_bruteforce([correction, planted], now=now),
    ):
        assert [(p.older, p.newer) for p in found] == [("20991231-ffff", "20261005-aaaa")]
    [dup] = find_duplicates([planted, correction._replace(body=planted.body)], now=now)
    assert (dup.a, dup.b) == ("20991231-ffff", "20261005-aaaa")
