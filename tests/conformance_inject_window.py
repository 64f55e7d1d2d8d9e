"""Adapters for the injection window's vectors (see tests/conformance.py)."""

from __future__ import annotations

from typing import Any

from pi_memory.config.defaults import DEFAULT_CONFIG
from pi_memory.inject import inject_window as iw
from tests.test_inject_window import Body, Item


def truncation(result: iw.Truncation) -> dict[str, Any]:
    return {"ok": result.ok, "content": result.content, "truncated": result.truncated}


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


def constant(args: dict[str, Any], expected: Any) -> None:
    """A named constant of the design: a marker's text, or configuration defaults."""
    if isinstance(expected, dict):
        assert {key: DEFAULT_CONFIG[key] for key in expected} == expected
    else:
        assert expected in (iw.INDEX_TRUNCATION_MARKER, iw.ENTRY_TRUNCATION_MARKER)


def run(args: dict[str, Any], expected: Any) -> None:
    fn = args["fn"]
    if fn == "truncateIndexForInjection":
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
    else:
        assert fn == "scanEntries"
        assert expected["cap"] == iw.SIDE_QUERY_MAX_ENTRIES
        check_scan_entries(expected)


def _manifest(given: Any) -> list[Item]:
    """Manifest entries as listed, or ``{"count": n, …}`` for n alike ones named e0.md, e1.md…"""
    if isinstance(given, dict):
        return [
            Item(
                f"e{i}.md",
                given.get("type", "feedback"),
                given.get("description", f"description of e{i}.md"),
                given.get("modified", "2026-01-01T00:00:00.000Z"),
            )
            for i in range(given["count"])
        ]
    return [
        Item(
            e["file"],
            e.get("type", "feedback"),
            e.get("description", f"description of {e['file']}"),
            e.get("modified", "2026-01-01T00:00:00.000Z"),
        )
        for e in given
    ]


def side_query_task(args: dict[str, Any], expected: Any) -> None:
    """``buildSideQueryTask``: what the task holds, its manifest lines and their descriptions."""
    entries = _manifest(args.get("entries", args.get("manifest", [])))
    query = args.get("query", args.get("prompt", ""))
    task = iw.build_side_query_task(entries, query, args.get("maxFiles", 3))
    if isinstance(expected, str):
        expected = {"contains": [expected]}
    lines = [line for line in task.split("\n") if line.startswith("[")]
    for text in expected.get("contains", []):
        assert text in task, text
    for text in expected.get("not_contains", []):
        assert text.lower() not in task.lower(), text
    if "line_count" in expected:
        assert len(lines) == expected["line_count"]
    if "description_length" in expected:
        assert {len(line.split("— ", 1)[1]) for line in lines} == {expected["description_length"]}
