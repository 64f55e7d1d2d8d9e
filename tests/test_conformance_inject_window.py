"""Every vector of ``inject_window.json`` as one test case."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_memory.config.defaults import DEFAULT_CONFIG
from pi_memory.inject import inject_window as iw
from tests.conftest import DATA
from tests.test_inject_window import Body, Item

VECTORS: list[dict[str, Any]] = json.loads(
    (DATA / "conformance" / "inject_window.json").read_text(encoding="utf-8")
)


def truncation(result: iw.Truncation) -> dict[str, Any]:
    return {"ok": result.ok, "content": result.content, "truncated": result.truncated}


CONSTANTS: dict[str, Any] = {
    "constants/INDEX_TRUNCATION_MARKER": iw.INDEX_TRUNCATION_MARKER,
    "constants/ENTRY_TRUNCATION_MARKER": iw.ENTRY_TRUNCATION_MARKER,
    "constants/defaults": {
        key: DEFAULT_CONFIG[key]
        for key in (
            "memIndexInjectMaxLines",
            "memIndexInjectMaxBytes",
            "memIndexMaxLines",
            "memIndexMaxBytes",
        )
    },
}


def check_scan_entries(expected: dict[str, Any]) -> None:
    """Newest ``modified`` first, ties by file name ascending, at most ``cap`` entries."""
    items = [
        Item(f"e{i:03d}.md", "project", f"d{i}", f"2026-01-01T00:00:{i % 60:02d}.{i:03d}Z")
        for i in range(expected["cap"] + 1)
    ]
    items += [
        Item("b.md", "user", "tie", "2027-01-01T00:00:00.000Z"),
        Item("a.md", "user", "tie", "2027-01-01T00:00:00.000Z"),
    ]
    scanned = iw.scan_entries(reversed(items))
    assert len(scanned) == expected["cap"]
    assert [e.file for e in scanned[:2]] == ["a.md", "b.md"]
    rest = [e.modified for e in scanned[2:]]
    assert rest == sorted(rest, reverse=True)
    # The one entry left out is the oldest.
    assert "e000.md" not in {e.file for e in scanned}


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vector: dict[str, Any]) -> None:
    args, expected = vector["input"], vector["expected"]
    fn = args["fn"]
    if fn == "constant":
        assert CONSTANTS[vector["id"]] == expected
    elif fn == "truncateIndexForInjection":
        got = iw.truncate_index_for_injection(args["content"], args["maxLines"], args["maxBytes"])
        assert truncation(got) == expected
    elif fn == "truncateForInjection":
        got = iw.truncate_for_injection(args["content"], args["maxLines"], args["maxBytes"])
        assert truncation(got) == expected
    elif fn == "indexInjectionCapacity":
        cap = iw.index_injection_capacity(args["content"], args["maxLines"], args["maxBytes"])
        assert {
            "lineCount": cap.line_count,
            "byteLength": cap.byte_length,
            "truncated": cap.truncated,
        } == expected
    elif fn == "injectSurfacedContent":
        entries = [Body(e["name"], e["body"]) for e in args["entries"]]
        got = iw.inject_surfaced_content(entries, args["maxEntryBytes"], args["maxInjectionBytes"])
        assert got == expected
    elif fn == "scanEntries":
        assert expected["cap"] == iw.SIDE_QUERY_MAX_ENTRIES
        check_scan_entries(expected)
    else:
        raise AssertionError(f"no implementation mapped for {fn}")
