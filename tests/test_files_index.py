"""MEMORY.md of the files layout: surgical edits pinned by golden files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_memory.layouts.files.index import (
    CAPACITY_TEMPLATE,
    IndexLine,
    capacity_warning,
    index_capacity,
    parse_entry_index,
    rebuild_index,
    remove_index_line,
    upsert_index_line,
)
from pi_memory.text import split_lines
from tests.conftest import DATA

GOLDEN = DATA / "files_layout" / "index"
CASES = sorted(p for p in GOLDEN.iterdir() if p.is_dir())


def test_golden_cases_found() -> None:
    assert len(CASES) >= 10


def _apply(before: str, op: dict[str, object]) -> str:
    kind = op["op"]
    if kind == "upsert":
        at = op["at_line_no"]
        assert at is None or isinstance(at, int)
        return upsert_index_line(
            before, str(op["name"]), str(op["file"]), str(op["description"]), at
        )
    if kind == "remove":
        return remove_index_line(before, str(op["file"]))
    entries = op["entries"]
    assert isinstance(entries, list)
    return rebuild_index(before, [IndexLine(**e) for e in entries]).text


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_golden(case: Path) -> None:
    before = (case / "before.md").read_bytes().decode("utf-8")
    op = json.loads((case / "op.json").read_text(encoding="utf-8"))
    expected = (case / "after.md").read_bytes().decode("utf-8")
    assert _apply(before, op) == expected


def test_unrecognized_counts_headings_not_blanks() -> None:
    parsed = parse_entry_index("# Memory Index\n\n## Group\n<!-- c -->\n- [A](a.md) — a\n\n")
    assert parsed.unrecognized == 3
    assert [e.name for e in parsed.entries] == ["A"]


def test_crlf_does_not_raise_the_unrecognized_count() -> None:
    lf = parse_entry_index("# Memory Index\n\n- [A](a.md) — d\n")
    crlf = parse_entry_index("# Memory Index\r\n\r\n- [A](a.md) — d\r\n")
    assert lf.unrecognized == crlf.unrecognized == 1
    assert lf.entries == crlf.entries


def test_file_may_contain_parentheses() -> None:
    (entry,) = parse_entry_index("- [Fix login (v2)](Fix-login-(v2).md) — d").entries
    assert (entry.name, entry.file) == ("Fix login (v2)", "Fix-login-(v2).md")


def test_description_may_contain_link_syntax() -> None:
    (entry,) = parse_entry_index("- [A](a.md) — see [B](b.md) — later").entries
    assert (entry.file, entry.description) == ("a.md", "see [B](b.md) — later")


def test_hyphen_is_not_the_separator() -> None:
    parsed = parse_entry_index("- [A](a.md) - hyphen only")
    assert parsed.entries == ()
    assert parsed.unrecognized == 1


def test_ideographic_space_counts_as_whitespace() -> None:
    (entry,) = parse_entry_index("-\u3000[A](a.md)\u3000—\u3000d\u3000").entries
    assert entry.description == "d"


def test_upsert_at_line_keeps_position_over_a_new_file_name() -> None:
    raw = "# H\n- [A](a.md) — 1\n- [B](b.md) — 2\n"
    assert (
        upsert_index_line(raw, "A2", "a2.md", "1", 1) == "# H\n- [A2](a2.md) — 1\n- [B](b.md) — 2\n"
    )


def test_split_lines_mixed_endings() -> None:
    assert split_lines("a\r\nb\rc\n\n") == ["a", "b", "c", ""]


def test_capacity_counts_raw_bytes_but_normalised_lines() -> None:
    cap = index_capacity("# Memory Index\r\n\r\n- [A](a.md) — d\r\n", 200, 25600)
    assert (cap.line_count, cap.byte_length, cap.ok) == (2, 37, True)


def test_capacity_warning_text() -> None:
    raw = "- [A](a.md) — A\n- [B](b.md) — B\n"
    assert capacity_warning(raw, 2, 1024) is None
    assert capacity_warning(raw, 1, 1024) == (
        "MEMORY.md is over its limit: 2/1 lines, 36/1024 bytes. The write succeeded, but "
        "everything past the limit is dropped on the next load. Rewrite it now: keep one line "
        "per entry, merge or drop stale entries, and move detail into entry bodies rather than "
        "the index."
    )
    assert "{line_count}" in CAPACITY_TEMPLATE


def test_rebuild_counts_header_lines() -> None:
    rebuilt = rebuild_index("# H\n\nnote\n\n- [A](a.md) — a\n", [IndexLine("A", "a.md", "a")])
    assert (rebuilt.entries, rebuilt.header_lines) == (1, 3)
    assert rebuilt.text == "# H\n\nnote\n- [A](a.md) — a\n"


def test_a_line_number_past_the_end_extends_the_index_as_an_array_does() -> None:
    # pi-memory writes ``lines[atLineNo] = line``: past the end, the lines between are empty.
    assert upsert_index_line("", "A", "a.md", "d", 0) == "- [A](a.md) — d\n"
    assert upsert_index_line("# H\n", "A", "a.md", "d", 2) == "# H\n\n- [A](a.md) — d\n"
    # A negative index is no element of an array: nothing changes but the line endings.
    assert upsert_index_line("# H\r\n", "A", "a.md", "d", -1) == "# H\n"


def _whole_parse_upsert(raw: str, name: str, file: str, description: str) -> str:
    """What a line edit must write: every line parsed, the first one naming ``file``
    rewritten, else the line appended, the lines joined with LF."""
    parsed = parse_entry_index(raw)
    lines = list(parsed.lines)
    line = f"- [{name}]({file}) — {description}"
    at = next((e.line_no for e in parsed.entries if e.file == file), None)
    if at is None:
        lines.append(line)
    else:
        lines[at] = line
    return "\n".join(lines) + "\n"


def _whole_parse_remove(raw: str, file: str) -> str:
    parsed = parse_entry_index(raw)
    at = next((e.line_no for e in parsed.entries if e.file == file), None)
    if at is None:
        return raw
    lines = list(parsed.lines)
    del lines[at]
    return "\n".join(lines) + "\n" if lines else ""


FILES = ("a.md", "aa.md", "b a.md", "a.md.md", " a.md")
PIECES = (
    "# Memory Index",
    "",
    "   ",
    "## Group a.md",
    "see a.md and aa.md for more",
    "- [A](a.md) no dash",
    "- [A](a.md)— tight",
    "-\t[A]( a.md ) —  spaced",
    "- [x](aa.md) — a.md is not this one",
    "- [b](b a.md) — b",
    "- [c](a.md.md) — c",
    "- [d](a.md) — the first",
    "- [e](a.md) — the second",
    "<!-- a.md -->",
)


def test_a_line_edit_writes_what_parsing_every_line_writes() -> None:
    """Only the lines naming the file are parsed; the text written is the same, for
    LF, CRLF and lone-CR files, with and without a final newline."""
    import random

    rng = random.Random(7)
    for _ in range(3000):
        lines = [rng.choice(PIECES) for _ in range(rng.randint(0, 8))]
        raw = rng.choice(("\n", "\r\n", "\r")).join(lines) + rng.choice(("", "\n", "\r\n"))
        file = rng.choice(FILES)
        assert upsert_index_line(raw, "N", file, "d") == _whole_parse_upsert(raw, "N", file, "d")
        assert remove_index_line(raw, file) == _whole_parse_remove(raw, file), (raw, file)
