"""A files layer's first write starts ``MEMORY.md`` as the design shows it, and a session
start leaves an existing index alone without reading a memory."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from pi_memory.layouts.files.layer import FilesLayer
from tests.conftest import DATA, files_store
from tests.opened_files import opened_during

GOLDEN = DATA / "files_layout" / "new_index"
NOW = datetime(2026, 10, 1, 9, 12, 33, tzinfo=timezone.utc)


def test_the_first_write_starts_the_index_with_its_header(tmp_path: Path) -> None:
    store = files_store(tmp_path / "memory" / "project")
    store.write("project", "deploy goes through rsync", ["deploy"], now=NOW)
    written = (tmp_path / "memory" / "project" / "MEMORY.md").read_bytes()
    assert written == (GOLDEN / "after-first-write.md").read_bytes()


def test_the_tools_first_add_writes_its_line_alone(tmp_path: Path) -> None:
    # As pi-memory's add does: its capacity vector has a first add under
    # ``indexMaxLines: 1`` warn nothing, which a header line would break.
    layer = files_store(tmp_path / "p").layer("project")
    assert isinstance(layer, FilesLayer)
    layer.add("deploy goes through rsync", "deploy goes through rsync", now=NOW)
    golden = (GOLDEN / "after-first-write.md").read_bytes().decode()
    assert layer.read_index() == golden.replace("# Memory Index\n\n", "")


def test_a_session_start_with_an_index_reads_no_memory(tmp_path: Path) -> None:
    directory = tmp_path / "p"
    store = files_store(directory)
    for n in range(3):
        store.write("project", f"memory number {n} is here", [f"k{n}"], now=NOW)
    index = (directory / "MEMORY.md").read_bytes()
    every = opened_during(lambda: files_store(directory).refresh_indexes(wait=False))
    opened = [p for p in every if Path(p).parent == directory and p.endswith(".md")]
    assert opened == []
    assert (directory / "MEMORY.md").read_bytes() == index


def test_a_missing_index_is_made_from_every_memory(tmp_path: Path) -> None:
    directory = tmp_path / "p"
    store = files_store(directory)
    store.write("project", "deploy goes through rsync", ["deploy"], now=NOW)
    (directory / "MEMORY.md").unlink()
    files_store(directory).refresh_indexes(wait=False)
    assert (directory / "MEMORY.md").read_bytes() == (GOLDEN / "after-first-write.md").read_bytes()
