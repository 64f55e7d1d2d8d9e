"""A write decides on the entries the search index finds, and decides exactly as on the layer.

The categories layout hands a write only the entries whose bodies hold the
body's longest words and those it supersedes (``CategoriesLayer.candidates``),
found through each file's search index without decoding the others. Here, on a
generated store of real category files, every write a person or the review
makes (a repeat in other case and spacing, a repeat of a superseded memory, a
new memory sharing words, supersede links to live, retired and unknown ids)
is planned both ways, and the plans must be the same. Once the caches are
kept, finding a repeat's candidates loads no file's keyword facts, and a file
with rows a git union merge left to fold sends the write to the whole layer.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from pi_memory.entry import Entry, normalize_memory_text
from pi_memory.layouts.categories.format import fold_merged, format_entry
from pi_memory.layouts.categories.layer import GITATTRIBUTES, CategoriesLayer
from pi_memory.plan import WriteRequest, plan_write
from tools.bench_detect import make_store

FILES = ("CONVENTIONS.md", "DECISIONS.md", "FAILURES.md")
#: Bodies that lowercase, split or trim in ways ASCII text does not.
ODD = (
    "Die Straße nach İstanbul ist GESPERRT.",
    "ΟΔΟΣ κλειστή ΣΗΜΕΡΑ!",
    "Tabs\tand\u00a0no-break\u2003spaces  stay words…",
    "缓存迁移到 redis 了。",
    "The ﬁle lock is held for the change, not the reading;",
)


def _layer(directory: Path, n: int) -> tuple[CategoriesLayer, list[Entry]]:
    rng = random.Random(n)
    made = make_store(n, seed=n)
    odd = [made[0]._replace(id=f"20260101-f{k:03x}", body=body) for k, body in enumerate(ODD)]
    rows: dict[str, list[str]] = {}
    for made_entry in [*made, *odd]:
        entry = made_entry._replace(layer="project", file=rng.choice(FILES))
        if entry.superseded_by:
            entry = entry._replace(superseded_by=rng.choice(made).id)
        rows.setdefault(entry.file, []).append(format_entry(entry))
    directory.mkdir()
    for file, texts in rows.items():
        (directory / file).write_text("\n".join(texts), "utf-8")
    layer = CategoriesLayer("project", directory)
    return layer, layer.read()


def _variant(rng: random.Random, body: str) -> str:
    """The same memory as a person may type it again: other case, spacing, full stop."""
    words = body.split()
    spaced = "  ".join(words) if rng.random() < 0.5 else "\n".join(words)
    cased = spaced.upper() if rng.random() < 0.5 else spaced.title()
    return f" {cased}. " if rng.random() < 0.5 else cased


def _requests(rng: random.Random, entries: list[Entry]) -> list[WriteRequest]:
    live = [e for e in entries if not e.superseded_by]
    dead = [e for e in entries if e.superseded_by]
    bodies = [_variant(rng, e.body) for e in rng.sample(live, 40)]
    bodies += [e.body for e in rng.sample(dead, min(10, len(dead)))]  # revived, not bumped
    bodies += ODD + tuple(o.upper() for o in ODD)
    # New memories made of words the store holds, and one of none of them.
    bodies += [" ".join(rng.sample(rng.choice(live).body.split(), 2)) for _ in range(20)]
    bodies += ["Nothing like this was ever written down before: zyxwvut."]
    ids = [e.id for e in entries]
    requests = []
    for body in bodies:
        if not normalize_memory_text(body):
            continue
        links = tuple(rng.sample(ids, rng.randint(0, 3))) + (("20990101-beef",) * rng.randint(0, 1))
        requests.append(
            WriteRequest(
                "project", body, "k", "DECISIONS.md", links, "user", "p", "2026-12-01 10:00:00"
            )
        )
    return requests


@pytest.mark.parametrize("n", [300, 3000])
def test_candidates_plan_every_write_as_the_whole_layer_does(tmp_path: Path, n: int) -> None:
    layer, entries = _layer(tmp_path / "layer", n)
    rng = random.Random(n)
    deduped = retired = 0
    for request in _requests(rng, entries):
        found = layer.candidates(request.body, request.supersedes)
        assert found is not None, request.body
        candidates, taken = found
        assert all(e.id in taken for e in entries)
        assert "20990101-beef" not in taken and "20261201-0000" not in taken
        assert plan_write(candidates, request, "20261201-0000") == plan_write(
            entries, request, "20261201-0000"
        ), request.body
        plan = plan_write(entries, request, "20261201-0000")
        deduped += plan.deduped
        retired += bool(plan.retire)
    assert deduped >= 40 and retired >= 20, (
        "the writes must repeat and retire, or this shows nothing"
    )


def _backdated(directory: Path) -> None:
    """Files written an hour ago, as a real store's are: their caches are kept."""
    an_hour_ago = time.time() - 3600
    for path in directory.iterdir():
        os.utime(path, (an_hour_ago, an_hour_ago))


def test_a_repeat_finds_its_candidates_without_loading_keyword_facts(tmp_path: Path) -> None:
    layer, entries = _layer(tmp_path / "layer", 3000)
    _backdated(layer.directory)
    live = [e for e in entries if not e.superseded_by]
    repeat = WriteRequest(
        "project", live[7].body.upper(), "k", "DECISIONS.md", (), "user", "p", "2026-12-01"
    )
    CategoriesLayer("project", layer.directory).candidates(repeat.body, ())  # keeps the caches
    fresh = CategoriesLayer("project", layer.directory)
    found = fresh.candidates(repeat.body, ())
    assert found is not None
    assert fresh._facts == {}, "a repeat must not load the files' keyword facts"
    plan = plan_write(found[0], repeat, "")
    assert plan.deduped and plan == plan_write(entries, repeat, "")
    # A new memory asks for the layer's ids, and only then are the facts read.
    assert live[7].id in found[1] and fresh._facts


def test_rows_left_to_fold_send_the_write_to_the_whole_layer(tmp_path: Path) -> None:
    layer, entries = _layer(tmp_path / "layer", 300)
    path = layer.directory / "DECISIONS.md"
    first = next(e for e in entries if e.file == "DECISIONS.md" and not e.superseded_by)
    twice = format_entry(first._replace(seen=first.seen + 4))  # a union merge's second row
    path.write_text(path.read_text("utf-8") + "\n" + twice, "utf-8")
    _backdated(layer.directory)
    CategoriesLayer("project", layer.directory).candidates(first.body, ())  # keeps the caches
    assert CategoriesLayer("project", layer.directory).candidates(first.body, ()) is None


def test_a_repeat_keeps_the_keyword_facts_without_loading_them(tmp_path: Path) -> None:
    """A repeat changes no id, keyword, time or liveness: its file's facts are kept for the
    new bytes as they were, and they are what the file says."""
    from pi_memory.fs.parse_cache import identity_at, lookup
    from pi_memory.keyword_tally import KIND, RULES, facts_of, is_facts

    layer, entries = _layer(tmp_path / "layer", 3000)
    (layer.directory / GITATTRIBUTES).write_text(layer.merge_rules, "utf-8")
    _backdated(layer.directory)
    CategoriesLayer("project", layer.directory).facts()  # kept, as a session start keeps them
    live = [e for e in entries if not e.superseded_by]
    repeated = live[7]
    CategoriesLayer("project", layer.directory).candidates(repeated.body, ())  # the indexes
    fresh = CategoriesLayer("project", layer.directory)
    found = fresh.candidates(repeated.body.upper(), ())
    assert found is not None
    plan = plan_write(
        found[0],
        WriteRequest("project", repeated.body.upper(), "k", "", (), "user", "p", "2026-12-01"),
        "",
    )
    assert plan.deduped
    staged = fresh.prepare_write(found[0], plan.entry, plan.deduped, plan.retire)
    assert staged is not None
    staged[1].commit()
    staged[1].discard()
    assert fresh._facts == {}, "a repeat must not load the files' keyword facts"
    path = layer.directory / repeated.file
    identity = identity_at(path)
    assert identity is not None
    kept = lookup(path, identity, is_facts, KIND, RULES)
    truth = CategoriesLayer("project", layer.directory).read_file(repeated.file)
    assert next(e for e in truth if e.id == repeated.id).seen == repeated.seen + 1
    assert kept == [facts_of(fold_merged(truth), len(truth))]
