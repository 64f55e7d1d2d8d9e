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
try:  # ru_maxrss keeps the peak of the forked copy of a large parent; VmHWM is this program's
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    pass
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


#: The row appended by :func:`with_a_huge_row`, before its 60 MB of lines.
HUGE_HEADER = (
    b"\n<!-- mid: 20260101-abcd | t: 2026-01-01 10:00:00 | p: | src: user | tags: log -->\n"
)


def with_a_huge_row(tmp_path: Path, home: Path, line: bytes) -> tuple[Path, Path, Path]:
    """A project, its user layer holding one memory written through the CLI, and that
    memory's category file, with a row of 60 MB of ``line`` appended by hand."""
    from pi_memory.cli import main

    project = tmp_path / "proj"
    project.mkdir()
    os.chdir(project)
    assert main(["write", "--layer", "user", "--keyword", "ssh", "SSH uses port 2222."]) == 0
    layer = home / ".pi/agent/memory-auto"
    [category] = [p for p in layer.glob("*.md") if p.name != "MEMORY.md"]
    with category.open("ab") as out:
        out.write(HUGE_HEADER)
        for _ in range(SIXTY_MB // len(line)):
            out.write(line)
    return project, layer, category


def test_show_leaves_a_60_mb_category_row_out_and_a_write_keeps_its_bytes(
    tmp_path: Path, hermetic_home: Path
) -> None:
    from pi_memory.cli import main

    line = b"y" * 1023 + b"\n"
    project, layer, category = with_a_huge_row(tmp_path, hermetic_home, line)
    header = HUGE_HEADER
    size = category.stat().st_size
    start = size - len(header) - SIXTY_MB // len(line) * len(line)
    digest = _digest(category, start, size - start)

    shown, peak_kib, seconds = measured(["show"], project)

    assert peak_kib < 60 * 1024, peak_kib
    assert seconds < 30, seconds
    user_block = shown.split("\n\n")[0].replace(str(layer), "<DIR>")
    text = user_block.replace(f"{size - start - 1:,}", "<SIZE>") + "\n"
    assert text == (DATA / "health" / "oversized_row.txt").read_text("utf-8")
    found, peak_kib, _ = measured(["search", "log"], project)
    assert "yyyyyyyy" not in found

    # Another write to the same file keeps the huge row's bytes as they were.
    assert main(["write", "--layer", "user", "--keyword", "ssh", "SSH keys live in ~/.ssh."]) == 0
    with category.open("rb") as handle:
        before_it = handle.read(start + 4096)
    moved = before_it.index(header)  # the rows before it may have changed, not it
    assert _digest(category, moved, size - start) == digest
    assert category.stat().st_size > size


def _digest(path: Path, offset: int, length: int) -> str:
    """The SHA-256 of ``length`` bytes of ``path`` from ``offset``, read in pieces (a
    test process that grew by the file's size would lend its peak to the next child's
    measured peak: ``ru_maxrss`` counts the forked copy before it runs Python)."""
    import hashlib

    digest = hashlib.sha256()
    with path.open("rb") as handle:
        handle.seek(offset)
        while length > 0:
            piece = handle.read(min(length, 1 << 20))
            if not piece:
                break
            digest.update(piece)
            length -= len(piece)
    return digest.hexdigest()


def test_a_write_beside_a_60_mb_category_row_stays_bounded_and_keeps_its_bytes(
    tmp_path: Path, hermetic_home: Path
) -> None:
    line = b"z" * 1023 + b"\n"
    project, _, category = with_a_huge_row(tmp_path, hermetic_home, line)
    header = HUGE_HEADER
    huge_size = len(header) - 1 + SIXTY_MB // len(line) * len(line)
    digest = _digest(category, category.stat().st_size - huge_size, huge_size)

    # A new memory appended after it, then a repeat of the one before it rewritten.
    new = ["write", "--layer", "user", "--keyword", "ssh", "SSH keys live in ~/.ssh."]
    again = ["write", "--layer", "user", "--keyword", "ssh", "SSH uses port 2222."]
    for args in (new, again):
        _, peak_kib, _ = measured(args, project)
        # The file read whole costs at least its size, more once decoded and changed.
        assert peak_kib < 60 * 1024, (args, peak_kib)

    text = _without(category, b"z" * 1023 + b"\n")
    assert text.count("SSH keys live in ~/.ssh.") == 1
    assert text.count("SSH uses port 2222.") == 1 and "| seen: 2" in text, text
    with category.open("rb") as handle:
        at = handle.read(8192).index(header[1:])
    assert _digest(category, at, huge_size) == digest


def _without(path: Path, line: bytes) -> str:
    """The text of ``path`` without the lines that are ``line`` (read in pieces)."""
    kept = bytearray()
    with path.open("rb") as handle:
        for piece in iter(lambda: handle.readline(1 << 16), b""):
            if piece != line:
                kept += piece
    return kept.decode("utf-8")


def test_a_change_around_rows_left_out_is_the_change_of_the_whole_text() -> None:
    """The stretches between rows too large to read, changed one by one and written
    with those rows copied around them, make the bytes the whole text changed makes."""
    import io

    from pi_memory.entry import USER, Entry
    from pi_memory.layouts.categories.bounded import (
        appended_after,
        read_parts,
        rewrite_parts,
        write_parts,
    )
    from pi_memory.layouts.categories.format import (
        append_row,
        format_entry,
        parse_entries,
        rewrite_rows,
    )

    def row(n: int, body: str) -> Entry:
        return Entry(
            id=f"20260101-{n:04x}",
            time="2026-01-01 10:00:00",
            project="",
            src="user",
            keyword="k",
            body=body,
            layer=USER,
            file="USER.md",
        )

    big = "\n".join("w" * 60 for _ in range(8))  # over the 300 bytes read below
    for nl in ("\n", "\r\n"):
        for order in ([0, 1, 2, 3], [1, 0, 3, 2], [1, 3, 0, 2]):
            rows = [row(0, "first"), row(1, big), row(2, "third"), row(3, big + "!")]
            text = "".join(format_entry(rows[n], nl) + nl for n in order)
            data = text.encode("utf-8")
            for target in (0, 2):
                [old] = [e for e in parse_entries(text, USER, "USER.md") if e.id == rows[target].id]
                updates = {old.id: old._replace(body="changed", seen=3)}
                added = row(9, "appended")
                parts = read_parts(io.BytesIO(data), 300)
                assert [p.line for p in parts if not isinstance(p, bytes)]
                changed, done = rewrite_parts(parts, updates, USER, "USER.md")
                changed.append(appended_after(io.BytesIO(data), added))
                out = io.BytesIO()
                write_parts(out, changed, io.BytesIO(data))
                whole, rewritten = rewrite_rows(text, updates, USER, "USER.md")
                assert out.getvalue().decode("utf-8") == append_row(whole, added)
                assert done == rewritten
