"""A store that already holds a huge memory (a hand edit, a pull) is read in bounded
time and memory: the file is left out and reported, never read whole, and its bytes
stay as they are. Real files, real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import DATA, REPO

SIXTY_MB = 60 * 1024 * 1024

#: Runs the command line in this process, then prints its peak RSS (KiB) and wall time.
MEASURED = """
import resource, sys, time
from pi_memory.cli import main
started = time.monotonic()
code = main(sys.argv[1:])
seconds = time.monotonic() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"@@ {code} {peak} {seconds:.2f}", file=sys.stderr)
"""


def measured(args: list[str], cwd: Path) -> tuple[str, int, float]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *args],
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    marker = [line for line in done.stderr.splitlines() if line.startswith("@@ ")]
    assert marker, done.stderr
    code, peak, seconds = marker[-1].split()[1:]
    assert code == "0", done.stderr
    return done.stdout, int(peak), float(seconds)


def test_show_leaves_a_60_mb_memory_file_out_and_says_so(
    tmp_path: Path, hermetic_home: Path
) -> None:
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"layout": "files"}), "utf-8")
    project = tmp_path / "proj"
    project.mkdir()
    from pi_memory.cli import main

    os.chdir(project)
    assert main(["write", "--layer", "user", "--keyword", "ssh", "SSH uses port 2222."]) == 0
    from pi_memory.open_store import open_store

    layer = open_store(project).store.directory("user")
    huge = layer / "huge.md"
    head = "---\nname: huge\ndescription: pasted log\ntype: reference\n"
    head += "created: 2026-01-01\nmodified: 2026-01-01T00:00:00.000Z\n---\n\n"
    with huge.open("wb") as out:
        out.write(head.encode())
        line = b"x" * 1023 + b"\n"
        for _ in range(SIXTY_MB // len(line)):
            out.write(line)
    size = huge.stat().st_size
    before = huge.stat().st_mtime_ns

    shown, peak_kib, seconds = measured(["show"], project)

    # A 60 MB file read whole costs at least its size, twice once decoded.
    assert peak_kib < 60 * 1024, peak_kib
    assert seconds < 30, seconds
    user_block = shown.split("\n\n")[0].replace(str(layer), "<DIR>")
    text = user_block.replace(f"{size:,}", "<SIZE>") + "\n"
    assert text == (DATA / "health" / "oversized_file.txt").read_text("utf-8")
    assert huge.stat().st_size == size and huge.stat().st_mtime_ns == before

    # A write beside it leaves it as it is, and the search does not hand it out.
    assert main(["write", "--layer", "user", "--keyword", "log", "Logs rotate daily."]) == 0
    assert huge.stat().st_size == size and huge.stat().st_mtime_ns == before
    found, peak_kib, _ = measured(["search", "pasted", "log"], project)
    assert "xxxxxxxx" not in found
    assert peak_kib < 60 * 1024, peak_kib
