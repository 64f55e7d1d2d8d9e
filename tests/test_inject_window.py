from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from pi_memory.inject import inject_window as iw
from tests.conftest import DATA

INJECT = DATA / "inject"
INDEX_CASES = sorted(INJECT.glob("*.md"))


@dataclass(frozen=True)
class Body:
    name: str
    body: str


@dataclass(frozen=True)
class Item:
    file: str
    type: str
    description: str
    modified: str


def test_index_cases_found() -> None:
    assert len(INDEX_CASES) >= 10


@pytest.mark.parametrize("case", INDEX_CASES, ids=lambda p: p.stem)
def test_index_section_golden(case: Path, tmp_path: Path) -> None:
    """``MEMORY.md`` as found on disk → the ``memory_index`` value, default window."""
    (tmp_path / "MEMORY.md").write_bytes(case.read_bytes())
    raw = iw.read_index(tmp_path)
    assert raw is not None
    section = iw.build_index_section(raw, 50, 16384)
    assert section.encode("utf-8") == case.with_suffix(".section").read_bytes()
    assert "\r" not in section
    assert "<" not in section
    assert (tmp_path / "MEMORY.md").read_bytes() == case.read_bytes(), "disk file untouched"


@pytest.mark.parametrize("case", INDEX_CASES, ids=lambda p: p.stem)
def test_capacity_golden_and_consistent_with_the_window(case: Path) -> None:
    raw = case.read_bytes().decode("utf-8", "replace")
    cap = iw.index_injection_capacity(raw, 50, 16384)
    expected = json.loads(case.with_suffix(".capacity.json").read_text(encoding="utf-8"))
    assert {
        "lineCount": cap.line_count,
        "byteLength": cap.byte_length,
        "truncated": cap.truncated,
    } == expected
    window = iw.truncate_index_for_injection(raw, 50, 16384)
    assert window.truncated == cap.truncated
    if cap.truncated:
        body = window.content.split("\n", 1)[1]
        assert window.content.startswith(iw.INDEX_TRUNCATION_MARKER + "\n")
        assert len(body.encode("utf-8")) == cap.byte_length
        assert body.count("\n") == cap.line_count


def test_read_index_missing_directory_or_file(tmp_path: Path) -> None:
    assert iw.read_index(tmp_path) is None
    assert iw.read_index(tmp_path / "nowhere") is None
    assert iw.build_index_section(None, 50, 16384) == ""


def test_window_keeps_the_newest_lines_in_file_order() -> None:
    index = "".join(f"- [M{i}](m{i}.md) — d{i}\n" for i in range(10))
    out = iw.truncate_index_for_injection(index, 3, 16384)
    assert out.content.splitlines() == [
        iw.INDEX_TRUNCATION_MARKER,
        "- [M7](m7.md) — d7",
        "- [M8](m8.md) — d8",
        "- [M9](m9.md) — d9",
    ]


@pytest.mark.parametrize(("lines", "size"), [(0, 100), (5, 0), (-3, 100), (5, -1)])
def test_zero_or_negative_budget_injects_nothing(lines: int, size: int) -> None:
    index = "- [A](a.md) — d\n"
    assert iw.truncate_index_for_injection(index, lines, size) == iw.Truncation("", False)
    assert iw.index_injection_capacity(index, lines, size) == iw.InjectCapacity(0, 0, False)
    assert iw.build_index_section(index, lines, size) == ""


def test_an_oversized_newest_line_keeps_its_head_on_a_character_boundary() -> None:
    out = iw.truncate_index_for_injection("old\n" + "é" * 10 + "\n", 50, 7)
    assert out.truncated
    assert out.content == f"{iw.INDEX_TRUNCATION_MARKER}\n{'é' * 3}\n"


def test_truncation_happens_before_escaping() -> None:
    # Escaping after the cut can never leave half an entity in the prompt.
    section = iw.build_index_section("older\n<<<<\n", 50, 4)
    assert section == f"{iw.INDEX_TRUNCATION_MARKER}\n&lt;&lt;&lt;&lt;\n"


def test_entry_truncation_keeps_the_head() -> None:
    out = iw.truncate_for_injection("one\ntwo\nthree", 2, 1000)
    assert out.content == f"one\ntwo\n{iw.ENTRY_TRUNCATION_MARKER}"
    assert not out.ok
    cut = iw.truncate_for_injection("日本語", 999, 7)
    assert cut.content == f"日本\n{iw.ENTRY_TRUNCATION_MARKER}"


def test_surfaced_golden() -> None:
    spec = json.loads((INJECT / "surfaced.input.json").read_text(encoding="utf-8"))
    entries = [Body(**e) for e in spec["entries"]]
    out = iw.inject_surfaced_content(entries, spec["maxEntryBytes"], spec["maxInjectionBytes"])
    assert out.encode("utf-8") == (INJECT / "surfaced.expected.txt").read_bytes()
    # Only our own wrapper tags are left unescaped.
    assert out.count("<") == 2
    assert "Never reached" not in out


def test_surfacing_stops_at_the_total_budget() -> None:
    entries = [Body("A", "X" * 400), Body("B", "Y" * 400)]
    out = iw.inject_surfaced_content(entries, 99999, 500)
    assert "## A" in out
    assert "## B" not in out
    assert iw.inject_surfaced_content(entries, 99999, 10) == ""


def test_surfacing_is_byte_stable() -> None:
    entries = [Body("A", "x < y & z &lt; w")]
    first = iw.inject_surfaced_content(entries, 99999, 99999)
    assert first == iw.inject_surfaced_content(entries, 99999, 99999)
    assert first == "<relevant_memories>\n## A\nx &lt; y & z &lt; w\n</relevant_memories>"


def test_manifest_lines_split_the_description_budget() -> None:
    wide = [Item(f"e{i}.md", "feedback", "x" * 500, "2026-01-01") for i in range(40)]
    lines = iw.manifest_lines(wide)
    assert len(lines) == 40
    assert lines[0] == "[feedback] e0.md — " + "x" * 100
    narrow = [Item(f"e{i}.md", "feedback", "y" * 500, "2026-01-01") for i in range(100)]
    assert iw.manifest_lines(narrow)[0].split("— ")[1] == "y" * 80


def test_manifest_descriptions_are_cut_then_sanitised() -> None:
    item = Item("a.md", "project", "<b>\u200bbold</b>", "2026-01-01")
    assert iw.manifest_lines([item]) == ["[project] a.md — &lt;b&gt;bold&lt;/b&gt;"]


def test_scan_entries_orders_newest_first_with_file_name_ties() -> None:
    items = [
        Item("c.md", "user", "", "2026-01-01T00:00:00.000Z"),
        Item("b.md", "user", "", "2026-06-01T00:00:00.000Z"),
        Item("a.md", "user", "", "2026-01-01T00:00:00.000Z"),
    ]
    assert [e.file for e in iw.scan_entries(items)] == ["b.md", "a.md", "c.md"]
    assert iw.scan_entries([]) == []
