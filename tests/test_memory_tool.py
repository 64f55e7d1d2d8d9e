"""The files layout's ``memory`` tool: five actions, strict arguments, texts the agent reads."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pi_memory.agent_tools.memory import ToolResult, parse_arguments, run_memory_tool
from pi_memory.layouts.files.layer import FilesLayer
from pi_memory.store import Store
from tests.conftest import files_store
from tests.inproc import call, tool, user_config
from tests.lockholder import Holder

NOW = datetime(2026, 10, 2, 8, 14, 3, 120000, tzinfo=timezone.utc)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return files_store(tmp_path / "store")


def layer_of(store: Store) -> FilesLayer:
    layer = store.layer("project")
    assert isinstance(layer, FilesLayer)
    return layer


def run(store: Store, **args: object) -> ToolResult:
    return run_memory_tool(store, "project", args, NOW)


def test_add_list_search_replace_remove(store: Store) -> None:
    assert run(store, action="list") == ToolResult(True, "No memories yet.")
    assert run(
        store,
        action="add",
        name=" SSH port on staging ",
        content="staging 的 SSH 用 2222 端口。",
        description="staging SSH listens on 2222, not 22",
        type="project",
    ) == ToolResult(True, 'Saved "SSH port on staging" (SSH-port-on-staging.md).')
    assert run(store, action="list") == ToolResult(
        True,
        "- SSH port on staging (project, modified 2026-10-02T08:14:03.120Z) — "
        "staging SSH listens on 2222, not 22 [SSH-port-on-staging.md]",
    )
    assert run(store, action="search", query="2222") == ToolResult(
        True,
        "## SSH port on staging\nfile: SSH-port-on-staging.md\ntype: project\n\n"
        "staging 的 SSH 用 2222 端口。",
    )
    assert run(store, action="search", query="nope", scope="memory") == ToolResult(
        True, "No matches in memory."
    )
    assert run(
        store, action="replace", name="SSH port on staging", content="Now 2200. Changed."
    ) == ToolResult(True, 'Replaced "SSH port on staging" (SSH-port-on-staging.md).')
    entry = layer_of(store).find("SSH port on staging")
    assert entry is not None
    assert (entry.description, entry.type) == ("Now 2200.", "project")
    assert run(store, action="remove", name="SSH port on staging") == ToolResult(
        True, 'Removed "SSH port on staging".'
    )
    assert run(store, action="remove", name="SSH port on staging") == ToolResult(
        False, 'Entry "SSH port on staging" not found'
    )
    assert layer_of(store).read() == []


def test_add_without_description_uses_the_first_sentence(store: Store) -> None:
    assert run(store, action="add", name="A", content="First. Second.").ok
    assert layer_of(store).read_index() == "- [A](A.md) — First.\n"


def test_over_capacity_the_write_succeeds_with_the_warning(tmp_path: Path) -> None:
    small = files_store(tmp_path / "s", index_max_lines=1)
    assert run(small, action="add", name="A", content="a.") == ToolResult(True, 'Saved "A" (A.md).')
    result = run(small, action="add", name="B", content="b.")
    assert result.ok
    assert result.text == (
        'Saved "B" (B.md).\n\nMEMORY.md is over its limit: 2/1 lines, 38/25600 bytes. '
        "The write succeeded, but everything past the limit is dropped on the next load. "
        "Rewrite it now: keep one line per entry, merge or drop stale entries, and move "
        "detail into entry bodies rather than the index."
    )
    assert len(layer_of(small).read()) == 2
    replaced = run(small, action="replace", name="A", content="a2.")
    assert replaced.ok
    assert "MEMORY.md is over its limit: 2/1 lines" in replaced.text


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ({"action": "add", "content": "x"}, "name is required for add"),
        ({"action": "add", "name": "  ", "content": "x"}, "name is required for add"),
        ({"action": "add", "name": "A"}, "content is required for add"),
        ({"action": "add", "name": "A", "content": ""}, "content is required for add"),
        ({"action": "add", "name": "A", "content": "  "}, "body is required"),
        ({"action": "add", "name": "A\nB", "content": "x"}, "name must be a single line"),
        ({"action": "replace", "content": "x"}, "name is required for replace"),
        ({"action": "replace", "name": "A"}, "replace needs content, description or type"),
        ({"action": "replace", "name": "A", "content": "x"}, 'Entry "A" not found'),
        ({"action": "remove"}, "name is required for remove"),
        ({"action": "remove", "name": "nope"}, 'Entry "nope" not found'),
        ({"action": "search"}, "query is required for search"),
        ({"action": "search", "query": " "}, "query is required for search"),
        (
            {"action": "search", "query": "x", "scope": "sessions"},
            "session search is not available in this host",
        ),
        (
            {"action": "search", "query": "x", "scope": "web"},
            "scope must be one of memory, project, user, sessions",
        ),
        ({}, "action is required (one of add, replace, remove, list, search)"),
        ({"action": "rename", "name": "A"}, "Unknown action: rename"),
        ({"action": "rebuild_index"}, "Unknown action: rebuild_index"),
        ({"action": 3}, "action must be a string, not a number"),
        ({"action": "add", "name": ["A"], "content": "x"}, "name must be a string, not an array"),
        (
            {"action": "add", "name": "A", "content": {"t": 1}},
            "content must be a string, not an object",
        ),
        (
            {"action": "add", "name": "A", "content": True},
            "content must be a string, not a boolean",
        ),
        (
            {"action": "add", "name": "A", "content": "x", "type": "note"},
            "type must be one of user, feedback, project, reference",
        ),
        (
            {"action": "add", "name": "A", "body": "x"},
            "unknown argument 'body' for memory "
            "(expected: action, name, description, content, type, query, scope)",
        ),
        (
            {"action": "add", "name": "A", "content": "x", "description": "a\nb"},
            "description must be a single line",
        ),
    ],
)
def test_bad_arguments_are_results_not_exceptions(
    store: Store, args: dict[str, object], text: str
) -> None:
    assert run_memory_tool(store, "project", args, NOW) == ToolResult(False, text)
    assert layer_of(store).read() == []


def test_arguments_that_are_not_an_object(store: Store) -> None:
    not_objects: list[object] = [None, [], "add", 3]
    for args in not_objects:
        result = run_memory_tool(store, "project", args, NOW)  # type: ignore[arg-type]
        assert result == ToolResult(False, "memory arguments must be a JSON object")


def test_null_counts_as_absent() -> None:
    call = parse_arguments({"action": "list", "name": None, "scope": None})
    assert (call.action, call.name, call.scope) == ("list", None, None)


def test_a_held_lock_is_a_failed_result(store: Store) -> None:
    slow = files_store(layer_of(store).directory, lock_timeout_ms=100)
    assert run(slow, action="add", name="A", content="a.").ok
    holder = Holder(layer_of(store).directory, "add")
    try:
        result = run(slow, action="remove", name="A")
    finally:
        holder.release()
    assert not result.ok
    assert result.text.startswith("Memory is locked by add (pid ")
    assert [e.name for e in layer_of(store).read()] == ["A"]


def test_an_os_error_is_a_failed_result(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    result = run(files_store(blocker / "store"), action="add", name="A", content="a.")
    assert not result.ok
    assert result.text.startswith("memory add failed: ")


# --------------------------------------- through the command line, as an agent host calls it


@pytest.fixture
def files_work(hermetic_home: Path, tmp_path: Path) -> Path:
    """A working directory whose store uses the files layout."""
    user_config(hermetic_home, {"layout": "files"})
    work = tmp_path / "work"
    work.mkdir()
    return work


def project_dir(home: Path) -> Path:
    [directory] = (home / ".pi" / "memory" / "local").iterdir()
    return directory


def test_the_first_write_creates_the_memory_directory(
    hermetic_home: Path, files_work: Path
) -> None:
    assert not (hermetic_home / ".pi" / "memory").exists()
    answer = tool("memory", files_work, action="add", name="Test command", content="npm test.")
    assert answer == {"ok": True, "text": 'Saved "Test command" (Test-command.md).'}
    assert (project_dir(hermetic_home) / "Test-command.md").is_file()


def test_replace_with_only_a_type_keeps_body_and_description(
    hermetic_home: Path, files_work: Path
) -> None:
    tool("memory", files_work, action="add", name="A", content="Alpha. More.", description="d A")
    answer = tool("memory", files_work, action="replace", name="A", type="reference")
    assert answer == {"ok": True, "text": 'Replaced "A" (A.md).'}
    text = (project_dir(hermetic_home) / "A.md").read_text("utf-8")
    assert "\ndescription: d A\ntype: reference\n" in text
    assert text.endswith("\n\nAlpha. More.\n")
    assert (project_dir(hermetic_home) / "MEMORY.md").read_text("utf-8") == "- [A](A.md) — d A\n"


def test_replace_rules_the_seed_keeps(hermetic_home: Path, files_work: Path) -> None:
    tool("memory", files_work, action="add", name="A", content="Alpha.", description="d A")
    before = (project_dir(hermetic_home) / "A.md").read_bytes()
    multi = tool("memory", files_work, action="replace", name="A", description="x\ny")
    assert multi == {"ok": False, "text": "description must be a single line"}
    unknown = tool("memory", files_work, action="replace", name="B", content="b.")
    assert unknown == {"ok": False, "text": 'Entry "B" not found'}
    assert (project_dir(hermetic_home) / "A.md").read_bytes() == before
    explicit = tool(
        "memory", files_work, action="replace", name="A", content="Beta. Two.", description="mine"
    )
    assert explicit["ok"]
    assert "\ndescription: mine\n" in (project_dir(hermetic_home) / "A.md").read_text("utf-8")
    derived = tool("memory", files_work, action="replace", name="A", content="Gamma. Three.")
    assert derived["ok"]
    assert "\ndescription: Gamma.\n" in (project_dir(hermetic_home) / "A.md").read_text("utf-8")


def test_a_snapshot_that_cannot_be_taken_aborts_the_write(
    hermetic_home: Path, files_work: Path
) -> None:
    tool("memory", files_work, action="add", name="A", content="Alpha.")
    directory = project_dir(hermetic_home)
    shutil.rmtree(directory / ".backups")
    (directory / ".backups").write_text("in the way", "utf-8")
    before = {p.name: p.read_bytes() for p in directory.iterdir() if p.is_file()}
    for args in (
        {"action": "replace", "name": "A", "content": "Beta."},
        {"action": "add", "name": "B", "content": "Beta."},
        {"action": "remove", "name": "A"},
    ):
        answer = tool("memory", files_work, **args)
        assert not answer["ok"], args
    assert {p.name: p.read_bytes() for p in directory.iterdir() if p.is_file()} == before


@pytest.mark.parametrize(
    ("name", "file"), [(".MEMORY", "MEMORY-2.md"), (".hidden", "hidden.md"), ("..x..", "x.md")]
)
def test_derived_file_names_drop_leading_dots(
    hermetic_home: Path, files_work: Path, name: str, file: str
) -> None:
    tool("memory", files_work, action="add", name="First", content="first.")
    answer = tool("memory", files_work, action="add", name=name, content="dotted.")
    assert answer == {"ok": True, "text": f'Saved "{name}" ({file}).'}
    index = (project_dir(hermetic_home) / "MEMORY.md").read_text("utf-8")
    assert index == f"- [First](First.md) — first.\n- [{name}]({file}) — dotted.\n"


def test_scope_reaches_the_user_layer(hermetic_home: Path, files_work: Path) -> None:
    tool("memory", files_work, action="add", name="Editor", content="Neovim.", scope="user")
    tool("memory", files_work, action="add", name="Port", content="SSH on 2222.")
    user_dir = hermetic_home / ".pi" / "memory" / "user"
    assert (user_dir / "Editor.md").is_file()
    assert not (project_dir(hermetic_home) / "Editor.md").exists()
    both = tool("memory", files_work, action="list")["text"].splitlines()
    assert [line.split(" (")[0] for line in both] == ["- Port", "- Editor"]
    assert both[1].endswith("[Editor.md] (user layer)")
    only_user = tool("memory", files_work, action="list", scope="user")["text"]
    assert only_user.startswith("- Editor (") and "\n" not in only_user
    only_project = tool("memory", files_work, action="list", scope="project")["text"]
    assert only_project.startswith("- Port (") and "\n" not in only_project
    found = tool("memory", files_work, action="search", query="neovim")["text"]
    assert found == "## Editor\nfile: Editor.md\ntype: feedback\nlayer: user\n\nNeovim."
    assert tool("memory", files_work, action="replace", name="Editor", scope="user", type="user")[
        "ok"
    ]
    assert "\ntype: user\n" in (user_dir / "Editor.md").read_text("utf-8")
    missing = tool("memory", files_work, action="remove", name="Editor")
    assert missing == {"ok": False, "text": 'Entry "Editor" not found'}
    assert tool("memory", files_work, action="remove", name="Editor", scope="user")["ok"]
    assert not (user_dir / "Editor.md").exists()


def test_search_matches_the_query_words_not_one_phrase(
    hermetic_home: Path, files_work: Path
) -> None:
    tool("memory", files_work, action="add", name="Cache", content="Redis is the cache; TTL 60 s.")
    tool("memory", files_work, action="add", name="Queue", content="Jobs go through Redis streams.")
    tool("memory", files_work, action="add", name="Build", content="make all.", description="ttl")
    found = tool("memory", files_work, action="search", query="redis TTL")["text"]
    names = [block.split("\n")[0] for block in found.split("\n\n## ")]
    assert names[0] == "## Cache"  # both words first, then either one
    assert sorted(names[1:]) == ["Build", "Queue"]
    nothing = tool("memory", files_work, action="search", query="postgres")
    assert nothing == {"ok": True, "text": "No matches in memory."}


def test_superseded_memories_come_last_and_labelled(hermetic_home: Path, files_work: Path) -> None:
    old = call("write", "--json", "--keyword", "node", "Use Node 18 for all tools.", cwd=files_work)
    old_id = json.loads(old.out)["id"]
    new = call(
        "write", "--json", "--keyword", "node", "--supersedes", old_id,
        "Use Node 22 for all tools.", cwd=files_work,
    )  # fmt: skip
    new_id = json.loads(new.out)["id"]
    listed = tool("memory", files_work, action="list")["text"].splitlines()
    assert listed[0].startswith("- Use Node 22 for all tools (")
    assert listed[1].startswith("- Use Node 18 for all tools (")
    assert listed[1].endswith(f"(superseded by {new_id})")
    found = tool("memory", files_work, action="search", query="node tools")["text"]
    first, second = found.split("\n\n## ")
    assert first.startswith("## Use Node 22") and "superseded" not in first
    assert second.startswith("Use Node 18")
    assert f"\nsuperseded by: {new_id} (outdated; kept for history)\n" in second
