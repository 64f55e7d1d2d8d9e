"""The categories layout's entry rows, pinned by golden files in tests/data/categories/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_memory.entry import Entry
from pi_memory.layouts.carry import FILE_NAME_KEY, RAW_TAGS_KEY
from pi_memory.layouts.categories.format import (
    append_row,
    decode,
    encode,
    format_header,
    parse_category_text,
    parse_entries,
    update_rows,
)
from tests.golden_categories import CASES_DIR, expected_outputs

#: A new row with no optional field.
PLAIN = Entry(
    id="20261130-0001",
    time="2026-11-30 10:00:00",
    project="p",
    src="user",
    keyword="k",
    body="b",
)

SOURCES = sorted(p for p in CASES_DIR.glob("*.md") if p.name.count(".") == 1)
assert SOURCES, "golden category files not found"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_golden_outputs(source: Path) -> None:
    for suffix, produced in expected_outputs(source).items():
        golden = source.with_name(source.stem + suffix)
        if isinstance(produced, bytes):
            assert produced == golden.read_bytes(), golden.name
        else:
            assert produced == json.loads(golden.read_text("utf-8")), golden.name


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_reading_keeps_every_byte(source: Path) -> None:
    data = source.read_bytes()
    parsed = parse_category_text(decode(data), "project", "DECISIONS.md")
    assert encode("".join(parsed.lines)) == data


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_rewriting_one_entry_changes_only_its_header(source: Path) -> None:
    text = decode(source.read_bytes())
    entries = parse_entries(text, "project", "DECISIONS.md")
    for target in entries:
        bumped = target._replace(seen=target.seen + 1, last="2026-11-30 12:00:00")
        before = text.splitlines(keepends=True)
        after = update_rows(text, {target.id: bumped}, "project", "DECISIONS.md")
        after_lines = after.splitlines(keepends=True)
        assert len(before) == len(after_lines)
        changed = [i for i, (a, b) in enumerate(zip(before, after_lines)) if a != b]
        assert len(changed) == 1
        assert target.id in after_lines[changed[0]]
        # The row that changed is the target's own, even when its id is repeated.
        reread = [
            e
            for e in parse_entries(after, "project", "DECISIONS.md")
            if e.id == target.id and e.body == target.body
        ]
        assert [e.seen for e in reread] == [target.seen + 1]


def test_counts_and_fields_of_a_plain_file() -> None:
    entries = parse_entries((CASES_DIR / "plain.md").read_text("utf-8"), "project", "X.md")
    assert [(e.id, e.keyword, e.seen, e.last) for e in entries] == [
        ("20261011-a1b2", "deploy", 1, ""),
        ("20261012-c3d4", "pnpm", 3, "2026-11-01 09:30:00"),
    ]


def test_new_header_carries_optional_fields_only_when_informative() -> None:
    e = PLAIN
    assert format_header(e) == (
        "<!-- mid: 20261130-0001 | t: 2026-11-30 10:00:00 | p: p | src: user | tags: k -->"
    )
    full = e._replace(
        seen=2,
        last="2026-11-30 11:00:00",
        supersedes=("20261101-aaaa",),
        superseded_by="20261201-bbbb",
    )
    assert format_header(full) == (
        "<!-- mid: 20261130-0001 | t: 2026-11-30 10:00:00 | p: p | src: user | tags: k"
        " | seen: 2 | last: 2026-11-30 11:00:00 | supersedes: 20261101-aaaa"
        " | superseded-by: 20261201-bbbb -->"
    )


def test_supersede_links_round_trip() -> None:
    entries = parse_entries((CASES_DIR / "supersede.md").read_text("utf-8"), "project", "X.md")
    old, new = entries
    assert old.superseded_by == "20261002-bbbb" and not old.live
    assert new.supersedes == ("20261001-aaaa",) and new.live


def test_append_to_empty_file_and_reparse() -> None:
    e = PLAIN._replace(body="line one\nline two", file="X.md")
    text = append_row("", e)
    assert text == (
        "<!-- mid: 20261130-0001 | t: 2026-11-30 10:00:00 | p: p | src: user | tags: k -->\n"
        "line one\nline two\n"
    )
    assert parse_entries(text, "project", "X.md") == [e]


def test_carried_fields_round_trip_escaped() -> None:
    e = PLAIN._replace(
        file="X.md",
        seen=2,
        last="2026-11-30 11:00:00",
        name="a|b",
        description="50% > 40%",
        type="project",
        created="2026-11-30",
        modified="2026-11-30T10:00:00.000Z",
        extra=((FILE_NAME_KEY, "a-b.md"), ("ticketURL", "x|y")),
    )
    assert format_header(e) == (
        "<!-- mid: 20261130-0001 | t: 2026-11-30 10:00:00 | p: p | src: user | tags: k"
        " | name: a%7Cb | description: 50%25 %3E 40%25 | type: project | created: 2026-11-30"
        " | modified: 2026-11-30T10:00:00.000Z | file: a-b.md | x-ticket%55%52%4C: x%7Cy"
        " | seen: 2 | last: 2026-11-30 11:00:00 -->"
    )
    assert parse_entries(append_row("", e), "project", "X.md") == [e]


def test_a_legacy_tags_text_is_kept_and_written_back() -> None:
    text = (
        "<!-- mid: 20261130-0001 | t: 2026-11-30 10:00:00 | p: p | src: user"
        " | tags: deploy,rsync -->\nb\n"
    )
    (entry,) = parse_entries(text, "project", "X.md")
    assert (entry.keyword, entry.extra) == ("deploy", ((RAW_TAGS_KEY, "deploy,rsync"),))
    assert append_row("", entry) == text
    # A text that no longer reads as the keyword is not written.
    other = entry._replace(keyword="other")
    assert "| tags: other -->" in format_header(other)


def _row(entry_id: str, body: str, **fields: str) -> str:
    extra = "".join(f" | {key}: {value}" for key, value in fields.items())
    header = (
        f"<!-- mid: {entry_id} | t: 2026-11-30 10:00:00 | p: p | src: user | tags: k{extra} -->"
    )
    return f"{header}\n{body}\n\n"


def test_a_row_is_found_by_its_header_not_by_where_else_its_id_is_written() -> None:
    # The id of the row to rewrite is written in another row's body, in another row's
    # supersede links and in a header-like line that is not a row: only its own row changes.
    target = "20261130-00aa"
    text = (
        "# notes\n"
        + _row("20261130-0001", f"See {target} and <!-- mid: {target} for the why.")
        + _row("20261130-0002", "Old approach.", **{"superseded-by": target})
        + _row(target, "Use the new approach.\nSecond line.", supersedes="20261130-0002")
        + _row("20261130-0003", f"mid: {target} mentioned once more")
    )
    entries = parse_entries(text, "project", "DECISIONS.md")
    old = next(e for e in entries if e.id == target)
    new = old._replace(seen=3, last="2026-11-30 12:00:00", body="Use the newest approach.")
    after = update_rows(text, {target: new}, "project", "DECISIONS.md")
    start = text.index(f"<!-- mid: {target} | t:")
    end = text.index("<!-- mid: 20261130-0003")
    assert after[:start] == text[:start]
    assert after.endswith(text[end:])
    reread = parse_entries(after, "project", "DECISIONS.md")
    assert [e for e in reread if e.id != target] == [e for e in entries if e.id != target]
    mine = [e for e in reread if e.id == target]
    assert [(e.seen, e.last, e.body) for e in mine] == [(3, "2026-11-30 12:00:00", new.body)]


def test_rewriting_rows_of_a_long_file_changes_those_rows_only() -> None:
    rows = [
        _row(f"20261130-{n:04x}", f"Body {n} names 20261130-{(n * 7) % 300:04x}.")
        for n in range(300)
    ]
    text = "".join(rows)
    entries = parse_entries(text, "project", "DECISIONS.md")
    picked = {e.id: e._replace(seen=2, last="2026-11-30 12:00:00") for e in entries[::37]}
    after = update_rows(text, picked, "project", "DECISIONS.md")
    assert parse_entries(after, "project", "DECISIONS.md") == [picked.get(e.id, e) for e in entries]
    changed = [a for a, b in zip(after.splitlines(), text.splitlines()) if a != b]
    assert len(changed) == len(picked) and len(after.splitlines()) == len(text.splitlines())
