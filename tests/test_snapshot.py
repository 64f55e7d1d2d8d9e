from __future__ import annotations

import errno
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from pi_memory.fs import snapshot
from pi_memory.fs.snapshot import snapshot_dir_name, take_snapshot, whole_dir_snapshot

T0 = datetime(2026, 10, 1, 0, 0, 1, tzinfo=timezone.utc)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    directory = tmp_path / "store"
    directory.mkdir()
    (directory / "MEMORY.md").write_text("# Memory Index\n\n- [A](A.md) — a\n")
    (directory / "A.md").write_text("---\nname: A\n---\n\nbody\n")
    return directory


def parse_now(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def backups(store: Path) -> list[str]:
    return sorted(os.listdir(store / ".backups"))


# -- the vectors -----------------------------------------------------------------


def snapshot_vector(given: dict[str, Any], expected: Any, store: Path) -> None:
    """The snapshot vectors, by what they call: a name, two snapshots at one stamp,
    N snapshots beside a migration's, or a backup root that cannot be made."""
    fn = given["fn"]
    if fn == "snapshot dir name":
        assert snapshot_dir_name(parse_now(given["now"]), given["label"]) == expected
    elif fn.startswith("createSnapshot x"):
        count = int(fn.split()[1][1:])
        migrate = store / ".backups" / expected["contains"] / "originals"
        migrate.mkdir(parents=True)
        (migrate / "topic.md").write_text("pre-2.0 original")
        for i in range(count):
            take_snapshot(
                store, "write", [store / "A.md"], keep=given["keep"], now=T0 + timedelta(seconds=i)
            )
        names = backups(store)
        assert expected["contains"] in names
        assert (migrate / "topic.md").read_text() == "pre-2.0 original"
        writes = [n for n in names if n.endswith("-write")]
        assert len(writes) == expected["write_dirs"]
        # The newest survive.
        newest = [snapshot_dir_name(T0 + timedelta(seconds=i), "write") for i in range(count)]
        assert writes == newest[-len(writes) :]
    elif "backupRoot" in given:
        (store / ".backups").write_text("a regular file where the backup root belongs")
        with pytest.raises(OSError):  # noqa: PT011 -- FileExistsError or NotADirectoryError
            take_snapshot(store, "write", [store / "A.md"], now=T0)
        assert expected["throws"] is True
        assert (store / ".backups").read_text() == "a regular file where the backup root belongs"
        assert sorted(os.listdir(store)) == [".backups", "A.md", "MEMORY.md"]
    else:  # createSnapshot twice (or more) at one stamp
        now = parse_now(given["now"])
        made = [take_snapshot(store, "write", [store / "A.md"], now=now) for _ in expected]
        assert [p.name for p in made] == expected
        assert all((p / "A.md").read_text() == (store / "A.md").read_text() for p in made)


# -- behaviour -------------------------------------------------------------------


def test_copies_only_the_files_that_exist_byte_for_byte(store: Path) -> None:
    (store / "A.md").write_bytes(b"crlf\r\nbody\r\n\xff")
    os.utime(store / "A.md", (1_000_000_000, 1_000_000_000))
    point = take_snapshot(
        store, "write", [store / "A.md", store / "New.md", Path("MEMORY.md")], now=T0
    )
    assert point == store / ".backups" / "2026-10-01T00-00-01-000Z-write"
    assert sorted(os.listdir(point)) == ["A.md", "MEMORY.md"]
    assert (point / "A.md").read_bytes() == b"crlf\r\nbody\r\n\xff"
    assert (point / "A.md").stat().st_mtime == 1_000_000_000
    assert (point / "MEMORY.md").read_bytes() == (store / "MEMORY.md").read_bytes()


def test_a_write_that_creates_a_file_still_leaves_a_rollback_point(store: Path) -> None:
    point = take_snapshot(store, "write", [store / "Brand-new.md"], now=T0)
    assert point.is_dir()
    assert os.listdir(point) == []


def test_same_millisecond_many_times_counts_up(store: Path) -> None:
    names = [take_snapshot(store, "index", [], keep=20, now=T0).name for _ in range(11)]
    base = "2026-10-01T00-00-01-000Z-index"
    assert names == [base] + [f"{base}-{n}" for n in range(2, 12)]


def test_prune_orders_collision_suffixes_numerically(store: Path) -> None:
    names = [take_snapshot(store, "write", [], keep=3, now=T0).name for _ in range(11)]
    assert backups(store) == sorted(names[-3:])


def test_the_point_just_taken_survives_a_clock_that_went_back(store: Path) -> None:
    future = T0 + timedelta(days=365)
    for i in range(3):
        take_snapshot(store, "write", [], keep=3, now=future + timedelta(seconds=i))
    point = take_snapshot(store, "write", [], keep=3, now=T0)
    assert point.is_dir()
    assert len(backups(store)) == 3


def test_prune_leaves_what_it_did_not_name(store: Path) -> None:
    root = store / ".backups"
    root.mkdir()
    (root / "my-notes").mkdir()
    (root / "README.txt").write_text("mine")
    (root / "migrate-2026-09-01T00-00-00-000Z").mkdir()
    for i in range(4):
        take_snapshot(store, "write", [], keep=1, now=T0 + timedelta(seconds=i))
    assert backups(store) == [
        "2026-10-01T00-00-04-000Z-write",
        "README.txt",
        "migrate-2026-09-01T00-00-00-000Z",
        "my-notes",
    ]


def test_keep_below_one_still_keeps_the_new_point(store: Path) -> None:
    take_snapshot(store, "write", [], keep=0, now=T0)
    point = take_snapshot(store, "write", [], keep=0, now=T0 + timedelta(seconds=1))
    assert backups(store) == [point.name]


def test_whole_dir_snapshot_copies_every_memory_file_and_the_index(store: Path) -> None:
    (store / "B.md").write_text("b")
    (store / ".lock").write_text("{}")
    (store / ".dream-meta.json").write_text("{}")
    (store / "sessions").mkdir()
    (store / "sessions" / "s.md").write_text("not a memory")
    point = whole_dir_snapshot(store, "dream", now=T0)
    assert point.name == "2026-10-01T00-00-01-000Z-dream"
    assert sorted(os.listdir(point)) == ["A.md", "B.md", "MEMORY.md"]


def test_naive_time_is_taken_as_local_time(store: Path) -> None:
    aware = datetime(2026, 1, 2, 3, 4, 5, 6000, tzinfo=timezone.utc)
    naive_local = aware.astimezone().replace(tzinfo=None)
    assert snapshot_dir_name(naive_local, "write") == "2026-01-02T03-04-05-006Z-write"


def test_default_time_is_now(store: Path) -> None:
    before = datetime.now(timezone.utc).replace(microsecond=0)
    point = take_snapshot(store, "write", [])
    stamp = datetime.strptime(point.name[:19], "%Y-%m-%dT%H-%M-%S").replace(tzinfo=timezone.utc)
    assert before <= stamp <= datetime.now(timezone.utc)


def test_remove_tree_retries_a_busy_directory(tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "held-open").write_text("x")
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 2:
            (busy / "held-open").unlink()

    snapshot.remove_tree(busy, remove=os.rmdir, sleep=sleep)
    assert not busy.exists()
    assert sleeps == [0.05, 0.1]


def test_remove_tree_gives_up_after_six_retries(tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "held-open").write_text("x")
    sleeps: list[float] = []
    with pytest.raises(OSError, match="not empty") as info:
        snapshot.remove_tree(busy, remove=os.rmdir, sleep=sleeps.append)
    assert info.value.errno == errno.ENOTEMPTY
    assert sleeps == [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]


def test_remove_tree_is_recursive_and_forgiving(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "f.md").write_text("x")
    snapshot.remove_tree(tree)
    assert not tree.exists()
    snapshot.remove_tree(tree)  # force: a missing tree is not an error


# -- writers that take their points at once --------------------------------------


def test_a_prune_while_a_point_is_copied_leaves_it_whole(store: Path) -> None:
    """A writer of the files layout takes its point without the lock: another one's
    prune may run while this one copies. Newer points exist already (this one's
    stamp is older), so a prune keeping two would take this point if it counted it."""
    import shutil

    for i in (1, 2):
        take_snapshot(store, "write", [store / "A.md"], keep=5, now=T0 + timedelta(seconds=i))
    root = store / ".backups"
    pruned: list[list[str]] = []

    def copy_beside_a_prune(source: Path, destination: Path) -> None:
        pruned.append(snapshot.prune_snapshots(root, 2))  # the other writer's
        shutil.copy2(source, destination)

    point = take_snapshot(
        store,
        "write",
        [store / "A.md", Path("MEMORY.md")],
        keep=5,
        now=T0,
        copy=copy_beside_a_prune,
    )
    assert pruned == [[], []]  # the point in the making was never one of those counted
    assert point.name == "2026-10-01T00-00-01-000Z-write"
    assert sorted(os.listdir(point)) == ["A.md", "MEMORY.md"]
    assert (point / "A.md").read_bytes() == (store / "A.md").read_bytes()
    assert not [name for name in backups(store) if name.startswith(".partial-")]


def test_a_failed_copy_leaves_neither_a_point_nor_its_partial(store: Path) -> None:
    def full_disk(source: Path, destination: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        take_snapshot(store, "write", [store / "A.md"], now=T0, copy=full_disk)
    assert backups(store) == []


def test_a_partial_left_by_a_dead_process_goes_once_an_hour_old(store: Path) -> None:
    root = store / ".backups"
    root.mkdir()
    old, young = root / ".partial-1-0000aaaa", root / ".partial-2-0000bbbb"
    for partial in (old, young):
        partial.mkdir()
        (partial / "A.md").write_text("half")
    two_hours_ago = datetime.now(timezone.utc).timestamp() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    point = take_snapshot(store, "write", [store / "A.md"], now=T0)
    assert backups(store) == [".partial-2-0000bbbb", point.name]


def test_a_point_is_never_renamed_over_another(store: Path) -> None:
    """An empty point (a write that only creates a file) has the stamp's name; the
    next point at that stamp counts on instead of replacing it."""
    first = take_snapshot(store, "write", [store / "Brand-new.md"], now=T0)
    second = take_snapshot(store, "write", [store / "A.md"], now=T0)
    assert (first.name, second.name) == (
        "2026-10-01T00-00-01-000Z-write",
        "2026-10-01T00-00-01-000Z-write-2",
    )
    assert os.listdir(first) == []
    assert os.listdir(second) == ["A.md"]
