"""Rollback points: copies of the files a write is about to change, in ``.backups/``.

Each write first copies the files it will touch into
``<dir>/.backups/<ISO time>-<label>/`` (the time with ``:`` and ``.`` turned
into ``-``); :func:`whole_dir_snapshot` copies every memory file at once, for
an operation that rewrites many (``import`` uses it).
Only the newest ``lock.snapshotKeep`` points are kept. Directories named
``migrate-*`` are whole-directory copies left by an old migration and hold the
only originals of pre-2.0 files: they are never counted and never pruned, and
neither is anything else in ``.backups/`` that this module did not name.

Taking a snapshot fails closed: if the copy cannot be made, the error is
raised and the caller does not write.

A point is copied into a hidden ``.partial-…`` directory first and renamed to
its name once whole. A writer of the files layout takes its point without the
lock, so another writer may prune while this one copies; a point in the
making is not yet one of those it counts, and a half-made one never carries
a point's name.
"""

from __future__ import annotations

import errno
import os
import re
import sys
import time
from pathlib import Path

from pi_memory.config.defaults import SNAPSHOT_KEEP
from pi_memory.fs import fsretry
from pi_memory.text import iso_timestamp

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime
    from typing import Callable, Final

BACKUPS_DIR: Final = ".backups"
MIGRATE_PREFIX: Final = "migrate-"
#: A point being copied: ``.partial-<pid>-<random>``; left by a process that died
#: mid-copy, it is removed by a later prune once an hour old.
PARTIAL_PREFIX: Final = ".partial-"
PARTIAL_MAX_AGE_S: Final = 3600

#: Names this module gives: ``2026-10-01T00-00-01-000Z-<label>[-N]``.
SNAPSHOT_NAME_RE: Final = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-.")

#: Pruning retries a busy tree the way Node's ``fs.rm`` does (maxRetries 6,
#: retryDelay 50 ms, growing linearly), on its own list of codes.
RM_MAX_RETRIES: Final = 6
RM_RETRY_DELAY_MS: Final = 50
RM_RETRY_CODES: Final = frozenset({"EBUSY", "EMFILE", "ENFILE", "ENOTEMPTY", "EPERM"})

if TYPE_CHECKING:
    Copier = Callable[[Path, Path], object]


def snapshot_dir_name(now: datetime, label: str) -> str:
    return iso_timestamp(now).replace(":", "-").replace(".", "-") + "-" + label


def take_snapshot(
    directory: Path,
    label: str,
    files: Iterable[Path],
    keep: int = SNAPSHOT_KEEP,
    now: datetime | None = None,
    *,
    copy: Copier | None = None,
    platform: str = sys.platform,
) -> Path:
    """Copy those of ``files`` that exist into a new snapshot directory; prune; return it.

    ``files`` are paths inside ``directory`` (or bare names); they keep their
    relative place in the snapshot. ``copy`` and ``platform`` exist so the
    retry of a busy copy can be shown without patching the OS.
    """
    import shutil

    directory = Path(directory)
    root = directory / BACKUPS_DIR
    # A regular file in the way raises here, and the write is not made.
    root.mkdir(exist_ok=True)
    name = snapshot_dir_name(_now(now), label)
    partial = _partial_directory(root)
    try:
        for source in files:
            _copy_one(directory, Path(source), partial, copy or shutil.copy2, platform)
        target = _name_directory(root, partial, name)
    except BaseException:
        # A half-made rollback point (a full disk) must not pass for a whole one.
        shutil.rmtree(partial, ignore_errors=True)
        raise
    try:
        prune_snapshots(root, keep, protect=target.name)
    except OSError:
        # The rollback point exists; an old one that will not go away yet must
        # not cost the user this write. The next snapshot tries again.
        pass
    return target


def whole_dir_snapshot(
    directory: Path,
    label: str,
    keep: int = SNAPSHOT_KEEP,
    now: datetime | None = None,
) -> Path:
    """One rollback point for a whole round: every memory file and ``MEMORY.md``."""
    return take_snapshot(directory, label, memory_files(directory), keep, now)


def memory_files(directory: Path) -> list[Path]:
    """The top-level ``.md`` files of a store (entries, categories, the index); no dotfiles."""
    found = []
    for entry in os.scandir(directory):
        if entry.name.startswith(".") or not entry.name.endswith(".md"):
            continue
        if entry.is_file(follow_symlinks=False):
            found.append(Path(entry.path))
    return sorted(found)


def prune_snapshots(root: Path, keep: int, *, protect: str | None = None) -> list[str]:
    """Remove all but the newest ``keep`` snapshot directories; return the names removed.

    ``protect`` (the point just taken) always survives and counts towards ``keep``.
    A point left half-copied by a process that died (``.partial-…``) goes once an
    hour old; one younger may still be copied into.
    """
    found = [e for e in os.scandir(root) if e.is_dir(follow_symlinks=False)]
    names = sorted(
        (
            e.name
            for e in found
            if SNAPSHOT_NAME_RE.match(e.name)
            and not e.name.startswith(MIGRATE_PREFIX)
            and e.name != protect
        ),
        key=natural_key,
    )
    room = max(keep, 1) - (1 if protect else 0)
    doomed = names[: max(len(names) - room, 0)]
    for name in doomed:
        remove_tree(root / name)
    abandoned = time.time() - PARTIAL_MAX_AGE_S
    for e in found:
        if e.name.startswith(PARTIAL_PREFIX) and e.stat(follow_symlinks=False).st_mtime < abandoned:
            remove_tree(root / e.name)
    return doomed


def natural_key(name: str) -> list[object]:
    """Orders ``…Z-write`` < ``…Z-write-2`` < ``…Z-write-10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def remove_tree(
    path: Path,
    *,
    remove: Callable[[Path], object] | None = None,
    sleep: Callable[[float], object] = time.sleep,
) -> None:
    """``rm -rf`` that waits out a scanner holding a file open (missing is fine)."""
    if remove is None:
        import shutil

        remove = shutil.rmtree
    for attempt in range(RM_MAX_RETRIES + 1):
        try:
            remove(path)
            return
        except FileNotFoundError:
            return
        except OSError as error:
            code = errno.errorcode.get(error.errno or 0)
            if attempt == RM_MAX_RETRIES or code not in RM_RETRY_CODES:
                raise
        sleep(RM_RETRY_DELAY_MS * (attempt + 1) / 1000)


def claim_directory(root: Path, base: str) -> Path:
    """Create the snapshot directory; the same millisecond again gets ``-2``, ``-3``, ….

    Counting on from the highest suffix present (not the first free one) keeps
    names in creation order even after pruning freed a lower one.
    """
    suffix = 1 + max((_suffix(name, base) for name in os.listdir(root)), default=0)
    while True:
        name = base if suffix == 1 else f"{base}-{suffix}"
        try:
            (root / name).mkdir()
        except FileExistsError:
            suffix += 1
            continue
        return root / name


def _partial_directory(root: Path) -> Path:
    """A new directory to copy a point into, named so that no prune counts it."""
    import secrets

    while True:
        path = root / f"{PARTIAL_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path


def _name_directory(root: Path, partial: Path, base: str) -> Path:
    """Give the whole point ``partial`` its name, counting on as :func:`claim_directory`.

    A rename never replaces a point: a name that exists is skipped before the
    rename is tried, and one made in between (a rename would replace it only
    if it were empty, a point of no files) makes the rename fail on every
    system but that one.
    """
    suffix = 1 + max((_suffix(name, base) for name in os.listdir(root)), default=0)
    while True:
        name = base if suffix == 1 else f"{base}-{suffix}"
        target = root / name
        if not os.path.lexists(target):
            try:
                os.rename(partial, target)
            except OSError as error:
                if error.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
            else:
                return target
        suffix += 1


def _suffix(name: str, base: str) -> int:
    if name == base:
        return 1
    rest = name[len(base) + 1 :] if name.startswith(base + "-") else ""
    return int(rest) if rest.isdigit() else 0


def _copy_one(directory: Path, source: Path, target: Path, copy: Copier, platform: str) -> None:
    if not source.is_absolute():
        source = directory / source
    try:
        relative = source.relative_to(directory)
    except ValueError:
        relative = Path(source.name)
    if not source.is_file():
        return
    destination = target / relative
    destination.parent.mkdir(parents=True, exist_ok=True)
    try:
        fsretry.retry(copy, source, destination, platform=platform)
    except FileNotFoundError:
        if source.exists():
            raise
        # Removed since it was listed: there is nothing to roll back to.


def _now(now: datetime | None) -> datetime:
    if now is not None:
        return now
    from datetime import datetime, timezone

    return datetime.now(timezone.utc)
