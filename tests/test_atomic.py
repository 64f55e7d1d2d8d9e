from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_memory.fs.atomic import atomic_write_bytes, atomic_write_text
from tests.conftest import REPO


@pytest.fixture
def store(tmp_path: Path) -> Path:
    directory = tmp_path / "store"
    directory.mkdir()
    return directory


def test_writes_new_file(store: Path) -> None:
    target = store / "MEMORY.md"
    atomic_write_bytes(target, b"hello\n")
    assert target.read_bytes() == b"hello\n"
    assert os.listdir(store) == ["MEMORY.md"]


def test_replaces_existing_file(store: Path) -> None:
    target = store / "MEMORY.md"
    target.write_bytes(b"old content that is longer")
    atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert os.listdir(store) == ["MEMORY.md"]


def test_text_is_utf8_without_newline_translation(store: Path) -> None:
    target = store / "entry.md"
    atomic_write_text(target, "a\nb\r\nc\r— é ✓")
    assert target.read_bytes() == "a\nb\r\nc\r— é ✓".encode()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_keeps_permission_bits_of_the_target(store: Path) -> None:
    target = store / "USER.md"
    target.write_text("x")
    target.chmod(0o640)
    atomic_write_text(target, "y")
    assert target.stat().st_mode & 0o777 == 0o640


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_new_file_gets_the_umask_mode_not_mkstemps_0600(store: Path) -> None:
    current = os.umask(0o022)
    os.umask(current)
    target = store / "new.md"
    atomic_write_text(target, "x")
    assert target.stat().st_mode & 0o777 == 0o666 & ~current


def test_failure_removes_the_temp_file_and_keeps_the_target(store: Path) -> None:
    # A directory cannot be replaced by a file: the rename fails after the temp file is written.
    target = store / "taken"
    target.mkdir()
    (target / "inside").write_text("keep")
    with pytest.raises(OSError):  # noqa: PT011 -- IsADirectoryError on POSIX, PermissionError on Windows
        atomic_write_bytes(target, b"data")
    assert os.listdir(store) == ["taken"]
    assert (target / "inside").read_text() == "keep"


def test_missing_directory_fails_without_creating_anything(store: Path) -> None:
    with pytest.raises(FileNotFoundError):
        atomic_write_bytes(store / "nope" / "x.md", b"data")
    assert os.listdir(store) == []


# The writer alternates two large, distinct contents as fast as it can until it is killed.
WRITER = """
import sys
from pathlib import Path
from pi_memory.fs.atomic import atomic_write_bytes
target = Path(sys.argv[1])
size = int(sys.argv[2])
contents = [b"A" * size, b"B" * (size + 4096)]
print("ready", flush=True)
i = 0
while True:
    atomic_write_bytes(target, contents[i % 2])
    i += 1
"""


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_writer_killed_mid_write_leaves_old_or_new_never_torn(store: Path) -> None:
    size = 4 * 1024 * 1024
    target = store / "big.md"
    target.write_bytes(b"A" * size)
    for round_no in range(6):
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target), str(size)],
            cwd=REPO,
            stdout=subprocess.PIPE,
        )
        assert child.stdout is not None
        assert child.stdout.readline() == b"ready\n"
        time.sleep(0.02 + 0.023 * round_no)
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        data = target.read_bytes()
        assert data in (b"A" * size, b"B" * (size + 4096)), f"torn file in round {round_no}"
    # A killed writer may leave its temp file behind, never a stray file under another name.
    leftovers = [n for n in os.listdir(store) if n != "big.md"]
    assert all(n.startswith(".big.md") and n.endswith(".tmp") for n in leftovers)
