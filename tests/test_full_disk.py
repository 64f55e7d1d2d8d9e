"""A command on a full disk either completes or leaves the store as it was, and says which.

A real full filesystem: a tiny tmpfs mounted for the test (Linux, as root);
nothing is patched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.inproc import call, user_config

PAGE = 4096

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("mount") is None,
    reason="mounting a tmpfs needs Linux and root",
)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def leave_free(disk: Path, pages: int) -> None:
    """Fill ``disk`` until exactly ``pages`` pages are free."""
    filler = disk / "filler"
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    with filler.open("ab") as handle:
        handle.write(b"\0" * (free - pages * PAGE))
    stat = os.statvfs(disk)
    assert stat.f_bavail * stat.f_frsize == pages * PAGE


def files_store(repo: Path, home: Path, disk: Path) -> Path:
    user_config(home, {"layout": "files", "memoryDir": str(disk / "mem")})
    first = call("tool", "memory", stdin=json.dumps({"action": "list"}), cwd=repo)
    assert first.code == 0
    layer = next((disk / "mem" / "local").iterdir()) if (disk / "mem" / "local").exists() else None
    assert layer is None  # nothing written by a list
    return disk / "mem"


def entries_and_index(layer: Path) -> tuple[list[str], str]:
    names = sorted(p.name for p in layer.iterdir() if p.suffix == ".md" and p.name != "MEMORY.md")
    index = (layer / "MEMORY.md").read_text("utf-8") if (layer / "MEMORY.md").exists() else ""
    return names, index


def add(repo: Path, name: str, content: str) -> dict[str, object]:
    args = {"action": "add", "name": name, "content": content, "description": f"about {name}"}
    run = call("tool", "memory", stdin=json.dumps(args), cwd=repo)
    assert run.code == 0, run.err
    answer: dict[str, object] = json.loads(run.out)
    return answer


@pytest.mark.parametrize("free_pages", range(0, 6))
def test_an_add_on_a_full_disk_leaves_no_unindexed_entry(
    repo: Path, hermetic_home: Path, small_disk: Path, free_pages: int
) -> None:
    files_store(repo, hermetic_home, small_disk)
    assert add(repo, "first", "The first memory.")["ok"] is True
    layer = next((small_disk / "mem" / "local").iterdir())
    before = entries_and_index(layer)
    leave_free(small_disk, free_pages)
    answer = add(repo, "second", "The second memory, " + "long " * 200)
    after = entries_and_index(layer)
    if answer["ok"]:
        assert after[0] == ["first.md", "second.md"] and "second.md" in after[1]
    else:
        assert "No space left on device" in str(answer["text"])
        assert after == before  # the store is as it was
    # Every entry file is indexed, whatever happened.
    assert all(name in after[1] for name in after[0])
    leftovers = [p.name for p in layer.rglob("*") if p.is_file() and p.stat().st_size == 0]
    assert leftovers == []  # no half-made snapshot copies either


@pytest.mark.parametrize("free_pages", range(0, 5))
def test_a_write_on_a_full_disk_completes_or_stores_nothing(
    tmp_path: Path, small_disk: Path, monkeypatch: pytest.MonkeyPatch, free_pages: int
) -> None:
    layer = small_disk / "auto"
    monkeypatch.setenv("PI_MEMORY_AUTO_DIR", str(layer))
    first = call("write", "--layer", "user", "--keyword", "a", "The first memory.", cwd=tmp_path)
    assert first.code == 0, first.err
    before = (layer / "USER.md").read_bytes()
    leave_free(small_disk, free_pages)
    body = "The second memory, " + "long " * 300
    run = call("write", "--layer", "user", "--keyword", "b", body, cwd=tmp_path)
    after = (layer / "USER.md").read_bytes()
    if run.code == 0:
        assert body.strip().encode() in after
        index = (layer / "MEMORY.md").read_text("utf-8")
        assert "#b" in index or "MEMORY.md was not rewritten" in run.out + run.err
    else:
        assert "No space left on device" in run.err
        assert after == before  # nothing stored
