"""What the ``files`` layout's ``memory`` tool removed or replaced, kept for a while.

pi-memory's ``remove`` deletes a memory's file and ``replace`` (or ``add`` of an
existing name) overwrites it; its ``.backups/`` rollback points rotate out
after ``lock.snapshotKeep`` more writes. So that an agent can never destroy a
memory for good, each of those first copies the file it is about to delete or
overwrite into ``.removed/<ISO time>-<action>/<file>``; the copy is kept for
``keepRemovedDays`` days (memory.json, default 30) by the time in its
directory's name, then pruned by a later write. ``show`` counts what is
kept and ``restore`` brings a memory back.

Keeping a copy fails closed, as a snapshot does: when it cannot be made the
remove or replace is not made either.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from pi_memory.fs.snapshot import claim_directory, remove_tree, snapshot_dir_name
from pi_memory.layouts.protocol import Kept

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

RECOVERY_DIR: Final = ".removed"
REMOVE: Final = "remove"
REPLACE: Final = "replace"
#: ``2026-10-02T08-14-03-120Z-remove``: the time a copy was kept, and why.
_NAME_RE: Final = re.compile(
    r"^(\d{4})-(\d\d)-(\d\d)T(\d\d)-(\d\d)-(\d\d)-(\d{3})Z-(remove|replace)(?:-\d+)?$"
)


def keep_copy(directory: Path, file: str, action: str, now: datetime) -> Path | None:
    """Copy ``directory/file`` into a new kept directory; None when there is no such file."""
    import shutil

    source = directory / file
    if not source.is_file():
        return None
    root = directory / RECOVERY_DIR
    root.mkdir(exist_ok=True)
    target = claim_directory(root, snapshot_dir_name(now, action))
    shutil.copy2(source, target / file)
    return target / file


def kept_copies(directory: Path) -> list[Kept]:
    """Every kept copy, newest first; what this module did not name is ignored."""
    root = directory / RECOVERY_DIR
    try:
        names = [p for p in root.iterdir() if p.is_dir()]
    except OSError:
        return []
    out: list[Kept] = []
    for folder in names:
        when = _time_of(folder.name)
        if when is None:
            continue
        action = _NAME_RE.match(folder.name).group(8)  # type: ignore[union-attr]
        out.extend(Kept(path, when, action) for path in sorted(folder.glob("*.md")))
    return sorted(out, key=lambda kept: (kept.when, kept.path.parent.name), reverse=True)


def prune_kept(directory: Path, days: int, now: datetime) -> int:
    """Delete the kept directories older than ``days``; how many went."""
    root = directory / RECOVERY_DIR
    cutoff = now.astimezone(timezone.utc) - timedelta(days=days)
    try:
        folders = [p for p in root.iterdir() if p.is_dir()]
    except OSError:
        return 0
    pruned = 0
    for folder in folders:
        when = _time_of(folder.name)
        if when is not None and when < cutoff:
            remove_tree(folder)
            pruned += 1
    return pruned


def _time_of(name: str) -> datetime | None:
    match = _NAME_RE.match(name)
    if match is None:
        return None
    year, month, day, hour, minute, second, millis = (int(g) for g in match.groups()[:7])
    try:
        return datetime(year, month, day, hour, minute, second, millis * 1000, timezone.utc)
    except ValueError:
        return None
