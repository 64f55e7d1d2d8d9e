"""Every vector of ``entry_file.json`` and ``index_lines.json`` as one test case."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

from pi_memory.entry import Entry
from pi_memory.errors import EntryRejected
from pi_memory.layouts.carry import derive_description
from pi_memory.layouts.files.format import EntryMeta, parse_entry_file, serialize_entry_file
from pi_memory.layouts.files.index import (
    CAPACITY_TEMPLATE,
    IndexLine,
    format_index_line,
    index_capacity,
    parse_entry_index,
    rebuild_index,
    remove_index_line,
    upsert_index_line,
)
from pi_memory.layouts.files.layer import FilesLayer
from pi_memory.memory_listing import list_text
from pi_memory.text import split_lines
from tests import conformance_conversation as conversation
from tests.conformance import Unmapped
from tests.conformance_conversation import message_kind, pi_message
from tests.conftest import DATA, files_store

CONFORMANCE = DATA / "conformance"
NOW = datetime(2026, 10, 1, 9, 12, 33, 123000, tzinfo=timezone.utc)


def _layer(tmp_path: Path, **options: Any) -> FilesLayer:
    return FilesLayer("project", tmp_path / "store", **options)


# ------------------------------------------------------------------ entry files


def _serialize(case: dict[str, Any], _tmp: Path) -> None:
    meta = EntryMeta(**case["input"]["meta"])
    assert serialize_entry_file(meta, case["input"]["body"]) == case["expected"]


def _parse(case: dict[str, Any], _tmp: Path) -> None:
    parsed = parse_entry_file(case["input"]["raw"])
    expected = case["expected"]
    if expected is None:
        assert parsed is None
        return
    assert parsed is not None
    assert parsed.meta == EntryMeta(**expected["meta"])
    assert parsed.body == expected["body"]
    # A parsed file serialises back to the same memory.
    again = parse_entry_file(serialize_entry_file(parsed.meta, parsed.body, parsed.extra))
    assert again == parsed


def _derive(case: dict[str, Any], _tmp: Path) -> None:
    assert derive_description(case["input"]["body"], case["input"]["max"]) == case["expected"]


def _store_validation(case: dict[str, Any], tmp: Path) -> None:
    data = case["input"]
    layer = _layer(tmp)
    message = case["expected"]["throws"]
    call: Callable[[], object]
    if data["op"] == "remove":
        call = lambda: layer.remove_by_name(data["ref"])  # noqa: E731
    elif "created" in data:
        entry = Entry(
            id="",
            time="",
            project="",
            src="user",
            keyword="",
            body=data["body"],
            name=data["name"],
            created=data["created"],
        )
        call = lambda: layer.append(entry)  # noqa: E731
    else:
        call = lambda: layer.add(data["name"], data["body"], now=NOW)  # noqa: E731
    with pytest.raises(EntryRejected) as caught:
        call()
    assert str(caught.value) == message
    assert layer.read() == []


def _moment(op: dict[str, Any]) -> datetime:
    text = op.get("now")
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else NOW


def _apply(layer: FilesLayer, op: dict[str, Any]) -> object:
    """One store operation of a sequence, as the design's ``MemoryStore`` names them."""
    kind, now = op.get("op", op.get("action")), _moment(op)
    body = op.get("body", op.get("content"))
    if kind == "add":
        return layer.add(op["name"], body, op.get("description"), op.get("type"), now)
    if kind == "replace":
        patch = op.get("patch", op)
        body = patch.get("body", patch.get("content"))
        return layer.replace(op["ref"], body, patch.get("description"), patch.get("type"), now)
    if kind == "rename":
        return layer.rename(op["ref"], op.get("name", op.get("new_name")), now)
    if kind != "remove":
        raise Unmapped(f"no store operation {kind!r}")
    return layer.remove_by_name(op.get("ref", op.get("name")))


def _store_sequence(case: dict[str, Any], tmp: Path) -> None:
    """A sequence of store operations, then what the store holds: its entries, its files,
    its index, and the error that stopped the sequence."""
    data, expected = case["input"], case["expected"]
    directory = tmp / "memory" / "git" / "project"  # not there: the first write makes it
    layer = files_store(directory).layer("project")
    assert isinstance(layer, FilesLayer)
    if data.get("backupRoot"):
        directory.mkdir(parents=True)
        (directory / ".backups").write_text("a regular file where the backup root belongs")
    error: Exception | None = None
    messages: list[dict[str, Any]] = []
    for op in data["ops"]:
        kind = message_kind(op)
        if kind is not None:  # a message of the turn (adding a tool result, …)
            messages.append(pi_message(op, kind))
            continue
        try:
            _apply(layer, op)
        except (EntryRejected, OSError) as exc:
            error = exc
            break
    known = {"throws", "entries", "files", "index", *conversation.EXPECTATIONS}
    if not set(expected) <= known:
        raise Unmapped(f"unmapped expectations: {set(expected) - known}")
    if messages or set(expected) & conversation.EXPECTATIONS:
        conversation.check(conversation.rendered(messages, data.get("config") or {}), expected)
    if "throws" in expected:
        assert error is not None
        if isinstance(expected["throws"], str):
            assert str(error) == expected["throws"]
    else:
        assert error is None, error
    if "files" in expected:
        on_disk = sorted(p.name for p in directory.glob("*.md")) if directory.exists() else []
        assert on_disk == expected["files"]
    if "index" in expected:
        assert layer.read_index() == expected["index"]
    for want in expected.get("entries", []):
        found = layer.find(want["name"])
        assert found is not None, want["name"]
        assert {key: getattr(found, key) for key in want} == want


def _capacity_warning(data: dict[str, Any], expected: dict[str, Any], tmp: Path) -> None:
    """Adds past ``indexMaxLines``: the first that fits warns nothing, the last warns with
    the template's numbers, and every write happened."""
    layer = _layer(
        tmp,
        index_max_lines=data["config"]["indexMaxLines"],
        index_max_bytes=data["config"]["indexMaxBytes"],
    )
    results = [layer.add(name, f"正文 {name}", now=NOW) for name in data["adds"]]
    assert results[0].capacity_warning is expected["first"]
    last = results[-1].capacity_warning
    assert last is not None
    for part in expected["second_contains"]:
        assert part in last
    raw = layer.read_index()
    assert last == expected["exact_template"].format(
        lineCount=len(data["adds"]),
        maxLines=data["config"]["indexMaxLines"],
        byteLength=len(raw.encode()),
        maxBytes=data["config"]["indexMaxBytes"],
    )
    assert (
        CAPACITY_TEMPLATE.replace("line_count", "lineCount")
        .replace("max_lines", "maxLines")
        .replace("byte_length", "byteLength")
        .replace("max_bytes", "maxBytes")
        == expected["exact_template"]
    )
    assert [e.name for e in layer.read()] == data["adds"]


def _store_semantics(case: dict[str, Any], tmp: Path) -> None:
    data = case["input"]
    expected = case["expected"]
    if "ops" in data:
        _store_sequence(case, tmp)
    elif data["op"] == "add" and "adds" in data:
        _capacity_warning(data, expected, tmp)
    elif data["op"] == "add":
        layer = _layer(tmp)
        layer.add(data["name"], data["body"], now=NOW)
        (entry,) = layer.read()
        assert entry.description == expected["description"]
    elif data["op"] == "replace":
        layer = _layer(tmp)
        layer.add("A", "旧正文。", now=NOW)
        layer.add("B", "别的。", now=NOW)
        before = parse_entry_index(layer.read_index()).entries
        layer.replace(data["ref"], data["patch"]["body"], now=NOW)
        after = parse_entry_index(layer.read_index()).entries
        assert layer.find("A") is not None
        assert layer.find("A").description == expected["description"]  # type: ignore[union-attr]
        assert expected["index_position"] == "unchanged"
        assert [(e.file, e.line_no) for e in after] == [(e.file, e.line_no) for e in before]
        assert after[0].description == expected["description"]
    else:
        layer = _layer(tmp)
        layer.add("Test command", "run npm test, not npm run test", type="project", now=NOW)
        shape = expected["line_format"]
        assert shape == "- name (type, modified …) — description [file]"
        assert list_text(layer.read()) == (
            "- Test command (project, modified 2026-10-01T09:12:33.123Z)"
            " — run npm test, not npm run test [Test-command.md]"
        )


# ------------------------------------------------------------------ index lines


def _parse_index(case: dict[str, Any], _tmp: Path) -> None:
    parsed = parse_entry_index(case["input"]["raw"])
    expected = case["expected"]
    assert [
        {"name": e.name, "file": e.file, "description": e.description, "lineNo": e.line_no}
        for e in parsed.entries
    ] == expected["entries"]
    assert parsed.unrecognized == expected["unrecognized"]


def _format_line(case: dict[str, Any], _tmp: Path) -> None:
    data = case["input"]
    assert format_index_line(data["name"], data["file"], data["description"]) == case["expected"]


def _upsert(case: dict[str, Any], _tmp: Path) -> None:
    data = case["input"]
    entry = data["entry"]
    at = (data["options"] or {}).get("atLineNo")
    result = upsert_index_line(data["raw"], entry["name"], entry["file"], entry["description"], at)
    assert result == case["expected"]


def _remove(case: dict[str, Any], _tmp: Path) -> None:
    assert remove_index_line(case["input"]["raw"], case["input"]["file"]) == case["expected"]


def _capacity(case: dict[str, Any], _tmp: Path) -> None:
    data = case["input"]
    cap = index_capacity(data["raw"], data["maxLines"], data["maxBytes"])
    assert {"lineCount": cap.line_count, "byteLength": cap.byte_length, "ok": cap.ok} == case[
        "expected"
    ]


def _split(case: dict[str, Any], _tmp: Path) -> None:
    assert split_lines(case["input"]["raw"]) == case["expected"]


def _write_entry(directory: Path, name: str, file: str, description: str, modified: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    meta = EntryMeta(name, description, "project", "2026-10-01", modified)
    (directory / file).write_text(serialize_entry_file(meta, "body"), encoding="utf-8")


def _rebuild(case: dict[str, Any], tmp: Path) -> None:
    data = case["input"]
    if "index_before" in data:
        lines = [IndexLine(**e) for e in data["entries_on_disk_sorted"]]
        assert rebuild_index(data["index_before"], lines).text == case["expected"]
        return
    # The return value, through the store: entries on disk and the header kept.
    layer = _layer(tmp)
    _write_entry(layer.directory, "A", "a.md", "A 摘要", "2026-10-01T00:00:02.000Z")
    _write_entry(layer.directory, "B", "b.md", "B 摘要", "2026-10-01T00:00:01.000Z")
    (layer.directory / "legacy.md").write_text("---\nupdated: x\n---\nold\n", encoding="utf-8")
    lines = [IndexLine(e.name, e.file, e.description) for e in layer.read()]
    result = rebuild_index(layer.read_index(), lines)
    assert (result.entries, result.header_lines) == (2, 2)
    store = files_store(layer.directory)
    assert store.rebuild("project").index_change == (4, 0)
    assert layer.read_index() == ("# Memory Index\n\n- [B](b.md) — B 摘要\n- [A](a.md) — A 摘要\n")
    layer.index_path.write_text("# Mine\nnotes\n\n- [X](x.md) — gone\n", encoding="utf-8")
    assert store.rebuild("project").index_change == (2, 2)
    assert layer.read_index().startswith("# Mine\nnotes\n- [B](b.md)")
    result = rebuild_index(layer.read_index(), lines)
    assert (result.entries, result.header_lines) == (2, 2)


HANDLERS: dict[str, Callable[[dict[str, Any], Path], None]] = {
    "serializeEntryFile": _serialize,
    "parseEntryFile": _parse,
    "deriveDescription": _derive,
    "MemoryStore.addEntry/replaceEntry": _store_validation,
    "MemoryStore": _store_semantics,
    "parseEntryIndex": _parse_index,
    "formatIndexLine": _format_line,
    "upsertIndexLine": _upsert,
    "removeIndexLine": _remove,
    "indexCapacity": _capacity,
    "splitLines": _split,
    "MemoryStore.rebuildIndex": _rebuild,
}


def test_list_line_shape_matches_the_readme(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.add("A", "first. more", now=NOW)
    line = list_text(layer.read())
    assert re.fullmatch(r"- A \(feedback, modified \S+\) — first\. \[A\.md\]", line)
