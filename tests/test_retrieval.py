from __future__ import annotations

import math
import random
from datetime import datetime, timedelta, timezone

import pytest

from pi_memory.entry import Entry, format_time
from pi_memory.keywords import stem
from pi_memory.retrieval import (
    PAGE_SIZE,
    Hit,
    SearchResult,
    idf,
    phrases,
    render_search,
    search,
)
from pi_memory.tokens import tokenize
from tests.conftest import DATA

NOW = datetime(2026, 10, 1, 10, 0, 0)
GOLDEN = DATA / "search"


def ago(days: float) -> str:
    return format_time(NOW - timedelta(days=days))


def make(
    id_: str,
    body: str,
    keyword: str = "misc",
    *,
    days: float = 1,
    file: str = "DECISIONS.md",
    layer: str = "project",
    last: str = "",
    seen: int = 1,
    src: str = "user",
    supersedes: tuple[str, ...] = (),
    superseded_by: str = "",
    type_: str = "",
) -> Entry:
    return Entry(
        id=id_,
        time=ago(days),
        project="myrepo",
        src=src,
        keyword=keyword,
        body=body,
        layer=layer,
        file=file,
        seen=seen,
        last=last,
        supersedes=supersedes,
        superseded_by=superseded_by,
        type=type_,
    )


def ids(result: SearchResult) -> list[str]:
    return [hit.entry.id for hit in result.hits]


def all_ids(entries: list[Entry], query: str, **kw: object) -> list[str]:
    first = search(entries, query, now=NOW, **kw)  # type: ignore[arg-type]
    out = ids(first)
    for page in range(2, first.pages + 1):
        out += ids(search(entries, query, now=NOW, page=page, **kw))  # type: ignore[arg-type]
    return out


# -- tokenize ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Deploy with rsync", ["deploy", "rsync"]),
        ("rsync --delete", ["rsync", "--delete"]),
        ("edit src/store.ts and node.js", ["edit", "src/store.ts", "node.js"]),
        ("the a of and to", []),
        ("", []),
        ("x y z 3000", ["3000"]),
        ("Deploy deploy DEPLOY", ["deploy"]),
        ("snake_case near-duplicate", ["snake_case", "near-duplicate"]),
        ("file.txt.", ["file.txt"]),
        ("部署", ["部署"]),
        ("部署前备份", ["部署前备份", "部署", "署前", "前备", "备份"]),
        ("锁", ["锁"]),
        ("用 rsync 部署", ["用", "rsync", "部署"]),
        # CJK Extension B is Han too: a run, then its 2-grams.
        ("𠀀𠀁𠀂", ["𠀀𠀁𠀂", "𠀀𠀁", "𠀁𠀂"]),
        ("部署𠀀", ["部署𠀀", "部署", "署𠀀"]),
        ("rsync𠀀𠀁", ["rsync", "𠀀𠀁"]),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


# -- keyword mode ------------------------------------------------------------


def test_hit_needs_any_one_token() -> None:
    entries = [
        make("20260901-0001", "Deploy with rsync."),
        make("20260901-0002", "Backups go to S3."),
    ]
    result = search(entries, "rsync kubernetes", now=NOW)
    assert ids(result) == ["20260901-0001"]
    assert result.mode == "keyword"
    assert not result.fallback
    assert result.total == 1


def saturated(hits: int, length_ratio: float = 1.0) -> float:
    return hits * 2.2 / (hits + 1.2 * (0.25 + 0.75 * length_ratio))


def test_score_formula() -> None:
    # coverage 1 * 10 + tagExact 4 + textHits (2 hits, saturated) * 0.5 + recency (1.5 - 30/60)
    entry = make("20260901-0001", "deploy then deploy again", "deploy", days=30)
    (hit,) = search([entry], "deploy", now=NOW).hits
    assert hit.score == round(10 + 4 + 0.5 * saturated(2) + 1.0, 4) == 15.6875


def test_tag_partial_and_old_entries_get_no_recency() -> None:
    # A token every entry has says little; one no entry has weighs most:
    # coverage = idf(deploy) / (idf(deploy) + idf(kubernetes)) over a store of one.
    entry = make("20260901-0001", "deploy notes", "deploy-script", days=200)
    (hit,) = search([entry], "deploy kubernetes", now=NOW).hits
    deploy, kubernetes = math.log(1 + 0.5 / 1.5), math.log(1 + 1.5 / 0.5)
    coverage = deploy / (deploy + kubernetes)
    # coverage * 10 + tagPartial 2 + textHits (1 hit, its share of the weight) * 0.5 + recency 0
    assert hit.score == round(10 * coverage + 2 + 0.5 * coverage * saturated(1), 4)


def test_idf_and_saturation_with_unit_weights() -> None:
    assert idf(10, 10) < idf(10, 1) < idf(10, 0)
    assert idf(4, 2) == math.log(2.0)


def test_rare_query_words_count_more_than_common_ones() -> None:
    filler = [make(f"20260903-{i:04x}", f"Caroline told Caroline hello {i}") for i in range(8)]
    entries = [
        *filler,
        make("20260902-0001", "Caroline went to a pottery class."),
        make("20260902-0002", "The pottery class is on Fridays."),
    ]
    # "caroline" is in nine entries, "pottery" in two: the pottery notes rank first,
    # the one with both words above the one with pottery alone.
    assert ids(search(entries, "Caroline pottery", now=NOW))[:2] == [
        "20260902-0001",
        "20260902-0002",
    ]


@pytest.mark.parametrize(
    ("token", "stemmed"),
    [
        ("painted", "paint"),
        ("painting", "paint"),
        ("running", "run"),
        ("stopped", "stop"),
        ("studies", "stud"),
        ("boxes", "box"),
        ("places", "place"),
        ("dogs", "dog"),
        ("quickly", "quick"),
        ("class", "class"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("called", "call"),
        ("node.js", "node.js"),
        ("3000s", "3000s"),
        ("部署", "部署"),
        ("bed", "bed"),
        ("deploy", "deploy"),
    ],
)
def test_stem(token: str, stemmed: str) -> None:
    assert stem(token) == stemmed


def test_inflected_query_finds_other_forms() -> None:
    entries = [make("20260901-0001", "Melanie paints landscapes every weekend.")]
    for query in ("painting", "painted"):
        result = search(entries, query, now=NOW)
        assert (ids(result), result.fallback) == (["20260901-0001"], False)


def test_one_repeated_word_does_not_dominate() -> None:
    entries = [
        make("20260901-0001", " ".join(["cache"] * 20)),
        make("20260901-0002", "cache cleared by redis eviction"),
    ]
    # Two of three words beat one word said twenty times.
    assert ids(search(entries, "cache eviction policy", now=NOW))[0] == "20260901-0002"


def test_a_phrase_found_verbatim_ranks_first() -> None:
    assert phrases("When did Caroline join the book club?") == [
        "did caroline",
        "caroline join",
        "join the",
        "the book",
        "book club",
    ]
    entries = [
        make("20260901-0001", "Caroline read a book at a club."),
        make("20260901-0002", "Caroline joined the book club with her friends last month."),
    ]
    # Same words found, the shorter body has the denser hits, but only one has the phrase.
    assert ids(search(entries, "Caroline book club", now=NOW)) == [
        "20260901-0002",
        "20260901-0001",
    ]


def test_query_words_in_neighbouring_words_rank_above_the_same_words_apart() -> None:
    # The same words in another order: "sunset painting" holds "paint" and "sunset"
    # side by side, by their forms, though not as the query spells them.
    entries = [
        make("20260901-0001", "the old fence at sunset painting"),
        make("20260901-0002", "painting the old fence at sunset"),
    ]
    ranked = search(entries, "paint sunset", now=NOW).hits
    assert [hit.entry.id for hit in ranked] == ["20260901-0001", "20260901-0002"]
    assert ranked[0].score > ranked[1].score


def test_query_words_in_one_sentence_rank_above_the_same_words_in_two() -> None:
    entries = [
        make("20260901-0001", "Deploy on Friday. Check the port of staging first."),
        make("20260901-0002", "Deploy to staging on Friday. Check the port first."),
    ]
    ranked = search(entries, "staging port", now=NOW).hits
    assert [hit.entry.id for hit in ranked] == ["20260901-0001", "20260901-0002"]
    assert ranked[0].score > ranked[1].score
    # A word the keyword holds is about the whole memory: its sentence does not matter.
    tagged = [entry._replace(keyword="staging") for entry in entries]
    first, second = search(tagged, "staging port", now=NOW).hits
    assert first.score == second.score
    # The dot of an identifier ends no sentence.
    one = make("20260901-0003", "Build node.js with the port set.")
    two = make("20260901-0004", "Build node.js. Set the port too.")
    ranked = search([one, two], "node.js port", now=NOW).hits
    assert [hit.entry.id for hit in ranked] == ["20260901-0003", "20260901-0004"]


def test_shorter_body_with_the_same_hits_ranks_higher() -> None:
    entries = [
        make("20260901-0001", "rsync on deploy"),
        make("20260901-0002", "rsync " + "padding words here " * 20),
    ]
    assert ids(search(entries, "rsync", now=NOW)) == ["20260901-0001", "20260901-0002"]


def test_token_found_only_in_the_keyword_counts_for_coverage() -> None:
    entry = make("20260901-0001", "Use the staging host.", "rsync", days=200)
    (hit,) = search([entry], "rsync", now=NOW).hits
    assert hit.score == 14.0  # coverage 10 + tagExact 4


def test_coverage_dominates_recency() -> None:
    entries = [
        make("20260901-0001", "deploy", days=0),
        make("20260901-0002", "deploy with rsync", days=300),
    ]
    assert ids(search(entries, "deploy rsync", now=NOW)) == ["20260901-0002", "20260901-0001"]


def test_recency_breaks_ties() -> None:
    entries = [
        make("20260901-0001", "deploy", days=50),
        make("20260901-0002", "deploy", days=5),
        make("20260901-0003", "deploy", days=500),
        make("20260901-0004", "deploy", days=400),
    ]
    assert ids(search(entries, "deploy", now=NOW)) == [
        "20260901-0002",
        "20260901-0001",
        "20260901-0004",
        "20260901-0003",
    ]


def test_age_uses_last_confirmation() -> None:
    entries = [
        make("20260901-0001", "deploy", days=10),
        make("20260901-0002", "deploy", days=300, last=ago(1)),
    ]
    assert ids(search(entries, "deploy", now=NOW)) == ["20260901-0002", "20260901-0001"]


def test_fallback_lists_newest_when_nothing_matched() -> None:
    entries = [make(f"20260901-000{i}", f"note {i}", days=i) for i in range(1, 4)]
    result = search(entries, "kubernetes", now=NOW)
    assert result.fallback
    assert result.mode == "keyword"
    assert ids(result) == ["20260901-0001", "20260901-0002", "20260901-0003"]
    assert all(hit.score == 0.0 for hit in result.hits)


@pytest.mark.parametrize("query", ["", "   ", "the and of", "a"])
def test_empty_or_stopword_query_lists_newest(query: str) -> None:
    entries = [make("20260901-0001", "old", days=9), make("20260901-0002", "new", days=1)]
    result = search(entries, query, now=NOW)
    assert result.mode == "recent"
    assert not result.fallback
    assert ids(result) == ["20260901-0002", "20260901-0001"]


def test_identifier_query_is_matched_whole() -> None:
    entries = [
        make("20260901-0001", "Writes go through src/store.ts."),
        make("20260901-0002", "The store lives in src and ts files."),
    ]
    assert ids(search(entries, "src/store.ts", now=NOW)) == ["20260901-0001"]


def test_substring_match_finds_inflections() -> None:
    entries = [make("20260901-0001", "Deployment runs nightly.")]
    assert ids(search(entries, "deploy", now=NOW)) == ["20260901-0001"]


# -- Chinese -----------------------------------------------------------------


def test_chinese_query_finds_chinese_body() -> None:
    entries = [
        make("20260901-0001", "部署时先备份上一个版本。", "部署"),
        make("20260901-0002", "Deploy with rsync."),
    ]
    assert ids(search(entries, "部署", now=NOW)) == ["20260901-0001"]
    assert ids(search(entries, "部署前备份", now=NOW)) == ["20260901-0001"]


def test_chinese_query_ranks_more_coverage_first() -> None:
    entries = [
        make("20260901-0001", "部署很慢。", days=1),
        make("20260901-0002", "部署时先备份。", days=100),
    ]
    assert ids(search(entries, "部署备份", now=NOW)) == ["20260901-0002", "20260901-0001"]


# -- other modes -------------------------------------------------------------


def test_tag_mode_is_exact_canonical_lookup() -> None:
    entries = [
        make("20260901-0001", "a", "serialize-conversation", days=2),
        make("20260901-0002", "b", "Serialize Conversation", days=1),
        make("20260901-0003", "c", "serialize", days=1),
        make("20260901-0004", "serialize conversation", "other", days=1),
    ]
    result = search(entries, "#serialize_conversation", mode="tag", now=NOW)
    assert result.mode == "tag"
    assert ids(result) == ["20260901-0002", "20260901-0001"]


def test_tag_mode_without_match_is_empty_not_fallback() -> None:
    result = search([make("20260901-0001", "a", "deploy")], "rsync", mode="tag", now=NOW)
    assert result.hits == ()
    assert not result.fallback
    assert result.total == 0


def test_recent_mode_ignores_the_query() -> None:
    entries = [make("20260901-0001", "deploy", days=5), make("20260901-0002", "other", days=1)]
    result = search(entries, "deploy", mode="recent", now=NOW)
    assert result.mode == "recent"
    assert ids(result) == ["20260901-0002", "20260901-0001"]


def test_all_mode_lists_everything_with_matches_first() -> None:
    entries = [
        make("20260901-0001", "deploy", days=100),
        make("20260901-0002", "other", days=1),
        make("20260901-0003", "other", days=3),
    ]
    result = search(entries, "deploy", mode="all", now=NOW)
    assert result.mode == "all"
    assert ids(result) == ["20260901-0001", "20260901-0002", "20260901-0003"]
    assert result.hits[1].score == pytest.approx(3 * (1.5 - 1 / 60))


def test_all_mode_recency_is_three_times_stronger() -> None:
    entry = make("20260901-0001", "deploy", days=30)
    keyword_score = search([entry], "deploy", now=NOW).hits[0].score
    all_score = search([entry], "deploy", mode="all", now=NOW).hits[0].score
    assert all_score - keyword_score == pytest.approx(2 * 1.0)


def test_id_mode_and_id_shaped_queries() -> None:
    entries = [make("20260901-0001", "a"), make("20260901-0002", "b 20260901-0001")]
    for mode in ("keyword", "tag", "recent", "all", "id"):
        result = search(entries, "20260901-0001", mode=mode, now=NOW)
        assert result.mode == "id"
        assert ids(result) == ["20260901-0001"]
    assert ids(search(entries, "[20260901-0002]", now=NOW)) == ["20260901-0002"]
    assert search(entries, "20260901-9999", now=NOW).hits == ()
    assert search(entries, "not an id", mode="id", now=NOW).hits == ()


def test_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown search mode 'fuzzy'"):
        search([], "x", mode="fuzzy", now=NOW)


# -- demotion ----------------------------------------------------------------


def test_stale_below_fresh_and_superseded_last() -> None:
    entries = [
        make("20260101-0001", "deploy deploy deploy", "deploy", days=400, file="FAILURES.md"),
        make("20260901-0002", "deploy once", days=10),
        make(
            "20260901-0003", "deploy deploy deploy", "deploy", days=1, superseded_by="20260901-0002"
        ),
        make("20260901-0004", "deploy", days=100, file="TOOLING.md"),
    ]
    result = search(entries, "deploy", now=NOW)
    assert ids(result) == ["20260901-0002", "20260101-0001", "20260901-0004", "20260901-0003"]
    stale = [hit.stale for hit in result.hits]
    assert stale[0] is None
    assert stale[1] == "stale (400d, interval 12mo) — verify before relying on it"
    assert stale[2] == "stale (100d, interval 3mo) — verify before relying on it"
    assert stale[3] is None


def test_review_months_override_is_applied() -> None:
    entries = [make("20260901-0001", "deploy", days=40), make("20260901-0002", "deploy", days=50)]
    result = search(entries, "deploy", now=NOW, review_months=1)
    assert [hit.stale is not None for hit in result.hits] == [True, True]


def test_demotion_applies_to_listings_too() -> None:
    entries = [
        make("20260901-0001", "a", days=1, superseded_by="20260901-0003"),
        make("20260901-0002", "b", days=200, file="TOOLING.md"),
        make("20260901-0003", "c", days=300),
    ]
    assert ids(search(entries, "", now=NOW)) == ["20260901-0003", "20260901-0002", "20260901-0001"]


def test_files_layout_type_decides_the_interval() -> None:
    entries = [make("20260901-0001", "deploy", days=100, file="Deploy.md", type_="reference")]
    assert search(entries, "deploy", now=NOW).hits[0].stale is not None


def test_aware_now() -> None:
    entries = [make("20260901-0001", "deploy", days=400)]
    result = search(entries, "deploy", now=NOW.astimezone(timezone.utc))
    assert result.hits[0].stale == "stale (400d, interval 12mo) — verify before relying on it"


# -- paging ------------------------------------------------------------------


def test_ten_per_page() -> None:
    entries = [make(f"20260901-{i:04x}", f"deploy {i}", days=i + 1) for i in range(25)]
    first = search(entries, "deploy", now=NOW)
    assert (first.total, first.pages, len(first.hits)) == (25, 3, PAGE_SIZE)
    third = search(entries, "deploy", page=3, now=NOW)
    assert len(third.hits) == 5
    beyond = search(entries, "deploy", page=4, now=NOW)
    assert beyond.hits == ()
    assert beyond.page == 4
    assert search(entries, "deploy", page=0, now=NOW).page == 1
    assert all_ids(entries, "deploy") == [f"20260901-{i:04x}" for i in range(25)]


# -- properties --------------------------------------------------------------

_WORDS = ["deploy", "rsync", "backup", "port", "3000", "node.js", "部署", "备份", "cache", "lint"]
_FILES = ["TOOLING.md", "USER.md", "DECISIONS.md", "FAILURES.md"]


def _random_store(rng: random.Random, size: int) -> list[Entry]:
    entries = []
    for i in range(size):
        body = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6)))
        entries.append(
            make(
                f"2026{rng.randint(1, 9):02d}01-{i:04x}",
                body,
                rng.choice(_WORDS),
                days=rng.choice([rng.uniform(0, 500), 7.0]),
                file=rng.choice(_FILES),
                superseded_by="20260101-ffff" if rng.random() < 0.1 else "",
            )
        )
    return entries


def test_ranking_is_independent_of_input_order_and_well_ordered() -> None:
    rng = random.Random(2026)
    for _ in range(150):
        entries = _random_store(rng, rng.randint(0, 45))
        query = " ".join(rng.sample(_WORDS, rng.randint(0, 3)))
        mode = rng.choice(["keyword", "all", "recent", "tag"])
        expected = all_ids(entries, query, mode=mode)
        shuffled = entries[:]
        rng.shuffle(shuffled)
        assert all_ids(shuffled, query, mode=mode) == expected
        assert len(set(expected)) == len(expected)
        by_id = {entry.id: entry for entry in entries}
        groups = [2 if not by_id[i].live else 1 if _stale(by_id[i]) else 0 for i in expected]
        assert groups == sorted(groups)


def _stale(entry: Entry) -> bool:
    return search([entry], "", now=NOW).hits[0].stale is not None


def test_scores_never_increase_within_a_group() -> None:
    rng = random.Random(99)
    for _ in range(100):
        entries = _random_store(rng, 30)
        query = " ".join(rng.sample(_WORDS, 2))
        result = search(entries, query, now=NOW)
        hits = list(result.hits)
        for a, b in zip(hits, hits[1:]):
            if _group(a) == _group(b):
                assert a.score >= b.score


def _group(hit: Hit) -> int:
    return 2 if not hit.entry.live else 1 if hit.stale else 0


def test_keyword_hits_are_exactly_the_matching_entries() -> None:
    rng = random.Random(5)
    for _ in range(100):
        entries = _random_store(rng, 30)
        query = rng.choice(_WORDS)
        body_form = stem(query)
        expected = {
            e.id for e in entries if body_form in e.body.lower() or query in e.keyword.lower()
        }
        found = set(all_ids(entries, query))
        if expected:
            assert found == expected
        else:
            assert search(entries, query, now=NOW).fallback


def test_hundred_thousand_entries() -> None:
    rng = random.Random(1)
    words = [f"word{i}" for i in range(300)] + ["deploy", "rsync", "部署"]
    times = [format_time(NOW - timedelta(minutes=i)) for i in range(0, 100_000, 60)]
    entries = [
        Entry(
            id=f"2026{i // 65536 + 1:02d}01-{i % 65536:04x}",
            time=times[i // 60],
            project="p",
            src="auto",
            keyword=keyword,
            body=" ".join(rng.choices(words, k=12)),
            file=file,
        )
        for i, keyword, file in zip(
            range(100_000), rng.choices(words, k=100_000), rng.choices(_FILES, k=100_000)
        )
    ]
    result = search(entries, "deploy rsync", now=NOW)
    assert result.total > 0
    assert len(result.hits) == PAGE_SIZE
    assert search(entries, "部署", mode="all", now=NOW).total == 100_000


# -- rendering ---------------------------------------------------------------


def golden_store() -> list[Entry]:
    return [
        make(
            "20250827-aabb",
            "Deploy with `rsync --delete`; back up the previous release first.",
            "deploy",
            days=400,
            file="FAILURES.md",
            src="auto",
        ),
        make(
            "20260920-c0de",
            "Deploy through the staging host first.\n\nThen promote:\n  make promote",
            "deploy",
            days=11,
            seen=3,
            last=ago(2),
            supersedes=("20260801-dead",),
        ),
        make(
            "20260801-dead",
            "Deploy straight to production.",
            "deploy",
            days=61,
            superseded_by="20260920-c0de",
        ),
        make(
            "20260915-beef",
            "The dev server listens on port 3000.",
            "dev-server",
            days=16,
            file="CONVENTIONS.md",
        ),
        make(
            "20260910-f00d",
            "部署时先备份上一个版本。",
            "部署",
            days=21,
            layer="user",
            file="LESSONS.md",
        ),
        make(
            "20260301-0bad",
            "pnpm, not npm, in this repository.",
            "pnpm",
            days=214,
            layer="user",
            file="TOOLING.md",
        ),
    ]


def _paged_store() -> list[Entry]:
    return [
        make(f"20260901-{i:04x}", f"Cache note number {i}.", "cache", days=i) for i in range(23)
    ]


def _damaged_store() -> list[Entry]:
    """Times a hand edit or the other layout may leave, and a CRLF body."""
    return [
        make("20260930-0001", "Deploy notes\r\nwith CRLF   \r\n", "deploy")._replace(
            time="garbage"
        ),
        make("20260930-0002", "Deploy from the files layout.", "deploy")._replace(
            time="2026-09-30T08:00:00",
        ),
        make("20260930-0003", "Deploy, date only.", "deploy", file="TOOLING.md")._replace(
            time="2026-01-02",
        ),
    ]


GOLDEN_CASES = {
    "damaged_times": (_damaged_store, "deploy", "keyword", 1),
    "keyword_deploy": (golden_store, "deploy", "keyword", 1),
    "keyword_fallback": (golden_store, "kubernetes", "keyword", 1),
    "keyword_chinese": (golden_store, "部署前备份", "keyword", 1),
    "tag_deploy": (golden_store, "#Deploy", "tag", 1),
    "tag_no_match": (golden_store, "rsync", "tag", 1),
    "recent": (golden_store, "", "recent", 1),
    "all_port": (golden_store, "port", "all", 1),
    "id_lookup": (golden_store, "20260801-dead", "keyword", 1),
    "empty_store": (list, "deploy", "keyword", 1),
    "paged_first": (_paged_store, "cache", "keyword", 1),
    "paged_last": (_paged_store, "cache", "keyword", 3),
    "paged_beyond": (_paged_store, "cache", "keyword", 4),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_render_golden(name: str) -> None:
    factory, query, mode, page = GOLDEN_CASES[name]
    result = search(factory(), query, mode=mode, page=page, now=NOW)
    expected = (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")
    assert render_search(result) == expected


def test_golden_files_are_all_used() -> None:
    assert {path.stem for path in GOLDEN.glob("*.txt")} == set(GOLDEN_CASES)


def test_render_crlf_body_has_no_carriage_returns() -> None:
    entry = make("20260901-0001", "line one\r\nline two\r\n", "crlf")
    text = render_search(search([entry], "line", now=NOW))
    assert "\r" not in text
    assert "  line one\n  line two\n" in text


def test_a_page_past_the_end_is_not_numbered_as_one_of_them() -> None:
    """``search --mode recent --page 2`` of a one-page store printed ``page 2/1``."""
    entries = [make("20260901-0001", "deploy", days=1)]
    header, note = render_search(search(entries, "", mode="recent", page=2, now=NOW)).split("\n")[
        :2
    ]
    assert "page 2/1" not in header and "/" not in header.rsplit("·", 1)[-1]
    assert note == "nothing on page 2 — 1 page in all"


def test_a_fallback_header_counts_no_results() -> None:
    """When nothing matched, the newest memories listed instead are not results."""
    entries = [make(f"20260901-000{i}", f"note {i}", days=i) for i in range(1, 4)]
    header, note = render_search(search(entries, "kubernetes", now=NOW)).split("\n")[:2]
    assert " · 0 results · " in header
    assert note == "no match — the newest memories instead (3 in all)"
