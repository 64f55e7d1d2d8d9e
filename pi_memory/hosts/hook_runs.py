"""When each host's hooks last ran: one empty file per host in the cache directory.

Every hook that does work touches its host's file (one ``utime``; created the
first time), so its modification time is the last run. ``doctor`` reads them:
a host whose hooks are installed but never ran, or not for days, is worth a
look. Disposable like the rest of the cache: deleting it forgets the times.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

DIRECTORY: Final = "hook-runs"
PREFIX: Final = "ran-"


def _path(host: str) -> Path:
    from pi_memory.fs.cache_home import cache_home

    return Path(cache_home()) / DIRECTORY / f"{PREFIX}{host}"


def mark(host: str) -> None:
    """Record that ``host``'s hook runs now; never raises (a time not kept costs nothing)."""
    path = _path(host)
    try:
        os.utime(path)
    except FileNotFoundError:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        except OSError:
            return
    except OSError:
        return


def last_runs() -> dict[str, float]:
    """Host → when its hooks last ran (seconds since the epoch), for the hosts that ran."""
    from pi_memory.fs.cache_home import cache_home

    directory = Path(cache_home()) / DIRECTORY
    found: dict[str, float] = {}
    try:
        names = os.listdir(directory)
    except OSError:
        return found
    for name in names:
        if name.startswith(PREFIX):
            try:
                found[name[len(PREFIX) :]] = os.stat(directory / name).st_mtime
            except OSError:
                continue
    return found
