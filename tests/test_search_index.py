"""The search index finds exactly the entries the scorer keeps, and is never believed stale."""

from __future__ import annotations

import os
import random
import subprocess
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from pi_memory import search_index
from pi_memory.entry import CATEGORY_FILES, PROJECT, USER, Entry
from pi_memory.keywords import stem
from pi_memory.layouts.categories.format import format_entry
from pi_memory.open_store import open_store
from pi_memory.query_terms import answer_shape
from pi_memory.retrieval import (
    Candidates,
    Corpus,
    SearchResult,
    search,
    search_candidates,
    search_index_terms,
)
from pi_memory.store import Store
from pi_memory.tokens import tokenize

NOW = datetime(2026, 11, 30, 12, 0, 0)
WORDS = [
    "deploy", "deployment", "rsync", "staging", "node.js", "src/store.ts", "--delete", "port",
    "5433", "redis", "cache", "painted", "painting", "部署", "备份", "部署前备份", "c++", "c#",
    "the", "with", "Use", "DEPLOYS", "café", "naïve", "x-ray", "e2e", "ports,", "(redis)",
    # Read as a question: irregular forms, hyphenated words, dates, scaffolding.
    "went", "going", "children", "child", "self-care", "care", "October", "2026", "how long",
    # An answer of the shape asked ("when" is answered by a time).
    "When", "last week", "yesterday", "twice",
]  # fmt: skip
KEYWORDS = ["deploy", "redis-cache", "部署", "c++", "ports", "misc", "Node.js"]


def random_entries(rng: random.Random, layer: str, size: int) -> list[Entry]:
    files = CATEGORY_FILES[layer]
    entries = []
    for i in range(size):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))
        day = rng.randint(1, 28)
        entries.append(
            Entry(
                id=f"202610{day:02d}-{layer[0]}{i:03x}",
                time=f"2026-10-{day:02d} 10:00:00",
                project="p",
                src="auto",
                keyword=rng.choice(KEYWORDS),
                body=body,
                layer=layer,
                file=rng.choice(files),
                superseded_by="20260101-dead" if rng.random() < 0.1 else "",
            )
        )
    return entries


def write_layer(directory: Path, entries: list[Entry]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    rows: dict[str, list[str]] = {}
    for entry in entries:
        rows.setdefault(entry.file, []).append(format_entry(entry))
    an_hour_ago = time.time() - 3600  # written earlier, so the index may be kept
    for name, lines in rows.items():
        path = directory / name
        path.write_bytes("".join(lines).encode("utf-8"))
        os.utime(path, (an_hour_ago, an_hour_ago))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def seeded_store(project: Path, home: Path, seed: int) -> Store:
    rng = random.Random(seed)
    write_layer(home / ".pi/agent/memory-auto", random_entries(rng, USER, rng.randint(0, 60)))
    write_layer(project / ".pi/agent/memory-auto", random_entries(rng, PROJECT, 120))
    return open_store(project).store


def full(store: Store, query: str) -> SearchResult:
    return search(store.read_all(), query, now=NOW, review_months=store.settings.review_months)


def test_matching_is_exactly_what_the_scorer_keeps() -> None:
    rng = random.Random(7)
    entries = random_entries(rng, PROJECT, 300)
    index = search_index.build(entries)
    for _ in range(300):
        query = " ".join(rng.sample([*WORDS, "ploy", "dis", "ca", "部", "nothing"], 2))
        terms = search_index_terms(query, "keyword")
        if terms is None:
            continue
        patterns, tokens, _ = terms
        expected = [
            i
            for i, entry in enumerate(entries)
            if any(p in entry.body.lower() for p in patterns)
            or any(t in entry.keyword.lower() for t in tokens)
        ]
        assert search_index.matching(index, patterns, tokens) == expected
        assert search_index.entries_at(index, expected) == [entries[i] for i in expected]


def test_search_index_terms() -> None:
    assert search_index_terms("Painted the deploy", "keyword") == (
        [stem("painted"), "deploy"],
        tokenize("Painted the deploy"),
        ["painted the", "the deploy"],
    )
    assert search_index_terms("c++", "keyword") == (["c++"], ["c++"], [])
    # Each term's first form, then the others, as the scorer counts them.
    went = search_index_terms("went children", "keyword")
    assert went is not None
    assert went.patterns[:2] == ["went", "children"]
    assert set(went.patterns[2:]) == {"goes", "going", "gone", "child"}
    for query, mode in [("deploy", "all"), ("deploy", "tag"), ("20261001-ab12", "keyword")]:
        assert search_index_terms(query, mode) is None
    assert search_index_terms("the of", "keyword") is None


def queries(rng: random.Random, count: int) -> list[str]:
    """Queries of one to four words, with the pairs the bodies hold (phrases) now and then."""
    return [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(count)]


def changed_index(rng: random.Random, entries: list[Entry]) -> search_index.SearchIndex:
    """The index of ``entries`` after writes: some appended, some marked superseded."""
    index = search_index.build(entries[:-20])
    index = search_index.appended(index, entries[-20:-10])
    marked = {n: entries[n]._replace(superseded_by="20261130-beef") for n in (3, 250, 285)}
    replaced = search_index.replaced(index, marked)
    assert replaced is not None
    entries[:] = [marked.get(n, entry) for n, entry in enumerate(entries)]
    return search_index.appended(replaced, entries[-10:])


def test_signals_are_what_the_scorer_counts() -> None:
    rng = random.Random(11)
    entries = random_entries(rng, PROJECT, 300)
    index = changed_index(rng, entries)
    assert search_index.briefs_at(index, range(len(entries))) == [
        search_index.brief_of(entry) for entry in entries
    ]
    for query in queries(rng, 300):
        terms = search_index_terms(query, "keyword")
        if terms is None:
            continue
        found = search_index.signals(index, *terms)
        assert found.positions == search_index.matching(index, terms.patterns, terms.tokens)
        for position, counts, possible in zip(found.positions, found.counts, found.possible):
            body = entries[position].body.lower()
            assert counts == [body.count(pattern) for pattern in terms.patterns]
            assert possible >= sum(phrase in body for phrase in terms.phrases)


def test_search_decodes_only_what_it_returns() -> None:
    rng = random.Random(5)
    entries = random_entries(rng, PROJECT, 300)
    index = changed_index(rng, entries)
    decoded: list[int] = []

    def entry(n: int) -> Entry:
        decoded.append(n)
        return search_index.entries_at(index, [n])[0]

    corpus = Corpus(index.size, index.total_length)
    shaped = ["When deploy?", "how long redis", "when went yesterday cache"]
    for query in [
        "deploy",
        "redis cache",
        "painted care",
        "went 2026",
        *shaped,
        *queries(rng, 200),
    ]:
        terms = search_index_terms(query, "keyword")
        if terms is None:
            continue
        found = search_index.signals(index, *terms)
        if not found.positions:
            continue
        for page in (1, 2, 3):
            decoded.clear()
            result = search_candidates(
                candidates(index, found, entry), query, page=page, now=NOW, corpus=corpus
            )
            chosen = [entries[n] for n in found.positions]
            assert result == search(chosen, query, page=page, now=NOW, corpus=corpus)
            returned = {hit.entry.id for hit in result.hits}
            assert returned <= {entries[n].id for n in decoded}
            if not terms.phrases and answer_shape(query) is None:
                # nothing but the page can earn a body bonus
                assert len(set(decoded)) == len(result.hits)


def candidates(
    index: search_index.SearchIndex, found: search_index.Signals, entry: Callable[[int], Entry]
) -> Candidates:
    """What the store hands the ranking for one index, with ``entry`` to decode a row."""
    positions = found.positions
    return Candidates(
        [list(counts) for counts in found.counts],
        found.in_keyword,
        found.lengths,
        found.moments,
        found.keys,
        found.possible,
        lambda n: search_index.briefs_at(index, [positions[n]])[0],
        lambda n: entry(positions[n]),
    )


def test_a_page_of_strong_matches_reads_no_other_brief() -> None:
    """Three memories hold every word of the query, a hundred only one: the first page
    (of three) is found without reading the hundred."""
    entries = [
        Entry(
            f"20261101-a{i:03x}",
            f"2026-11-01 {i // 60:02d}:{i % 60:02d}:00",
            "p",
            "auto",
            "misc",
            body,
        )
        for i, body in enumerate(
            [f"Port {n} is taken." for n in range(100)] + ["Deploy to staging on port 8080."] * 3
        )
    ]
    index = search_index.build(entries)
    read: list[int] = []

    def brief(n: int) -> search_index.Brief:
        read.append(n)
        return search_index.briefs_at(index, [found.positions[n]])[0]

    query = "deploy staging port"
    found = search_index.signals(index, *search_index_terms(query, "keyword") or ())
    chosen = Candidates(
        [list(c) for c in found.counts], found.in_keyword, found.lengths, found.moments,
        found.keys, found.possible, brief,
        lambda n: search_index.entries_at(index, [found.positions[n]])[0],
    )  # fmt: skip
    corpus = Corpus(index.size, index.total_length)
    result = search_candidates(chosen, query, now=NOW, corpus=corpus)
    assert result == search(entries, query, now=NOW)
    assert [hit.entry.body for hit in result.hits[:3]] == ["Deploy to staging on port 8080."] * 3
    assert result.total == 103
    assert len(read) < 103


@pytest.mark.parametrize("seed", range(10))
def test_indexed_search_equals_the_full_search(
    project: Path, hermetic_home: Path, seed: int
) -> None:
    store = seeded_store(project, hermetic_home, seed)
    rng = random.Random(seed)
    for number, query in enumerate(queries(rng, 60)):
        if number % 20 == 10:  # a write in between: its row is looked through, not indexed
            body = " ".join(rng.sample(WORDS, 5)) + " noted."
            store.write(PROJECT, body, [rng.choice(KEYWORDS)], now=NOW)
        for page in (1, 2, 3):
            assert store.search(query, page=page, now=NOW) == (
                search(
                    store.read_all(),
                    query,
                    page=page,
                    now=NOW,
                    review_months=store.settings.review_months,
                )
            )


def test_the_index_is_kept_and_used(project: Path, hermetic_home: Path) -> None:
    store = seeded_store(project, hermetic_home, 1)
    store.search("deploy", now=NOW)
    kept = sorted((hermetic_home / ".cache/pi_memory").glob("*.search"))
    assert len(kept) == len(CATEGORY_FILES[PROJECT]) + len(CATEGORY_FILES[USER])
    # Damaged: rebuilt, not believed.
    for path in kept:
        path.write_bytes(path.read_bytes()[:40] + b"garbage")
    again = open_store(project).store
    assert again.search("deploy rsync", now=NOW) == full(again, "deploy rsync")


def test_a_changed_file_is_indexed_again(project: Path, hermetic_home: Path) -> None:
    store = seeded_store(project, hermetic_home, 2)
    assert store.search("kubernetes", now=NOW).fallback
    written = store.write(PROJECT, "Deploy to kubernetes with helm.", ["kubernetes"], now=NOW)
    hits = open_store(project).store.search("kubernetes", now=NOW).hits
    assert [hit.entry.id for hit in hits] == [written.entry.id]


def test_a_file_edited_behind_its_back_is_indexed_again(project: Path, hermetic_home: Path) -> None:
    store = seeded_store(project, hermetic_home, 3)
    store.search("deploy", now=NOW)
    path = project / ".pi/agent/memory-auto/CONVENTIONS.md"
    entry = Entry(
        id="20261101-beef",
        time="2026-11-01 10:00:00",
        project="p",
        src="user",
        keyword="zebra",
        body="A zebra crossing near the office.",
        layer=PROJECT,
        file="CONVENTIONS.md",
    )
    with path.open("ab") as handle:
        handle.write(format_entry(entry).encode("utf-8"))
    hits = open_store(project).store.search("zebra", now=NOW).hits
    assert [hit.entry.id for hit in hits] == ["20261101-beef"]


def test_a_write_keeps_the_index_of_its_file_current(project: Path, hermetic_home: Path) -> None:
    store = seeded_store(project, hermetic_home, 4)
    store.search("deploy", now=NOW)
    path = project / ".pi/agent/memory-auto/CONVENTIONS.md"
    written = store.write(
        PROJECT, "Deploy to kubernetes with helm.", ["kubernetes"], file="CONVENTIONS.md", now=NOW
    )
    st = path.stat()
    index = search_index.load(path, (st.st_mtime_ns, st.st_size, st.st_ino))
    assert index is not None  # written by the write itself, not by a later search
    found = search_index.entries_at(index, search_index.matching(index, ["kubernetes"], []))
    assert [entry.id for entry in found] == [written.entry.id]


def _identity(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _parsed(path: Path) -> list[Entry]:
    from pi_memory.layouts.categories.format import decode, parse_entries

    return parse_entries(decode(path.read_bytes()), PROJECT, path.name)


def test_a_write_keeps_its_change_beside_the_index_not_the_index_again(
    project: Path, hermetic_home: Path
) -> None:
    store = seeded_store(project, hermetic_home, 5)
    store.search("deploy", now=NOW)
    path = project / ".pi/agent/memory-auto/CONVENTIONS.md"
    kept = search_index._cache_file(path)[0]
    assert search_index.load(path, _identity(path)) is not None
    before = (kept.stat().st_ino, kept.read_bytes())
    body = "Deploy to kubernetes with helm."
    first = store.write(PROJECT, body, ["kubernetes"], file="CONVENTIONS.md", now=NOW)
    store.write(PROJECT, "Redis caches the sessions.", ["redis"], file="CONVENTIONS.md", now=NOW)
    again = open_store(project).store.write(PROJECT, body, ["kubernetes"], now=NOW)  # a repeat
    assert again.entry.id == first.entry.id
    assert (kept.stat().st_ino, kept.read_bytes()) == before  # the tables were not written
    index = search_index.load(path, _identity(path))
    assert index is not None and index.added and index.base is not None
    assert search_index.entries_at(index, range(index.size)) == _parsed(path)
    searched = open_store(project).store
    for query in ("kubernetes helm", "deploy", "redis sessions", "deploy staging port"):
        assert searched.search(query, now=NOW, credit=False) == full(searched, query)


def test_a_delta_of_other_tables_or_other_bytes_is_not_believed(
    project: Path, hermetic_home: Path
) -> None:
    store = seeded_store(project, hermetic_home, 6)
    store.search("deploy", now=NOW)
    path = project / ".pi/agent/memory-auto/DECISIONS.md"
    store.write(PROJECT, "Deploy to kubernetes with helm.", ["kubernetes"], file=path.name, now=NOW)
    written = _identity(path)
    delta = search_index._delta_file(search_index._cache_file(path)[0])
    kept = delta.read_bytes()
    # The same bytes, touched: the tables are built again for them and kept.
    os.utime(path, ns=(written[0] - 10**10, written[0] - 10**10))
    assert search_index.load(path, _identity(path)) is None
    assert open_store(project).store.search("helm", now=NOW, credit=False).hits
    # The delta of the old tables, for the old identity: it would add its row twice.
    delta.write_bytes(kept)
    os.utime(path, ns=(written[0], written[0]))
    assert _identity(path) == written
    assert search_index.load(path, written) is None
    searched = open_store(project).store
    result = searched.search("kubernetes helm", now=NOW, credit=False)
    assert result == full(searched, "kubernetes helm") and result.total == 1
