"""The detectors' per-file facts cache is an optimisation only: a changed, damaged or
foreign cache is worked out again, and the detectors find what they find without it."""

from __future__ import annotations

import json
import os
import subprocess
import time
import zlib
from pathlib import Path

import pytest

from pi_memory.detect.conflicts import find_conflicts
from pi_memory.detect.duplicates import find_duplicates
from pi_memory.detect.feature_cache import KIND, RULES, known_facts, rows_of
from pi_memory.detect.text_features import body_facts, body_lists
from pi_memory.entry import Entry
from pi_memory.fs.parse_cache import cache_dir, keep
from pi_memory.layouts.categories.format import format_entry
from pi_memory.layouts.categories.layer import CategoriesLayer
from tests.inproc import call
from tests.similarity_stores import random_store

FILE = "DECISIONS.md"


def _age(path: Path) -> None:
    """Ten seconds old: past the racy window, so the caches keep what they read."""
    ten_seconds_ago = time.time_ns() - 10_000_000_000
    os.utime(path, ns=(ten_seconds_ago, ten_seconds_ago))


def _layer(tmp_path: Path, entries: list[Entry]) -> CategoriesLayer:
    layer = CategoriesLayer("project", tmp_path / "layer")
    layer.directory.mkdir()
    path = layer.directory / FILE
    path.write_text("".join(format_entry(e._replace(file=FILE)) for e in entries), "utf-8")
    _age(path)
    return layer


def _known(layer: CategoriesLayer) -> dict[str, tuple[object, ...]]:
    entries = [entry for entry in layer.read() if entry.live]
    return dict(known_facts([(layer.directory / FILE, entries)]))


def _identity(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _poison(layer: CategoriesLayer) -> None:
    """Keep, for the file as it is now, rows whose facts are wrong (no tokens, no words)."""
    path = layer.directory / FILE
    rows = [(body, norm, (), (), None, ()) for body, norm, *_ in rows_of(_bodies(layer))]
    keep(path, _identity(path), rows, KIND, RULES)


def _bodies(layer: CategoriesLayer) -> list[str]:
    return [entry.body for entry in layer.read() if entry.live]


def _cached_files() -> list[Path]:
    return sorted(cache_dir().glob(f"*.{KIND}"))


def test_cached_facts_are_the_facts_and_the_detectors_find_the_same(tmp_path: Path) -> None:
    store = random_store(7, 300)
    layer = _layer(tmp_path, store)
    first = _known(layer)
    assert _cached_files()
    again = _known(layer)  # from the cache this time
    entries = layer.read()
    assert again == first == {entry.body: body_facts(entry.body) for entry in entries if entry.live}
    fresh = [entry._replace() for entry in entries]  # not the memoised store
    assert find_duplicates(entries, known=again) == find_duplicates(fresh)
    assert find_conflicts(entries, known=again) == find_conflicts(fresh)
    assert find_duplicates(fresh), "the store must hold pairs for the comparison to mean anything"


def test_a_file_changed_by_a_write_is_worked_out_again(tmp_path: Path) -> None:
    layer = _layer(tmp_path, random_store(3, 40))
    _known(layer)
    _poison(layer)
    poisoned = _known(layer)
    # The poison is what a cache of the file as it is would be believed to say.
    assert any(not facts[1] for facts in poisoned.values())
    new = Entry(
        id="20261101-abcd",
        time="2026-11-01 10:00:00",
        project="p",
        src="user",
        keyword="deploy",
        body="Deploys go through rsync to staging on port 8080.",
        layer="project",
        file=FILE,
    )
    layer.append(new)
    _age(layer.directory / FILE)
    known = _known(layer)
    assert known == {body: body_facts(body) for body in _bodies(layer)}
    assert new.body in known


def test_a_rewrite_that_keeps_every_body_is_still_a_miss(tmp_path: Path) -> None:
    layer = _layer(tmp_path, random_store(9, 30))
    _known(layer)
    _poison(layer)
    first = layer.read()[0]
    layer.update([first._replace(keyword="renamed")])
    _age(layer.directory / FILE)
    assert _known(layer) == {body: body_facts(body) for body in _bodies(layer)}


def test_rows_for_other_bodies_are_not_believed(tmp_path: Path) -> None:
    layer = _layer(tmp_path, random_store(4, 30))
    path = layer.directory / FILE
    bodies = _bodies(layer)
    # Rows kept for this very identity, but made from another version of the file
    # (it changed while it was read): one body has no row, so the file is worked out again.
    rows = [(body, norm, (), (), None, ()) for body, norm, *_ in rows_of(bodies[1:])]
    keep(path, _identity(path), rows, KIND, RULES)
    assert _known(layer) == {body: body_facts(body) for body in bodies}
    assert _known(layer) == {body: body_facts(body) for body in bodies}  # and kept anew


@pytest.mark.parametrize(
    "damage",
    [b"", b"\x00garbage", b"\x10\x00\x00\x00" + b"\xff" * 40],
    ids=["empty", "garbage", "bad-marshal"],
)
def test_a_damaged_cache_is_worked_out_again(tmp_path: Path, damage: bytes) -> None:
    layer = _layer(tmp_path, random_store(5, 40))
    _known(layer)
    [cached] = _cached_files()
    cached.write_bytes(damage)
    assert _known(layer) == {body: body_facts(body) for body in _bodies(layer)}
    assert cached.read_bytes() != damage  # written anew


def test_a_cache_cut_short_or_of_the_wrong_shape_is_a_miss(tmp_path: Path) -> None:
    layer = _layer(tmp_path, random_store(6, 40))
    _known(layer)
    [cached] = _cached_files()
    data = cached.read_bytes()
    cached.write_bytes(data[: len(data) // 2])
    assert _known(layer) == {body: body_facts(body) for body in _bodies(layer)}
    path = layer.directory / FILE
    keep(path, _identity(path), [(1, 2, 3, 4, 5, 6)], KIND, RULES)
    assert _known(layer) == {body: body_facts(body) for body in _bodies(layer)}


def test_rows_kept_under_other_rules_are_a_miss(tmp_path: Path) -> None:
    layer = _layer(tmp_path, random_store(8, 30))
    path = layer.directory / FILE
    bodies = _bodies(layer)
    rows = [(body, norm, (), (), None, ()) for body, norm, *_ in rows_of(bodies)]
    keep(path, _identity(path), rows, KIND, RULES - 1)
    assert _known(layer) == {body: body_facts(body) for body in bodies}


def test_show_reports_the_same_health_from_the_cache(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    directory = repo / ".pi/agent/memory-auto"
    directory.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    store = random_store(11, 200)
    path = directory / FILE
    path.write_text("".join(format_entry(e._replace(file=FILE)) for e in store), "utf-8")
    _age(path)
    first = call("show", "--json", cwd=repo)
    assert first.code == 0, first.err
    assert _cached_files()
    second = call("show", "--json", cwd=repo)
    health = json.loads(first.out)["layers"]["project"]["health"]
    assert json.loads(second.out)["layers"]["project"]["health"] == health
    assert health["merge_candidates"], "a store with pairs, or the comparison means nothing"


#: Bodies that exercise every rule a body's facts follow: numbers and versions, Han
#: shingles, function words, inflections, case folding beyond ASCII.
SAMPLES = [
    "Deploys go through rsync before each release.",
    "The dev server listens on port 3000 (v1.2.3).",
    "部署脚本在发布前运行 rsync",
    "Don't start the worker; it's started by systemd.",
    "ΣΊΣΥΦΟΣ and naïve café façade — 18.4% done",
]
#: :data:`RULES` and a checksum of what the rules make of the samples. Kept facts are
#: believed while RULES is unchanged, so a change to the rules must raise it: when
#: this fails, raise RULES and put both new values here.
PINNED = (1, 0xA678A8FE)


def test_the_rules_version_moves_with_the_rules() -> None:
    bodies = SAMPLES + [entry.body for entry in random_store(1, 60)]
    made = [body_lists(body) for body in bodies]
    assert (RULES, zlib.crc32(repr(made).encode("utf-8"))) == PINNED
