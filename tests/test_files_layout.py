"""The files layout: entry files, the Entry mapping, and FilesLayer on real directories."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pi_memory.agent_tools.memory import run_memory_tool
from pi_memory.entry import Entry
from pi_memory.errors import EntryRejected, LockError
from pi_memory.fs.snapshot import natural_key
from pi_memory.inject.inject_window import truncate_index_for_injection
from pi_memory.layouts import open_layer
from pi_memory.layouts.carry import (
    FILE_NAME_KEY,
    RAW_TAGS_KEY,
    category_entry,
    category_of,
    default_category,
    derive_description,
    home_category,
    type_for_category,
)
from pi_memory.layouts.files.format import (
    EntryMeta,
    derived_id,
    entry_from_file,
    entry_to_text,
    parse_entry_file,
    serialize_entry_file,
)
from pi_memory.layouts.files.layer import FilesLayer
from pi_memory.memory_listing import list_text, search_text
from pi_memory.store import Store
from pi_memory.text import iso_timestamp
from tests.conftest import DATA, REPO, files_store
from tests.lockholder import Holder

GOLDEN = DATA / "files_layout" / "entries"
CASES = sorted(p.stem for p in GOLDEN.glob("*.json"))
NOW = datetime(2026, 10, 2, 8, 14, 3, 120000, tzinfo=timezone.utc)
LATER = datetime(2026, 10, 3, 9, 0, 0, 5000, tzinfo=timezone.utc)


def _local(iso_utc: datetime) -> str:
    return iso_utc.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _layer(tmp_path: Path, layer: str = "project", **options: object) -> FilesLayer:
    return FilesLayer(layer, tmp_path / "store", **options)  # type: ignore[arg-type]


def _entry(**fields: object) -> Entry:
    base: dict[str, object] = {
        "id": "20261001-0a0a",
        "time": "2026-10-01 10:00:00",
        "project": "shop",
        "src": "auto",
        "keyword": "deploy",
        "body": "Deploys only run on Tuesdays.",
    }
    base.update(fields)
    return Entry(**base)  # type: ignore[arg-type]


# ------------------------------------------------------------------ golden entry files


def test_golden_cases_found() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES)
def test_golden_entry_file(case: str) -> None:
    raw = (GOLDEN / f"{case}.md").read_bytes().decode("utf-8", errors="replace")
    expected = json.loads((GOLDEN / f"{case}.json").read_text(encoding="utf-8"))
    parsed = parse_entry_file(raw)
    if not expected["memory"]:
        assert parsed is None
        return
    assert parsed is not None
    assert parsed.meta == EntryMeta(**expected["meta"])
    assert parsed.body == expected["body"]
    assert [list(pair) for pair in parsed.extra] == expected["extra"]
    rewritten = (GOLDEN / expected["rewrite"]).read_bytes().decode("utf-8")
    assert serialize_entry_file(parsed.meta, parsed.body, parsed.extra) == rewritten


@pytest.mark.parametrize("case", CASES)
def test_read_never_raises_and_skips_what_is_not_a_memory(case: str, tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.directory.mkdir()
    (layer.directory / f"{case}.md").write_bytes((GOLDEN / f"{case}.md").read_bytes())
    expected = json.loads((GOLDEN / f"{case}.json").read_text(encoding="utf-8"))
    assert len(layer.read()) == (1 if expected["memory"] else 0)


def test_a_reference_file_maps_to_an_entry() -> None:
    raw = (GOLDEN / "reference.md").read_text(encoding="utf-8")
    parsed = parse_entry_file(raw)
    assert parsed is not None
    entry = entry_from_file(parsed, "SSH-port-on-staging.md", "project")
    digest = hashlib.sha256(b"SSH port on staging").hexdigest()[:4]
    assert entry.id == f"20260713-{digest}"
    assert entry.time == _local(datetime(2026, 10, 2, 8, 14, 3, tzinfo=timezone.utc))
    assert entry.src == "user"
    assert entry.project == ""
    assert entry.keyword
    assert entry.file == "SSH-port-on-staging.md"
    assert (entry.name, entry.type, entry.created) == (
        "SSH port on staging",
        "project",
        "2026-07-13",
    )
    assert entry.body == "staging 的 SSH 用 2222 端口，密钥在 ~/.ssh/staging。"
    assert entry.seen == 1
    assert entry.supersedes == ()
    assert entry.extra == ()


def test_extras_map_onto_entry_fields_and_back_byte_for_byte() -> None:
    raw = (GOLDEN / "extras.md").read_text(encoding="utf-8")
    parsed = parse_entry_file(raw)
    assert parsed is not None
    entry = entry_from_file(parsed, "Use-real-DB-in-tests.md", "project")
    assert entry.id == "20260930-a1b2"
    assert entry.keyword == "test database"
    assert entry.time == "2026-09-30 18:00:00"
    assert (entry.project, entry.src, entry.seen) == ("shop", "auto", 3)
    assert entry.last == "2026-10-01 11:12:33"
    assert entry.supersedes == ("20260901-0001", "20260902-0002")
    assert entry.superseded_by == "20261005-beef"
    assert entry.extra == (("category", "FAILURES.md"), ("owner", "team-db"))
    assert category_of(entry) == "FAILURES.md"
    assert entry_to_text(entry) == raw


def test_derived_values_are_not_written_back() -> None:
    raw = (GOLDEN / "reference.md").read_text(encoding="utf-8")
    parsed = parse_entry_file(raw)
    assert parsed is not None
    entry = entry_from_file(parsed, "SSH-port-on-staging.md", "project")
    # Everything, the id included, follows from the five fields: nothing is added.
    assert entry_to_text(entry) == raw


def test_garbage_extras_fall_back_to_derived_values() -> None:
    raw = (
        "---\nname: A\ndescription: d\ntype: user\ncreated: 2026-01-02\n"
        "modified: 2026-01-02T00:00:00.000Z\nid: nope\nseen: many\nsupersedes: x, 20260101-abcd\n"
        "superseded-by: later\n---\n\nb\n"
    )
    parsed = parse_entry_file(raw)
    assert parsed is not None
    entry = entry_from_file(parsed, "A.md", "user")
    assert entry.id == derived_id("A", "2026-01-02", "")
    assert entry.seen == 1
    assert entry.supersedes == ("20260101-abcd",)
    assert entry.superseded_by == ""


def test_derived_id_without_a_date() -> None:
    assert derived_id("A", "yesterday", "m").startswith("19700101-")
    assert derived_id("A", "yesterday", "2026-03-04T00:00:00.000Z").startswith("20260304-")


def test_iso_timestamp_is_javascript_to_iso_string() -> None:
    assert iso_timestamp(NOW) == "2026-10-02T08:14:03.120Z"
    assert iso_timestamp(datetime(2026, 1, 2, 3, 4, 5, 6999, tzinfo=timezone.utc)) == (
        "2026-01-02T03:04:05.006Z"
    )


def test_derive_description_strips_one_marker_and_caps_in_utf16_units() -> None:
    assert derive_description("## Heading. more") == "Heading."
    assert derive_description("- item\nnext") == "item"
    assert derive_description("x" * 201) == "x" * 199 + "…"
    assert derive_description("😀" * 101) == "😀" * 99 + "\ufffd…"
    assert derive_description("abc", 2) == "a…"
    # A marker is stripped only at the start of the line.
    assert derive_description("Now 2200. Changed.") == "Now 2200."
    assert derive_description("Use - dashes - freely") == "Use - dashes - freely"


def test_type_category_table() -> None:
    assert [default_category(t, "user") for t in ("user", "reference", "feedback", "project")] == [
        "USER.md",
        "TOOLING.md",
        "LESSONS.md",
        "DECISIONS.md",
    ]
    assert default_category("feedback", "project") == "CONVENTIONS.md"
    assert type_for_category("FAILURES.md") == "feedback"
    assert type_for_category("CONVENTIONS.md") == "feedback"
    assert type_for_category("notes.md") == ""


# ------------------------------------------------------------------ the tool methods


def test_add_writes_the_seed_file_and_index_line(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    result = layer.add(
        "SSH port on staging",
        "staging 的 SSH 用 2222 端口，密钥在 ~/.ssh/staging。",
        "staging SSH listens on 2222, not 22; key at ~/.ssh/staging",
        "project",
        NOW,
    )
    assert result.file == "SSH-port-on-staging.md"
    assert result.capacity_warning is None
    reference = (GOLDEN / "reference.md").read_text(encoding="utf-8")
    written = (layer.directory / result.file).read_text(encoding="utf-8")
    # pi-memory's five fields and nothing else: byte for byte what the reference writes.
    assert written == reference.replace("2026-07-13", "2026-10-02")
    # Replacing it keeps it so (the id still derives from name and creation day).
    entry_id = layer.read()[0].id
    layer.replace("SSH port on staging", None, type="reference", now=LATER)
    rewritten = (layer.directory / result.file).read_text(encoding="utf-8")
    assert rewritten == written.replace("type: project", "type: reference").replace(
        "2026-10-02T08:14:03.120Z", "2026-10-03T09:00:00.005Z"
    )
    assert layer.read()[0].id == entry_id
    assert layer.read_index() == (
        "- [SSH port on staging](SSH-port-on-staging.md) — "
        "staging SSH listens on 2222, not 22; key at ~/.ssh/staging\n"
    )


def test_add_of_an_existing_name_overwrites_and_keeps_created(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.add("Test command", "run npm test.", now=NOW)
    first = layer.read()[0]
    layer.add("Other", "x.", now=NOW)
    layer.add("Test command", "run pnpm test.", type="project", now=LATER)
    entries = {e.name: e for e in layer.read()}
    again = entries["Test command"]
    assert len(entries) == 2
    assert again.file == first.file == "Test-command.md"
    assert (again.created, again.id) == (first.created, first.id)
    assert again.modified == "2026-10-03T09:00:00.005Z"
    assert (again.body, again.description, again.type) == (
        "run pnpm test.",
        "run pnpm test.",
        "project",
    )
    assert layer.read_index() == (
        "- [Test command](Test-command.md) — run pnpm test.\n- [Other](Other.md) — x.\n"
    )


def test_add_overwrite_of_a_reference_file_keeps_its_created(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.directory.mkdir()
    (layer.directory / "SSH-port-on-staging.md").write_bytes((GOLDEN / "crlf.md").read_bytes())
    layer.add("SSH port on staging", "now 2200.", now=LATER)
    text = (layer.directory / "SSH-port-on-staging.md").read_bytes()
    assert b"\r" not in text
    assert b"created: 2026-07-13\nmodified: 2026-10-03T09:00:00.005Z\n" in text
    assert b"type: project\n" in text


def test_file_names_clash_and_never_take_the_index(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    assert layer.add("A B", "one.", now=NOW).file == "A-B.md"
    assert layer.add("A-B", "two.", now=NOW).file == "A-B-2.md"
    assert layer.add("MEMORY", "three.", now=NOW).file == "MEMORY-2.md"
    assert layer.add("CON", "four.", now=NOW).file == "_CON.md"
    assert layer.add("部署 🔥 检查", "five.", now=NOW).file == "部署-🔥-检查.md"
    assert layer.read_index().splitlines()[2] == "- [MEMORY](MEMORY-2.md) — three."


def test_a_file_name_on_disk_that_is_not_a_memory_is_not_overwritten(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.directory.mkdir()
    legacy = layer.directory / "Debugging.md"
    legacy.write_bytes((GOLDEN / "legacy_1x.md").read_bytes())
    assert layer.add("Debugging", "new.", now=NOW).file == "Debugging-2.md"
    assert legacy.read_bytes() == (GOLDEN / "legacy_1x.md").read_bytes()


def test_add_rejects_bad_input_before_writing(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    cases = [
        (("", "b"), "name is required"),
        (("A\rB", "b"), "name must be a single line"),
        (("A](x.md) — fake", "b"), "name must not contain ']('"),
        (("A", "  \n "), "body is required"),
    ]
    for (name, body), message in cases:
        with pytest.raises(EntryRejected, match=message.replace("(", r"\(").replace("]", r"\]")):
            layer.add(name, body, now=NOW)
    with pytest.raises(EntryRejected, match="description must be a single line"):
        layer.add("A", "b", "one\ntwo", now=NOW)
    with pytest.raises(EntryRejected, match="type must be one of"):
        layer.add("A", "b", type="bogus", now=NOW)
    assert not layer.directory.exists() or os.listdir(layer.directory) == []


def test_replace_rewrites_in_place_and_remove_deletes(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.directory.mkdir()
    layer.index_path.write_text("# Memory Index\n\n## Group\n<!-- mine -->\n", encoding="utf-8")
    layer.add("A", "alpha.", now=NOW)
    layer.add("B", "beta.", now=NOW)
    layer.replace("A", "alpha two. details", "new A", "reference", LATER)
    assert layer.read_index() == (
        "# Memory Index\n\n## Group\n<!-- mine -->\n- [A](A.md) — new A\n- [B](B.md) — beta.\n"
    )
    entry = layer.find("A.md")
    assert entry is not None
    assert (entry.type, entry.body, entry.created) == (
        "reference",
        "alpha two. details",
        "2026-10-02",
    )
    assert layer.remove_by_name("A") == "A.md"
    assert not (layer.directory / "A.md").exists()
    assert layer.read_index() == "# Memory Index\n\n## Group\n<!-- mine -->\n- [B](B.md) — beta.\n"
    with pytest.raises(EntryRejected, match='Entry "A" not found'):
        layer.remove_by_name("A")
    with pytest.raises(EntryRejected, match='Entry "Z" not found'):
        layer.replace("Z", "x", now=NOW)


def test_rebuild_sorts_by_modified_and_keeps_the_header(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.add("Old", "old.", now=NOW)
    layer.add("New", "new.", now=LATER)
    layer.replace("Old", "old but touched.", now=datetime(2026, 10, 4, tzinfo=timezone.utc))
    layer.index_path.write_text(
        "# Mine\r\n\r\n- [New](New.md) — new.\r\n- [Gone](Gone.md) — x\r\n", encoding="utf-8"
    )
    report = files_store(layer.directory).rebuild("project")
    # Old's line came in; the blank line and Gone's line went.
    assert (report.entries, report.index_change) == (2, (1, 2))
    assert (
        layer.read_index() == "# Mine\n- [New](New.md) — new.\n- [Old](Old.md) — old but touched.\n"
    )


def test_list_and_search(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    assert list_text(layer.read()) == "No memories yet."
    layer.add("Deploy", "Ship on Tuesdays. Never Friday.", type="project", now=LATER)
    layer.add("Tests", "Use a real database.", now=NOW)
    assert list_text(layer.read()) == (
        "- Tests (feedback, modified 2026-10-02T08:14:03.120Z) — Use a real database. [Tests.md]\n"
        "- Deploy (project, modified 2026-10-03T09:00:00.005Z) — Ship on Tuesdays. [Deploy.md]"
    )
    assert search_text(layer.read(), "FRIDAY", NOW) == (
        "## Deploy\nfile: Deploy.md\ntype: project\n\nShip on Tuesdays. Never Friday."
    )
    assert search_text(layer.read(), "nothing like it", NOW) == "No matches in memory."


# ------------------------------------------------------------------ snapshots and the lock


def _snapshots(layer: FilesLayer) -> list[Path]:
    root = layer.directory / ".backups"
    return sorted(root.iterdir(), key=lambda p: natural_key(p.name)) if root.exists() else []


def _label(snapshot: Path) -> str:
    """``…Z-write`` and ``…Z-write-2`` (a second snapshot in the same millisecond) → ``write``."""
    return re.sub(r"-\d+$", "", snapshot.name).rpartition("-")[2]


def _tool(store: Store, **args: object) -> str:
    result = run_memory_tool(store, "project", args, NOW)
    assert result.ok, result.text
    return result.text


def test_every_tool_write_leaves_a_snapshot_of_what_it_changes(tmp_path: Path) -> None:
    store = files_store(tmp_path / "store")
    layer = _layer(tmp_path)

    def only_new(before: list[Path]) -> Path:
        # By what appeared, not by name: two snapshots of one millisecond sort by label.
        (made,) = set(_snapshots(layer)) - set(before)
        return made

    _tool(store, action="add", name="A", content="alpha.")
    before = _snapshots(layer)
    run_memory_tool(store, "project", {"action": "add", "name": "A", "content": "two."}, LATER)
    made = only_new(before)
    assert _label(made) == "write"
    assert (made / "A.md").read_text(encoding="utf-8").endswith("\n\nalpha.\n")
    assert (made / "MEMORY.md").read_text(encoding="utf-8") == "- [A](A.md) — alpha.\n"
    before = _snapshots(layer)
    _tool(store, action="remove", name="A")
    assert (only_new(before) / "A.md").read_text(encoding="utf-8").endswith("two.\n")
    before = _snapshots(layer)
    store.rebuild("project")
    assert _label(only_new(before)) == "index"


def test_a_bare_layer_takes_no_rollback_point(tmp_path: Path) -> None:
    # The engine decides on rollback points; the layout only announces its changes.
    layer = _layer(tmp_path)
    layer.add("A", "alpha.", now=NOW)
    layer.add("A", "alpha two.", now=LATER)
    assert _snapshots(layer) == []


def test_snapshots_are_pruned_to_snapshot_keep(tmp_path: Path) -> None:
    store = files_store(tmp_path / "store", snapshot_keep=2)
    for n in range(5):
        _tool(store, action="add", name="A", content=f"version {n}.")
    assert len(_snapshots(_layer(tmp_path))) == 2


_HOLDER = """
import sys, time
from pathlib import Path
from pi_memory.fs.lock import StoreLock
with StoreLock(Path(sys.argv[1]), "dream", 5000):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_a_held_lock_stops_the_write_and_names_the_holder(tmp_path: Path) -> None:
    store = files_store(tmp_path / "store", lock_timeout_ms=200)
    layer = _layer(tmp_path)
    _tool(store, action="add", name="A", content="alpha.")
    holder = Holder(layer.directory, "dream")
    try:
        with pytest.raises(LockError) as caught:
            store.write("project", "changed.", ["deploy"], now=LATER)
        result = run_memory_tool(
            store, "project", {"action": "add", "name": "A", "content": "changed."}, LATER
        )
        assert not result.ok and "dream" in result.text
        assert "dream" in str(caught.value)
    finally:
        holder.release()
    assert [e.body for e in layer.read()] == ["alpha."]


def test_a_write_waits_for_a_short_holder(tmp_path: Path) -> None:
    store = files_store(tmp_path / "store", lock_timeout_ms=5000)
    layer = _layer(tmp_path)
    _tool(store, action="add", name="A", content="alpha.")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(layer.directory), "0.3"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        started = time.monotonic()
        _tool(store, action="replace", name="A", content="changed.")
        assert time.monotonic() - started > 0.05
    finally:
        holder.wait(timeout=10)
        assert holder.stdout is not None
        holder.stdout.close()
    assert layer.read()[0].body == "changed."
    assert not (layer.directory / ".lock").exists()


# ------------------------------------------------------------------ the engine's protocol


def test_open_layer_gives_a_files_layer(tmp_path: Path) -> None:
    layer = open_layer("files", "user", tmp_path)
    assert isinstance(layer, FilesLayer)


def test_append_keeps_everything_an_entry_from_the_categories_layout_has(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    source = _entry(
        file="FAILURES.md",
        seen=2,
        last="2026-10-01 12:00:00",
        supersedes=("20260901-0001",),
    )
    stored = layer.append(source)
    assert stored.type == "feedback"
    assert stored.file == "Deploys-only-run-on-Tuesdays.md"
    assert stored.name == "Deploys only run on Tuesdays"
    assert stored.created == "2026-10-01"
    (again,) = layer.read()
    assert again == stored
    for field in ("id", "time", "project", "src", "keyword", "body", "seen", "last", "supersedes"):
        assert getattr(again, field) == getattr(source, field), field
    assert category_of(again) == "FAILURES.md"
    text = (layer.directory / stored.file).read_text(encoding="utf-8")
    assert "\ncategory: FAILURES.md\n" in text
    assert layer.read_index() == (
        "# Memory Index\n\n"  # a new index starts as the design shows one
        "- [Deploys only run on Tuesdays](Deploys-only-run-on-Tuesdays.md) — "
        "Deploys only run on Tuesdays.\n"
    )


def test_append_default_category_is_not_written(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    stored = layer.append(_entry(file="CONVENTIONS.md"))
    assert "category" not in (layer.directory / stored.file).read_text(encoding="utf-8")
    assert category_of(stored) == "CONVENTIONS.md"
    assert stored.type == "feedback"
    user = _layer(tmp_path / "u", layer="user")
    kept = user.append(_entry(file="TOOLING.md", id="20261001-0b0b"))
    assert (kept.type, category_of(kept)) == ("reference", "TOOLING.md")


def test_append_files_to_files_keeps_name_and_file(tmp_path: Path) -> None:
    source = _layer(tmp_path / "a")
    source.add("Use real DB", "Never mock the database.", type="project", now=NOW)
    (original,) = source.read()
    target = _layer(tmp_path / "b")
    copied = target.append(original)
    assert copied == original
    assert (target.directory / copied.file).read_bytes() == (
        source.directory / original.file
    ).read_bytes()


def test_append_refuses_a_duplicate_id_and_a_bad_created(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.append(_entry())
    with pytest.raises(EntryRejected, match="already exists"):
        layer.append(_entry(body="other"))
    with pytest.raises(EntryRejected, match="created must be YYYY-MM-DD"):
        layer.append(_entry(id="20261001-0c0c", created="2026/10/01"))


def test_append_makes_a_clashing_name_unique(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    first = layer.append(_entry())
    second = layer.append(_entry(id="20261001-0d0d"))
    assert second.name == f"{first.name} (20261001-0d0d)"
    assert second.file != first.file


def test_update_rewrites_in_place_and_drops_superseded_lines(tmp_path: Path) -> None:
    clock = iter([LATER, LATER])
    layer = FilesLayer("project", tmp_path / "store", clock=lambda: next(clock))
    layer.directory.mkdir()
    layer.index_path.write_text("# Memory Index\n\n", encoding="utf-8")
    old = layer.append(_entry())
    new = layer.append(_entry(id="20261001-0e0e", body="Deploys run on Tuesdays and Thursdays."))
    layer.update([replace_entry(old, superseded_by=new.id), replace_entry(new, seen=2)])
    by_id = {e.id: e for e in layer.read()}
    assert by_id[old.id].superseded_by == new.id
    assert by_id[new.id].seen == 2
    assert by_id[new.id].modified == "2026-10-03T09:00:00.005Z"
    assert by_id[new.id].time == _local(LATER)
    assert layer.read_index() == (
        "# Memory Index\n\n- [Deploys run on Tuesdays and Thursdays]"
        "(Deploys-run-on-Tuesdays-and-Thursdays.md) — Deploys run on Tuesdays and Thursdays.\n"
    )


def replace_entry(entry: Entry, **changes: object) -> Entry:

    return entry._replace(**changes)  # type: ignore[arg-type]


def test_remove_by_id_and_refresh_index(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    a = layer.append(_entry())
    b = layer.append(_entry(id="20261001-0f0f", body="Second memory."))
    layer.index_path.unlink()
    layer.refresh_index(layer.read(), {})
    assert layer.read_index().startswith("# Memory Index\n\n- [")
    layer.index_path.write_text("# mine\n", encoding="utf-8")
    layer.refresh_index(layer.read(), {})
    assert layer.read_index() == "# mine\n"
    layer.remove([a.id])
    assert [e.id for e in layer.read()] == [b.id]
    assert not (layer.directory / a.file).exists()


def test_read_skips_index_dot_files_and_other_files(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    layer.add("A", "alpha.", now=NOW)
    reference = (GOLDEN / "reference.md").read_bytes()
    (layer.directory / ".hidden.md").write_bytes(reference)
    (layer.directory / "notes.txt").write_bytes(reference)
    (layer.directory / "dir.md").mkdir()
    (layer.directory / "sessions").mkdir()
    assert [e.name for e in layer.read()] == ["A"]
    assert _layer(tmp_path / "missing").read() == []


def test_device_named_files_are_skipped_on_windows_only(tmp_path: Path) -> None:
    linux = FilesLayer("project", tmp_path / "store", platform="linux")
    linux.directory.mkdir()
    (linux.directory / "con.md").write_bytes((GOLDEN / "reference.md").read_bytes())
    assert [e.file for e in linux.read()] == ["con.md"]
    windows = FilesLayer("project", tmp_path / "store", platform="win32")
    assert windows.read() == []


def test_home_category_falls_back_to_feedback_where_the_layer_lacks_the_file() -> None:
    assert home_category("project", "project") == "DECISIONS.md"
    assert home_category("project", "user") == "LESSONS.md"
    assert home_category("user", "project") == "CONVENTIONS.md"
    assert home_category("reference", "user") == "TOOLING.md"


def test_category_entry_carries_only_what_a_copy_back_cannot_derive(tmp_path: Path) -> None:
    source = _layer(tmp_path / "a", layer="user")
    source.add("Use real DB", "Never mock the database.", type="project", now=NOW)
    (entry,) = source.read()
    row = category_entry(entry)
    assert (row.file, row.type, row.name, row.description, row.created) == (
        "LESSONS.md",
        "project",
        "Use real DB",  # not the body's first sentence, so it is carried
        "",
        "",
    )
    assert row.extra == ()
    renamed = category_entry(
        entry._replace(
            file="db.md",
            keyword="database",
            extra=(("legacy-tags", "database,mock"), ("category", "NOTES.md")),
        )
    )
    assert renamed.extra == (
        (RAW_TAGS_KEY, "database,mock"),
        (FILE_NAME_KEY, "db.md"),
        ("category", "NOTES.md"),
    )
    # The files layer gives the same memory back from what the row holds.
    target = _layer(tmp_path / "b", layer="user")
    back = target.append(renamed)
    assert back.file == "db.md"
    assert back.extra == (("legacy-tags", "database,mock"), ("category", "NOTES.md"))


def test_an_engine_write_leaves_a_rollback_point_and_an_import_only_one(tmp_path: Path) -> None:
    store = files_store(tmp_path / "store")
    layer = _layer(tmp_path)
    store.import_entries("project", [_entry()])
    assert _snapshots(layer) == []  # nothing was there to roll back to
    store.import_entries("project", [_entry(id="20261001-0b0b", body="Another memory.")])
    assert [p.name.split("Z-")[1] for p in _snapshots(layer)] == ["import"]
    store.write("project", "A third memory.", ["third"], now=datetime.now())
    assert [p.name.split("Z-")[1] for p in _snapshots(layer)] == ["import", "write"]


def test_rename_moves_the_file_and_keeps_the_index_line_in_place(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    moment = datetime(2026, 11, 1, 10, 0, tzinfo=timezone.utc)
    layer.add("first", "One.", now=moment)
    layer.add("misc", "Run the tests with pytest -q.", now=moment)
    layer.add("last", "Three.", now=moment)
    index = layer.index_path
    index.write_text("# My notes\n" + index.read_text("utf-8") + "hand-written tail\n", "utf-8")
    before = layer.find("misc")
    assert before is not None

    result = layer.rename("misc", "Test command", now=moment)

    assert result.file == "Test-command.md"
    assert not (layer.directory / "misc.md").exists()
    after = layer.find("Test command")
    assert after is not None
    assert (after.id, after.body, after.created) == (before.id, before.body, before.created)
    assert index.read_text("utf-8").splitlines() == [
        "# My notes",
        "- [first](first.md) — One.",
        "- [Test command](Test-command.md) — Run the tests with pytest -q.",
        "- [last](last.md) — Three.",
        "hand-written tail",
    ]
    with pytest.raises(EntryRejected, match="already exists"):
        layer.rename("first", "last")
    with pytest.raises(EntryRejected, match="not found"):
        layer.rename("nothing", "else")


def test_add_appends_below_a_handwritten_last_line_so_the_window_shows_it(
    tmp_path: Path,
) -> None:
    layer = _layer(tmp_path)
    layer.add("A", "first.", now=NOW)
    layer.index_path.write_text(layer.read_index() + "## Group X\n", encoding="utf-8")
    layer.add("B", "second.", now=LATER)
    assert layer.read_index().splitlines()[-2:] == ["## Group X", "- [B](B.md) — second."]
    # The injection window is the bottom of the file: the newest memory is in a one-line window.
    window = truncate_index_for_injection(layer.read_index(), 1, 16384)
    assert window.content.endswith("- [B](B.md) — second.\n")
