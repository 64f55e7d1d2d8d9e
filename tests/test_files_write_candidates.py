"""A write in the files layout decides on the memories its catalog finds, exactly as on the layer.

``FilesLayer.candidates`` hands a write only the memory files whose body may
normalise as the new body does and those it supersedes, found in the layer's
catalog (kept in the cache directory) after a ``stat`` of every file, so a file
changed, added or deleted since the catalog was kept (by hand, by a pull) is
seen. Here, on stores of real memory files that were then edited by hand,
deleted, added to and damaged, every write is planned both ways, and the plans
and the memories they would store must be the same.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pi_memory.entry import Entry, normalize_memory_text
from pi_memory.layouts.carry import derive_description, derived_name
from pi_memory.layouts.files.format import entry_to_text
from pi_memory.layouts.files.index import IndexLine, rebuild_index
from pi_memory.layouts.files.layer import FilesLayer
from pi_memory.plan import WriteRequest, plan_write
from tests.conftest import files_store
from tests.opened_files import opened_during
from tools.bench_detect import make_store

NOW = datetime(2026, 12, 1, 10, 0, 0, tzinfo=timezone.utc)
FRESH = "20261201-0000"
#: A new memory whose name is taken by a file added by hand.
UNSEEN = "Nothing like this was ever written down before: zyxwvut."


def _layer(directory: Path) -> FilesLayer:
    return FilesLayer("project", directory, clock=lambda: NOW)


def _store(directory: Path, n: int, rng: random.Random) -> None:
    """``n`` memory files and their index, as a store written over the months holds them."""
    made = make_store(n, seed=n)
    directory.mkdir()
    lines = []
    for i, entry in enumerate(made):
        name = f"memory {i}"
        stored = entry._replace(
            layer="project",
            name=name,
            file=f"memory-{i}.md",
            description=derive_description(entry.body) or name,
            type="project",
            created=entry.time[:10],
            modified=f"{entry.time[:10]}T{entry.time[11:]}.000Z",
            superseded_by=rng.choice(made).id if entry.superseded_by else "",
        )
        (directory / stored.file).write_text(entry_to_text(stored), "utf-8")
        lines.append(IndexLine(stored.name, stored.file, stored.description))
    (directory / "MEMORY.md").write_text(rebuild_index("", lines).text, "utf-8")


def _backdate(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def _hand_edits(directory: Path, rng: random.Random, entries: list[Entry]) -> list[str]:
    """What a person and a pull do to the files after the catalog was kept: bodies
    rewritten in place (one to repeat another memory), files deleted, files added
    (one a repeat, one with a stored id, one no memory at all), a file damaged."""
    files = sorted(e.file for e in entries)
    edited = rng.sample(files, 12)
    bodies = []
    for k, file in enumerate(edited):
        path = directory / file
        text = path.read_text("utf-8")
        head, _, body = text.partition("\n---\n")
        other = rng.choice(entries).body
        new_body = other.upper() if k % 2 else f"{body.strip()} Edited by hand {k}."
        bodies.append(new_body)
        with path.open("r+", encoding="utf-8") as handle:  # in place: the inode stays
            handle.write(f"{head}\n---\n\n{new_body}\n")
            handle.truncate()
        _backdate(path, 1800)
    for file in rng.sample([f for f in files if f not in edited], 8):
        (directory / file).unlink()
    donor = entries[3]
    taken = derived_name(donor._replace(body=UNSEEN))
    added = {
        "taken-name.md": f"---\nname: {taken}\ndescription: d\ntype: user\n"
        "created: 2026-11-01\nmodified: 2026-11-01T10:00:00.000Z\n---\n\nAnother memory.\n",
        "by-hand.md": f"---\nname: by hand\ndescription: d\ntype: user\ncreated: 2026-11-02\n"
        f"modified: 2026-11-02T10:00:00.000Z\n---\n\n{donor.body}  \n",
        "with-id.md": "---\nname: with id\ndescription: d\ntype: user\ncreated: 2026-11-03\n"
        "modified: 2026-11-03T10:00:00.000Z\nid: 20261103-abcd\n---\n\nA pulled memory stays.\n",
        "not-a-memory.md": "Notes without frontmatter.\n",
    }
    for file, text in added.items():
        (directory / file).write_text(text, "utf-8")
        _backdate(directory / file, 1200)
    damaged = directory / rng.choice([f for f in files if f not in edited])
    if damaged.exists():
        damaged.write_text("---\nname: broken\n", "utf-8")
    return [*bodies, donor.body.lower(), "A pulled memory stays!"]


def _requests(rng: random.Random, entries: list[Entry], extra: list[str]) -> list[WriteRequest]:
    live = [e for e in entries if not e.superseded_by]
    dead = [e for e in entries if e.superseded_by]
    bodies = [f"  {e.body.upper()} " for e in rng.sample(live, 25)]
    bodies += [e.body for e in rng.sample(dead, min(8, len(dead)))]  # revived: a new memory
    bodies += extra
    bodies += [UNSEEN]
    ids = [e.id for e in entries] + ["20261103-abcd"]
    requests = []
    for body in bodies:
        if not normalize_memory_text(body):
            continue
        links = tuple(rng.sample(ids, rng.randint(0, 3))) + (("20990101-beef",) * rng.randint(0, 1))
        requests.append(
            WriteRequest("project", body, "k", "", links, "user", "", "2026-12-01 10:00:00")
        )
    return requests


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_catalog_plans_every_write_as_the_whole_layer_does(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    directory = tmp_path / "layer"
    _store(directory, 400, rng)
    for path in directory.iterdir():
        _backdate(path, 3600)
    before = _layer(directory).read()
    assert _layer(directory).candidates("warm the catalog", ()) is not None
    extra = _hand_edits(directory, rng, before)
    layer = _layer(directory)
    entries = layer.read()
    deduped = retired = renamed = 0
    for request in _requests(rng, entries, extra):
        found = layer.candidates(request.body, request.supersedes)
        assert found is not None, request.body
        candidates, taken = found
        assert set(taken) == {e.id for e in entries}
        plan = plan_write(entries, request, FRESH)
        assert plan_write(candidates, request, FRESH) == plan, request.body
        from_catalog = layer.prepare_write(candidates, plan.entry, plan.deduped, plan.retire)
        from_layer = layer.prepare_write(entries, plan.entry, plan.deduped, plan.retire)
        assert from_catalog is not None and from_layer is not None
        from_catalog[1].discard()
        from_layer[1].discard()
        assert from_catalog[0] == from_layer[0], request.body
        deduped += plan.deduped
        retired += bool(plan.retire)
        renamed += from_layer[0].name.endswith(f"({FRESH})")
    assert deduped >= 25 and retired >= 10 and renamed >= 1, (
        "the writes must repeat, retire and meet a taken name, or this shows nothing"
    )
    assert not list(directory.glob(".*.tmp")), "every staged file was discarded"
    refs = [e.name for e in rng.sample(entries, 20)] + [e.file for e in rng.sample(entries, 20)]
    refs += ["by hand", "with-id.md", "not-a-memory.md", "memory 0", "no such memory"]
    for ref in refs:
        by_file = next((e for e in entries if e.file == ref), None)
        assert layer.find(ref) == (by_file or next((e for e in entries if e.name == ref), None))


def test_a_repeat_of_a_memory_edited_by_hand_is_found(tmp_path: Path) -> None:
    directory = tmp_path / "layer"
    store = files_store(directory)
    store.write("project", "The deploy key lives in the vault.", ["deploy"], now=NOW)
    store.write("project", "Builds run on the old runner.", ["builds"], now=NOW)
    for path in directory.iterdir():
        _backdate(path, 3600)
    store.write("project", "A third memory keeps the catalog.", ["third"], now=NOW)
    edited = next(e for e in store.layer("project").read() if e.body.startswith("Builds"))
    path = directory / edited.file
    path.write_text(path.read_text("utf-8").replace("old runner", "new runner"), "utf-8")
    _backdate(path, 1800)
    outcome = files_store(directory).write(
        "project", "builds run on the NEW runner", ["builds"], now=NOW
    )
    assert outcome.deduped and outcome.entry.id == edited.id


def test_every_change_to_a_memory_replaces_memory_md(tmp_path: Path) -> None:
    """``MEMORY.md``'s identity is the layer's change token: a repeat, which changes no
    line of it, still puts a new one in place, byte for byte the same."""
    directory = tmp_path / "layer"
    store = files_store(directory)
    store.write("project", "The deploy key lives in the vault.", ["deploy"], now=NOW)
    layer = store.layer("project")
    token = layer.change_token()
    text = (directory / "MEMORY.md").read_bytes()
    outcome = store.write("project", "the deploy key lives in the vault", ["deploy"], now=NOW)
    assert outcome.deduped
    assert layer.change_token() != token
    assert (directory / "MEMORY.md").read_bytes() == text
    tool = FilesLayer("project", directory)
    token = tool.change_token()
    tool.replace(outcome.entry.name, None, type="project")
    assert tool.change_token() != token


def _memories_opened(directory: Path, call: Callable[[], object]) -> set[str]:
    return {
        Path(p).name
        for p in opened_during(call)
        if Path(p).parent == directory and p.endswith(".md") and Path(p).name != "MEMORY.md"
    }


def test_the_memory_tool_reads_only_the_memories_it_names(tmp_path: Path) -> None:
    """The agent's add, replace, rename and remove look the memory up in the catalog:
    with the lock held, they read the one memory file they change, not the layer."""
    directory = tmp_path / "layer"
    _store(directory, 200, random.Random(5))
    layer = _layer(directory)

    def settled() -> None:
        """Every file written long ago, and the catalog kept of them."""
        for path in directory.iterdir():
            _backdate(path, 3600)
        layer.find("no such memory")

    calls: list[tuple[Callable[[], object], set[str]]] = [
        (lambda: layer.add("fresh", "A new one."), set()),
        (lambda: layer.replace("memory 7", "New text."), {"memory-7.md"}),
        (lambda: layer.rename("memory 8", "memory eight"), {"memory-8.md"}),
        (lambda: layer.remove_by_name("memory 9"), {"memory-9.md"}),
    ]
    for call, read in calls:
        settled()
        assert _memories_opened(directory, call) == read
    names = {e.name for e in layer.read()}
    assert {"fresh", "memory eight"} <= names and not {"memory 8", "memory 9"} & names
