"""``rebuild LAYER`` does one job in both layouts: repair, regenerate MEMORY.md, report it."""

from __future__ import annotations

from pathlib import Path

from tests.inproc import call, tool, user_config


def _files_project_dir(home: Path) -> Path:
    [directory] = (home / ".pi" / "memory" / "local").iterdir()
    return directory


def test_files_layout_rebuild_restores_missing_lines_under_the_handwritten_header(
    hermetic_home: Path, tmp_path: Path
) -> None:
    user_config(hermetic_home, {"layout": "files"})
    work = tmp_path / "work"
    work.mkdir()
    for name, content in (("Deploy", "Ship on Tuesdays."), ("Tests", "Use a real database.")):
        assert tool("memory", work, action="add", name=name, content=content)["ok"]
    directory = _files_project_dir(hermetic_home)
    # A person tidied the index: a heading of their own, one memory's line lost,
    # and a line for a memory that no longer exists.
    (directory / "MEMORY.md").write_text(
        "# My notes\nkept by hand\n\n- [Deploy](Deploy.md) — Ship on Tuesdays.\n"
        "- [Gone](Gone.md) — an old one\n",
        "utf-8",
    )
    run = call("rebuild", "project", cwd=work)
    assert run.code == 0, run.err
    assert run.out == (
        "rebuilt project layer: 2 memories · collapsed 0 · repaired 0 · "
        "MEMORY.md regenerated (+1/-2 lines)\n"
    )
    assert (directory / "MEMORY.md").read_text("utf-8") == (
        "# My notes\nkept by hand\n"
        "- [Deploy](Deploy.md) — Ship on Tuesdays.\n"
        "- [Tests](Tests.md) — Use a real database.\n"
    )
    [point] = [p for p in (directory / ".backups").iterdir() if p.name.endswith("-index")]
    assert "- [Gone](Gone.md)" in (point / "MEMORY.md").read_text("utf-8")
    again = call("rebuild", "project", cwd=work)
    assert again.out.endswith("· MEMORY.md unchanged\n")


def test_categories_layout_rebuild_restores_a_hand_edited_index(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for keyword, body in (("deploy", "Deploy with rsync."), ("tests", "Run pytest -q.")):
        written = call("write", "--json", "--keyword", keyword, body, cwd=work)
        assert written.code == 0, written.err
    index = work / ".pi" / "agent" / "memory-auto" / "MEMORY.md"
    generated = index.read_text("utf-8")
    assert "#deploy" in generated and "#tests" in generated
    index.write_text(generated.replace("#tests\n", "").replace("#deploy\n", "#deploy\n#stale\n"))
    run = call("rebuild", "project", cwd=work)
    assert run.code == 0, run.err
    assert run.out == (
        "rebuilt project layer: 2 memories · collapsed 0 · repaired 0 · "
        "MEMORY.md regenerated (+1/-1 lines)\n"
    )
    assert index.read_text("utf-8") == generated
    assert call("rebuild", "project", cwd=work).out.endswith("· MEMORY.md unchanged\n")


def _tree(directory: Path) -> dict[str, bytes]:
    """Every file of a layer but its rollback points, as bytes."""
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file() and ".backups" not in path.relative_to(directory).parts
    }


def test_one_rebuild_of_the_files_layout_settles(hermetic_home: Path, tmp_path: Path) -> None:
    """A second run changed the index again: the default header's blank line, written by
    the first, was dropped as a handwritten header's trailing blank by the second."""
    user_config(hermetic_home, {"layout": "files"})
    work = tmp_path / "work"
    work.mkdir()
    for name, content in (("Deploy", "Ship on Tuesdays."), ("Tests", "Use a real database.")):
        assert tool("memory", work, action="add", name=name, content=content)["ok"]
    directory = _files_project_dir(hermetic_home)
    (directory / "MEMORY.md").unlink()  # lost: the rebuild writes it from the memories
    first = call("rebuild", "project", cwd=work)
    assert first.code == 0, first.err
    settled = _tree(directory)
    again = call("rebuild", "project", cwd=work)
    assert again.out.endswith("· MEMORY.md unchanged\n")
    assert _tree(directory) == settled


def test_rebuild_counts_one_memory_as_one(hermetic_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=work).code == 0
    run = call("rebuild", "project", cwd=work)
    assert run.out.startswith("rebuilt project layer: 1 memory · "), run.out
