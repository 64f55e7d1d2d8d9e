"""``import``: a layer copied between the layouts, as a user runs it, losing nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.clihelp import run_cli
from tests.inproc import call

# The user layer of each layout under the test's HOME (the defaults of memory.json).
CATEGORIES_USER = Path(".pi/agent/memory-auto")
FILES_USER = Path(".pi/memory/user")

#: A realistic user layer as the categories layout writes it: three files, a legacy
#: multi-keyword row, a re-confirmed row, a supersede pair, an empty ``p:``,
#: Chinese and multi-line bodies, a body line that looks like a list.
CATEGORY_FILES = {
    "USER.md": (
        "<!-- mid: 20260301-a1b2 | t: 2026-03-01 09:15:00 | p: myrepo | src: user"
        " | tags: 编辑器 -->\n"
        "用 Neovim，缩进 2 空格。\n"
        "\n"
        "<!-- mid: 20260410-c3d4 | t: 2026-04-10 18:02:11 | p: myrepo | src: auto"
        " | tags: deploy,rsync,备份 -->\n"
        "Deploy with `rsync --delete`; back up the previous release first.\n"
    ),
    "TOOLING.md": (
        "<!-- mid: 20260502-e5f6 | t: 2026-05-02 11:00:00 | p: myrepo | src: user | tags: ripgrep"
        " | seen: 3 | last: 2026-09-12 10:20:30 -->\n"
        "Search with `rg -n`, not grep.\n"
        "\n"
        "<!-- mid: 20260601-0a0b | t: 2026-06-01 08:00:00 | p: myrepo | src: user | tags: node"
        " | superseded-by: 20260915-1c2d -->\n"
        "Use Node 18 for all tools.\n"
        "\n"
        "<!-- mid: 20260915-1c2d | t: 2026-09-15 14:45:00 | p: myrepo | src: user | tags: node 22"
        " | supersedes: 20260601-0a0b -->\n"
        "Use Node 22 for all tools:\n"
        "- nvm use 22\n"
        "- corepack enable\n"
    ),
    "LESSONS.md": (
        "<!-- mid: 20260720-9f8e | t: 2026-07-20 16:30:00 | p:  | src: handoff | tags: 测试 -->\n"
        "测试先跑单元，再跑集成。\n"
        "\n"
        "集成测试需要 Docker。\n"
    ),
}

#: A user layer in the files layout: one file written by this package (id, an
#: unknown key with upper case and a ``|``, a hand-written description), one
#: written by the reference extension (five fields only), one whose category
#: is not its type's default.
ENTRY_FILES = {
    "staging-ssh.md": (
        "---\n"
        "name: SSH port on staging\n"
        "description: staging SSH listens on 2222 | key at ~/.ssh/staging\n"
        "type: project\n"
        "created: 2026-07-13\n"
        "modified: 2026-10-02T08:14:03.120Z\n"
        "id: 20260713-5a5a\n"
        "seen: 2\n"
        "last: 2026-10-01 09:00:00\n"
        "ticketURL: https://tracker/x?a=1|b=%20>\n"
        "---\n"
        "\n"
        "staging 的 SSH 用 2222 端口，密钥在 ~/.ssh/staging。\n"
    ),
    "提交规范.md": (
        "---\n"
        "name: 提交规范\n"
        "description: 提交信息用中文，祈使句。\n"
        "type: feedback\n"
        "created: 2026-05-01\n"
        "modified: 2026-05-01T02:03:04.000Z\n"
        "---\n"
        "\n"
        "提交信息用中文，祈使句。\n"
        "第二行说明。\n"
    ),
    "make-targets.md": (
        "---\n"
        "name: make targets\n"
        "description: run make help first\n"
        "type: reference\n"
        "created: 2026-06-01\n"
        "modified: 2026-06-02T10:00:00.500Z\n"
        "id: 20260601-7b7b\n"
        "category: LESSONS.md\n"
        "---\n"
        "\n"
        "Run `make help` first.\n"
    ),
}


def write_tree(directory: Path, files: dict[str, str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name).write_bytes(text.encode("utf-8"))


def tree_bytes(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


def md_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in directory.glob("*.md") if p.name != "MEMORY.md"}


def use_files_layout(home: Path) -> None:
    config = home / ".pi" / "agent" / "memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"layout": "files"}), "utf-8")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def imp(source: str, target: str, cwd: Path, layer: str = "user") -> str:
    run = run_cli("import", "--from", source, "--to", target, layer, cwd=cwd)
    assert run.code == 0, run.err
    return run.out


def test_categories_round_trip_is_byte_identical(hermetic_home: Path, work: Path) -> None:
    source = hermetic_home / CATEGORIES_USER
    write_tree(source, CATEGORY_FILES)

    out = imp("categories", "files", work)
    assert out == (
        f"imported 6 new memories from categories {source} to files {hermetic_home / FILES_USER}\n"
    )
    files = md_bytes(hermetic_home / FILES_USER)
    assert len(files) == 6
    legacy = next(t for t in files.values() if b"id: 20260410-c3d4" in t).decode()
    assert "\nlegacy-tags: deploy,rsync,\u5907\u4efd\n" in legacy
    old = next(t for t in files.values() if b"id: 20260601-0a0b" in t).decode()
    assert "\nsuperseded-by: 20260915-1c2d\n" in old
    index = (hermetic_home / FILES_USER / "MEMORY.md").read_text("utf-8")
    assert "Node 18" not in index  # a superseded memory is copied but stays out of the index

    original = hermetic_home / "original"
    source.rename(original)
    out = imp("files", "categories", work)
    assert out.startswith("imported 6 new memories from files ")
    assert md_bytes(source) == {name: text.encode("utf-8") for name, text in CATEGORY_FILES.items()}


def test_files_round_trip_keeps_every_entry_file(hermetic_home: Path, work: Path) -> None:
    source = hermetic_home / FILES_USER
    write_tree(source, ENTRY_FILES)
    out = imp("files", "categories", work)
    assert "imported 3 new memories" in out

    # The user layer has no DECISIONS.md: a project memory sits with the
    # feedback ones and keeps its type in the row.
    rows = (hermetic_home / CATEGORIES_USER / "LESSONS.md").read_text("utf-8")
    assert "| category: LESSONS.md" not in rows  # the file it sits in says it
    assert "\nRun `make help` first.\n" in rows
    assert " | name: 提交规范 -->\n" in rows  # description and file are derived again
    assert (
        " | description: staging SSH listens on 2222 %7C key at ~/.ssh/staging"
        " | type: project | created: 2026-07-13 | modified: 2026-10-02T08:14:03.120Z"
        " | file: staging-ssh.md | x-ticket%55%52%4C: https://tracker/x?a=1%7Cb=%2520%3E"
        " | seen: 2 | last: 2026-10-01 09:00:00 -->\n"
    ) in rows

    original = hermetic_home / "original"
    source.rename(original)
    imp("categories", "files", work)
    back = md_bytes(source)
    expected = {name: text.encode("utf-8") for name, text in ENTRY_FILES.items()}
    # Byte for byte: a memory that had no stored id still derives the same one.
    assert back == expected


@pytest.mark.parametrize(("source", "target"), [("categories", "files"), ("files", "categories")])
def test_importing_twice_changes_nothing(
    hermetic_home: Path, work: Path, source: str, target: str
) -> None:
    dirs = {"categories": CATEGORIES_USER, "files": FILES_USER}
    tree = CATEGORY_FILES if source == "categories" else ENTRY_FILES
    write_tree(hermetic_home / dirs[source], tree)
    imp(source, target, work)
    before = tree_bytes(hermetic_home / dirs[target])
    count = len(tree) if source == "files" else 6
    result = call("import", "--from", source, "--to", target, "user", cwd=work)
    assert (result.code, result.err) == (0, "")
    assert result.out == (
        f"imported 0 new memories from {source} {hermetic_home / dirs[source]}"
        f" to {target} {hermetic_home / dirs[target]}\n"
        f"  {count} already there and identical: skipped\n"
    )
    assert tree_bytes(hermetic_home / dirs[target]) == before


def _entry_file(directory: Path, entry_id: str) -> Path:
    [path] = [p for p in directory.glob("*.md") if f"id: {entry_id}" in p.read_text("utf-8")]
    return path


def test_reimport_never_overwrites_a_differing_copy_silently(
    hermetic_home: Path, work: Path
) -> None:
    write_tree(hermetic_home / CATEGORIES_USER, CATEGORY_FILES)
    assert call("import", "--from", "categories", "--to", "files", "user", cwd=work).code == 0
    target = hermetic_home / FILES_USER
    # The destination is edited after the first import (a memory's body)...
    edited = _entry_file(target, "20260502-e5f6")
    edited.write_text(edited.read_text("utf-8").replace("not grep.", "never grep."), "utf-8")
    # ... and the source is used more (the same body again: seen 3 -> 4).
    wrote = call(
        "write", "--layer", "user", "--file", "TOOLING.md", "--keyword", "ripgrep",
        "Deploy with `rsync --delete`; back up the previous release first.",
        cwd=work,
    )  # fmt: skip
    assert wrote.code == 0, wrote.err
    before = tree_bytes(target)
    again = call("import", "--from", "categories", "--to", "files", "user", cwd=work)
    assert (again.code, again.err) == (0, "")
    assert again.out.splitlines()[1:] == [
        "  4 already there and identical: skipped",
        "  2 already there and different: kept as they are: 20260410-c3d4, 20260502-e5f6",
        "  (to take the source's copies instead: python -m pi_memory import --from categories"
        " --to files --on-conflict replace user)",
    ]
    assert tree_bytes(target) == before
    taken = call(
        "import", "--from", "categories", "--to", "files", "--on-conflict", "replace", "user",
        cwd=work,
    )  # fmt: skip
    assert taken.out.splitlines()[1:] == [
        "  4 already there and identical: skipped",
        "  2 already there and different: replaced by the source's: 20260410-c3d4, 20260502-e5f6",
    ]
    assert "not grep." in _entry_file(target, "20260502-e5f6").read_text("utf-8")
    assert "\nseen: 2\n" in _entry_file(target, "20260410-c3d4").read_text("utf-8")
    snapshots = sorted((target / ".backups").iterdir())
    assert [p.name.endswith("-import") for p in snapshots] == [True]
    assert "never grep." in "".join(p.read_text("utf-8") for p in snapshots[0].glob("*.md"))
    settled = call("import", "--from", "categories", "--to", "files", "user", cwd=work)
    assert settled.out.splitlines()[1:] == ["  6 already there and identical: skipped"]


def test_search_finds_the_same_ids_in_both_layouts(hermetic_home: Path, work: Path) -> None:
    write_tree(hermetic_home / CATEGORIES_USER, CATEGORY_FILES)
    imp("categories", "files", work)

    def ids(query: str) -> list[str]:
        run = run_cli("search", "--json", query, cwd=work)
        assert run.code == 0, run.err
        return sorted(hit["id"] for hit in json.loads(run.out)["results"])

    queries = ["node", "rsync", "测试", "Neovim"]
    in_categories = [ids(q) for q in queries]
    use_files_layout(hermetic_home)
    assert [ids(q) for q in queries] == in_categories
    assert all(in_categories)


def test_rows_out_of_time_order_come_back_in_time_order(hermetic_home: Path, work: Path) -> None:
    """The one byte change of a categories round trip: the files layout orders by time."""
    late = (
        "<!-- mid: 20260902-aaaa | t: 2026-09-02 10:00:00 | p: r | src: user | tags: late -->\n"
        "Written later.\n"
    )
    early = (
        "<!-- mid: 20260101-bbbb | t: 2026-01-01 10:00:00 | p: r | src: user | tags: early -->\n"
        "Written earlier.\n"
    )
    write_tree(hermetic_home / CATEGORIES_USER, {"USER.md": late + "\n" + early})
    imp("categories", "files", work)
    shutil.rmtree(hermetic_home / CATEGORIES_USER)
    imp("files", "categories", work)
    assert (hermetic_home / CATEGORIES_USER / "USER.md").read_text("utf-8") == early + "\n" + late


def test_same_layout_is_a_usage_error(work: Path) -> None:
    run = run_cli("import", "--from", "files", "--to", "files", "user", cwd=work)
    assert run.code != 0
    assert "both files" in run.err


@pytest.mark.parametrize("make_empty_dir", [False, True])
def test_nothing_to_import(hermetic_home: Path, work: Path, make_empty_dir: bool) -> None:
    if make_empty_dir:
        (hermetic_home / CATEGORIES_USER).mkdir(parents=True)
    out = imp("categories", "files", work)
    assert (
        out
        == f"nothing to import: no user memories in categories {hermetic_home / CATEGORIES_USER}\n"
    )
    assert not (hermetic_home / FILES_USER).exists()
