"""A row rewritten or appended in a category file's bytes is the same as in its text.

A write bumps one row of a file of 100,000 rows, so the layout works on the
file's bytes and decodes only the rows it rewrites (``rewrite_rows_in``,
``appended_row_in``). Here every golden category file (BOM, CRLF, invalid
UTF-8, conflict markers, an id twice, no final newline, ...) and generated
files in Chinese and with odd line endings are changed both ways, and the
bytes and the rows read back must be the same.
"""

from __future__ import annotations

import random

import pytest

from pi_memory.entry import Entry
from pi_memory.layouts.categories.format import (
    append_row,
    appended_row_in,
    decode,
    encode,
    format_entry,
    parse_entries,
    rewrite_rows,
    rewrite_rows_counted_in,
    rewrite_rows_in,
    rows_with_id_in,
)
from tests.golden_categories import CASES_DIR, NEW_ENTRY
from tools.bench_detect import make_store

GOLDEN = sorted(p for p in CASES_DIR.glob("*.md") if p.name.count(".") == 1)


def _generated(seed: int) -> bytes:
    rng = random.Random(seed)
    made = make_store(200, seed=seed)
    nl = rng.choice(["\n", "\r\n"])
    rows = [format_entry(e._replace(file="DECISIONS.md"), nl) for e in made]
    if seed % 3 == 0:
        rows.insert(50, "<<<<<<< HEAD" + nl)
        rows.insert(80, "=======" + nl + rows[10] + ">>>>>>> theirs" + nl)  # an id twice
    text = (nl if seed % 2 else "").join(rows)
    if seed % 4 == 1:
        text = text.rstrip("\r\n")  # no final line ending
    data = encode(text)
    return b"\xff\xfe" + data if seed % 5 == 2 else data  # bytes that are not UTF-8


def _updates(rng: random.Random, entries: list[Entry]) -> dict[str, Entry]:
    picked = rng.sample(entries, min(len(entries), rng.randint(1, 3)))
    updates = {}
    for entry in picked:
        changed = entry._replace(seen=entry.seen + 1, last="2026-12-02 06:00:00")
        if rng.random() < 0.3:
            changed = changed._replace(superseded_by="20261202-beef")
        if rng.random() < 0.2:
            changed = changed._replace(body=entry.body + "\nand a second line, 第二行")
        updates[entry.id] = changed
    return updates


SOURCES = [(p.name, p.read_bytes()) for p in GOLDEN] + [
    (f"generated-{seed}", _generated(seed)) for seed in range(10)
]


@pytest.mark.parametrize(("name", "data"), SOURCES, ids=[name for name, _ in SOURCES])
def test_rows_rewritten_in_bytes_as_in_text(name: str, data: bytes) -> None:
    text = decode(data)
    entries = parse_entries(text, "project", "DECISIONS.md")
    rng = random.Random(name)
    for _ in range(8 if entries else 0):
        updates = _updates(rng, entries)
        new_text, rewritten = rewrite_rows(text, updates, "project", "DECISIONS.md")
        assert rewrite_rows_in(data, updates, "project", "DECISIONS.md") == (
            encode(new_text),
            rewritten,
        )
    unknown = {"20990101-dead": NEW_ENTRY._replace(id="20990101-dead")}
    assert rewrite_rows_in(data, unknown, "project", "DECISIONS.md") == (data, {})


@pytest.mark.parametrize(("name", "data"), SOURCES, ids=[name for name, _ in SOURCES])
def test_a_rewrite_counts_the_rows_naming_each_id_as_a_scan_does(name: str, data: bytes) -> None:
    entries = parse_entries(decode(data), "project", "DECISIONS.md")
    rng = random.Random(name + "counted")
    twice = {e.id for e in entries if sum(o.id == e.id for o in entries) > 1}
    for _ in range(8 if entries else 0):
        updates = _updates(rng, entries)
        updates.update({i: next(e for e in entries if e.id == i) for i in sorted(twice)[:1]})
        new, rewritten, counts = rewrite_rows_counted_in(data, updates, "project", "DECISIONS.md")
        assert (new, rewritten) == rewrite_rows_in(data, updates, "project", "DECISIONS.md")
        assert counts == {i: rows_with_id_in(data, i) for i in updates}
    unknown = {"20990101-dead": NEW_ENTRY._replace(id="20990101-dead")}
    assert rewrite_rows_counted_in(data, unknown, "project", "DECISIONS.md") == (
        data,
        {},
        {"20990101-dead": 0},
    )


@pytest.mark.parametrize(("name", "data"), SOURCES, ids=[name for name, _ in SOURCES])
def test_a_row_appended_to_bytes_as_to_text(name: str, data: bytes) -> None:
    for cut in (data, data.rstrip(b"\r\n"), data + b"\n\n", b"", b"\xef\xbb\xbf"):
        assert cut + appended_row_in(cut, NEW_ENTRY) == encode(append_row(decode(cut), NEW_ENTRY))
