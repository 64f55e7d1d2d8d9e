"""A write either completes or stores nothing, and says which (no full disk needed)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.inproc import call


def categories_repo(tmp_path: Path) -> Path:
    root = tmp_path / "cats"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_a_supersede_that_cannot_be_done_takes_the_write_back(tmp_path: Path) -> None:
    root = categories_repo(tmp_path)
    old = call(
        "write", "--json", "--file", "DECISIONS", "--keyword", "port", "Port 3000.", cwd=root
    )
    assert old.code == 0, old.err
    old_id = json.loads(old.out)["id"]
    layer = root / ".pi/agent/memory-auto"
    conventions = layer / "CONVENTIONS.md"
    conventions.write_text("", "utf-8")
    os.chmod(layer / "DECISIONS.md", 0o444)  # the retire cannot be written
    run = call("write", "--keyword", "port", "--supersedes", old_id, "Port 8080.", cwd=root)
    assert run.code == 1 and "read-only" in run.err
    assert conventions.read_text("utf-8") == ""  # the new row was taken back


def test_an_index_that_cannot_be_rewritten_does_not_fail_a_stored_write(tmp_path: Path) -> None:
    root = categories_repo(tmp_path)
    assert call("write", "--keyword", "a", "First.", cwd=root).code == 0
    index = root / ".pi/agent/memory-auto/MEMORY.md"
    os.chmod(index, 0o444)
    run = call("write", "--keyword", "b", "Second.", cwd=root)
    assert run.code == 0, run.err
    assert "MEMORY.md was not rewritten" in run.out
    assert "Second." in (root / ".pi/agent/memory-auto/CONVENTIONS.md").read_text("utf-8")
