"""Where each session's state lives, and pruning the sessions nobody touched for days."""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.config.defaults import SESSION_DAYS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

DEFAULT_MAX_AGE_DAYS: Final = SESSION_DAYS
SESSIONS: Final = "sessions"
JOBS_DIR: Final = "jobs"
#: Marker whose mtime says when the sessions were last pruned (at most daily).
PRUNED_MARK: Final = ".pruned"
_SAFE: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def sessions_root() -> Path:
    from pi_memory.fs.cache_home import cache_home

    return Path(cache_home()) / SESSIONS


def session_key(session_id: str) -> str:
    """A file name for ``session_id``: itself when plainly safe, else a checksum name."""
    if 0 < len(session_id) <= 100 and set(session_id) <= _SAFE and session_id[0] != ".":
        return session_id
    import zlib

    raw = session_id.encode("utf-8", "surrogatepass")
    return f"x{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"


def session_dir(session_id: str) -> Path:
    return sessions_root() / session_key(session_id)


def prune(max_age_days: int, now: float) -> list[str] | None:
    """Remove session directories untouched for ``max_age_days``; at most once a day.

    A directory holding a job record is kept: the job owns it until it ends.
    Returns the keys removed, ``None`` when it was not time to look.
    """
    root = sessions_root()
    mark = root / PRUNED_MARK
    try:
        if now - mark.stat().st_mtime < 86_400:
            return None
    except OSError:
        pass
    try:
        root.mkdir(parents=True, exist_ok=True)
        mark.touch()
        children = list(os.scandir(root))
    except OSError:
        return []
    cutoff = now - max_age_days * 86_400
    removed = []
    for child in children:
        if not child.is_dir(follow_symlinks=False) or child.name.startswith("."):
            continue
        path = Path(child.path)
        try:
            if path.stat().st_mtime >= cutoff or any((path / JOBS_DIR).glob("*.json")):
                continue
            _remove_tree(path)
        except OSError:
            continue
        removed.append(child.name)
    return removed


def _remove_tree(path: Path) -> None:
    for top, dirs, files in os.walk(path, topdown=False):
        for name in files:
            os.unlink(os.path.join(top, name))
        for name in dirs:
            os.rmdir(os.path.join(top, name))
    os.rmdir(path)
