"""``show`` says how many lines of a layer it could not read as memories, and where."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pi_memory.layouts.categories.unread import unread_lines
from tests.inproc import call

LAYER = Path(".pi/agent/memory-auto")
ROW = "<!-- mid: 20261001-0001 | t: 2026-10-01 10:00:00 | p: repo | src: user | tags: a -->\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / LAYER).mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def health_line(repo: Path) -> str:
    shown = call("show", cwd=repo)
    assert shown.code == 0, shown.err
    return next(line for line in shown.out.splitlines() if line.startswith("  health:"))


def test_a_garbage_category_file_is_not_healthy(repo: Path) -> None:
    (repo / LAYER / "CONVENTIONS.md").write_bytes(b"\x00\x01garbage\n\nmore \xff junk\n")
    line = health_line(repo)
    assert line != "  health: ok"
    assert "2 lines not read as memories (CONVENTIONS.md:1, CONVENTIONS.md:3)" in line
    data = json.loads(call("show", "--json", cwd=repo).out)
    assert data["layers"]["project"]["health"]["unreadable"] == [
        "CONVENTIONS.md:1",
        "CONVENTIONS.md:3",
    ]


def test_a_header_that_lost_its_end_is_reported_where_it_is(repo: Path) -> None:
    broken = "<!-- mid: 20261002-0002 | t: 2026-10-02 10:00:00 | p: repo | src: user | tags: b\n"
    text = ROW + "First body.\n\n" + broken + "Second body.\n"
    (repo / LAYER / "DECISIONS.md").write_text(text, "utf-8")
    line = health_line(repo)
    assert "2 lines not read as memories (DECISIONS.md:4, DECISIONS.md:5)" in line


def test_a_truncated_header_is_reported(repo: Path) -> None:
    text = ROW + "First body.\n" + "<!-- mid: 20261002-00"
    (repo / LAYER / "FAILURES.md").write_text(text, "utf-8")
    assert "1 line not read as memories (FAILURES.md:3)" in health_line(repo)


def test_well_formed_files_have_nothing_unread() -> None:
    text = "\ufeff" + ROW + "Body one.\n\n" + ROW.replace("0001", "0002") + "Body two.\n"
    assert unread_lines(text) == []
    assert unread_lines("") == []
    assert unread_lines("\n\n") == []


def test_stray_text_and_bad_rows_are_unread() -> None:
    text = (
        "Notes typed by hand.\n"
        "<!-- mid: not-an-id | t: x | p: x | src: user | tags: t -->\n"
        "Body of a row that is no entry.\n" + ROW + "Real body.\n"
        "<<<<<<< HEAD\n"
    )
    assert unread_lines(text) == [1, 2, 3, 6]


def test_an_unchanged_file_answers_from_the_cache_and_a_changed_one_is_read_again(
    repo: Path, hermetic_home: Path
) -> None:
    import os
    import time

    path = repo / LAYER / "CONVENTIONS.md"
    path.write_bytes(b"stray line\n" + ROW.encode() + b"Body.\n")
    an_hour_ago = time.time() - 3600  # written earlier: the answer may be cached
    os.utime(path, (an_hour_ago, an_hour_ago))
    assert "(CONVENTIONS.md:1)" in health_line(repo)
    assert list((hermetic_home / ".cache/pi_memory").glob("*.unread"))
    assert "(CONVENTIONS.md:1)" in health_line(repo)  # from the cache, the same answer
    path.write_bytes(b"another stray\nand more\n" + ROW.encode() + b"Body.\n")
    assert "(CONVENTIONS.md:1, CONVENTIONS.md:2)" in health_line(repo)
