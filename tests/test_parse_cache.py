"""The parse cache is an optimisation only: every change to a file is seen."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pi_memory.entry import Entry
from pi_memory.fs.parse_cache import cache_dir
from pi_memory.layouts.categories.format import decode, parse_entries
from pi_memory.layouts.categories.layer import CategoriesLayer
from tests.conftest import DATA
from tests.golden_categories import NEW_ENTRY

ROW = (
    "<!-- mid: 20261001-000{n} | t: 2026-10-01 10:00:00 | p: p | src: user | tags: k{n} -->\n"
    "Body {n}.\n"
)


def test_cache_is_written_and_reused(tmp_path: Path) -> None:
    layer = CategoriesLayer("project", tmp_path / "layer")
    layer.directory.mkdir()
    path = layer.directory / "DECISIONS.md"
    path.write_text(ROW.format(n=1), "utf-8")
    first = layer.read()
    assert [e.keyword for e in first] == ["k1"]
    # Just written: a same-size edit could still share its timestamp, so not cached yet.
    assert not list(cache_dir().glob("*.entries"))
    ten_seconds_ago = time.time_ns() - 10_000_000_000
    os.utime(path, ns=(ten_seconds_ago, ten_seconds_ago))
    assert layer.read() == first
    assert list(cache_dir().glob("*.entries"))
    assert layer.read() == first


def test_a_change_with_the_same_size_and_mtime_is_still_seen(tmp_path: Path) -> None:
    layer = CategoriesLayer("project", tmp_path / "layer")
    layer.directory.mkdir()
    path = layer.directory / "DECISIONS.md"
    path.write_text(ROW.format(n=1), "utf-8")
    assert [e.keyword for e in layer.read()] == ["k1"]
    stat = path.stat()
    replacement = layer.directory / "new.tmp"
    replacement.write_text(ROW.format(n=2), "utf-8")  # same size, a new inode
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    os.replace(replacement, path)
    assert [e.keyword for e in layer.read()] == ["k2"]


def test_a_corrupt_cache_is_a_miss(tmp_path: Path) -> None:
    layer = CategoriesLayer("project", tmp_path / "layer")
    layer.directory.mkdir()
    (layer.directory / "DECISIONS.md").write_text(ROW.format(n=3), "utf-8")
    layer.read()
    for cached in cache_dir().glob("*.entries"):
        cached.write_bytes(b"\x00garbage")
    assert [e.keyword for e in layer.read()] == ["k3"]


SOURCES = sorted(p for p in (DATA / "categories").glob("*.md") if p.name.count(".") == 1)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_what_a_write_remembers_is_what_a_fresh_parse_reads(tmp_path: Path, source: Path) -> None:
    layer = CategoriesLayer("project", tmp_path / "layer")
    layer.directory.mkdir()
    path = layer.directory / "DECISIONS.md"
    path.write_bytes(source.read_bytes())

    def fresh() -> list[Entry]:
        return parse_entries(decode(path.read_bytes()), "project", "DECISIONS.md")

    entries = layer.read_file("DECISIONS.md")
    assert entries == fresh()
    if entries:
        last = entries[-1]
        layer.update([last._replace(seen=last.seen + 1, last="2026-11-30 12:00:00")])
        assert layer.read_file("DECISIONS.md") == fresh()
    layer.append(NEW_ENTRY._replace(file="DECISIONS.md"))
    assert layer.read_file("DECISIONS.md") == fresh()
    layer.remove({NEW_ENTRY.id})
    assert layer.read_file("DECISIONS.md") == fresh()
