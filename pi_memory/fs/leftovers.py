"""Temp files an interrupted write left behind (``.NAME.<12 hex>.tmp``, see :mod:`atomic`).

A write killed between creating its temp file and renaming it leaves the temp
file; nothing else ever will. One is provably abandoned when the directory's
write lock is held by us (every writer of a layer holds it while its temp file
exists) and it is older than :data:`ABANDONED_AFTER_S` (a margin for a writer
that does not take the lock). Such files are removed by the next write, or by
``show`` when the lock is free (it says how many); the others are reported by
``show``. A very large directory (the files layout at
tens of thousands of memories) is swept by ``rebuild`` rather than every
write. Names this package does not make are never touched.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pi_memory.fs.atomic import TEMP_SUFFIX
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: Seconds after which a temp file under our own lock is abandoned.
ABANDONED_AFTER_S: Final = 600
#: A write sweeps only a directory whose own size (which grows with its entries on
#: every filesystem) is at most this: some thousands of entries, a few ms to list.
SWEEP_ON_WRITE_MAX_BYTES: Final = 128 * 1024
_TEMP_RE: Final = re.compile(r"^\..+\.[0-9a-f]{12}" + re.escape(TEMP_SUFFIX) + "$")


class Leftover(NamedTuple):
    name: str
    #: Seconds since it was last written.
    age: float


def leftovers(directory: Path, now: float) -> list[Leftover]:
    """The temp files of interrupted writes in ``directory``, oldest first."""
    found: list[Leftover] = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.endswith(TEMP_SUFFIX) and _TEMP_RE.match(entry.name):
                    try:
                        found.append(Leftover(entry.name, now - entry.stat().st_mtime))
                    except OSError:
                        continue
    except OSError:
        return []
    return sorted(found, key=lambda item: (-item.age, item.name))


def sweep(directory: Path, now: float, min_age: float = ABANDONED_AFTER_S) -> int:
    """Remove the abandoned temp files; call with ``directory``'s write lock held."""
    removed = 0
    for item in leftovers(directory, now):
        if item.age < min_age:
            continue
        try:
            os.unlink(directory / item.name)
        except OSError:
            continue
        removed += 1
    return removed


def describe(items: list[Leftover], removed: int = 0) -> str | None:
    """``show``'s line about them, or None when there are none and none were removed."""
    gone = (
        f"removed {removed} temp file{'s' if removed != 1 else ''} an interrupted write left "
        f"over {ABANDONED_AFTER_S // 60} minutes ago"
        if removed
        else ""
    )
    if not items:
        return gone or None
    many = "s" if len(items) != 1 else ""
    names = ", ".join(f"{item.name} ({_age(item.age)} old)" for item in items[:3])
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    left = (
        f"{len(items)} temp file{many} left by an interrupted write: {names}{more}; the next "
        f"write (or rebuild) removes each once it is {ABANDONED_AFTER_S // 60} minutes old"
    )
    return f"{gone}; {left}" if gone else left


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{max(0, int(seconds))} s"
    if seconds < 7200:
        return f"{int(seconds // 60)} min"
    return f"{int(seconds // 3600)} h"
