"""What one agent session remembers between its hook processes.

Every hook is a new interpreter, so what the extensions kept in process memory
lives in a small directory per session under the user's cache directory
(``<cache>/sessions/<session key>/``), never inside a memory layer:

``index.txt``
    The injection frozen at session start: a resumed session gets these exact
    bytes again, so the prompt prefix (and the host's prompt cache) survives.
``surfaced.json``
    Ids of the memories surfaced this session (cleared by a compaction, which
    drops them from the context).
``turns.json``
    The review gate: turns seen, the key of the last one (a repeated delivery
    of one turn does not count twice) and the turn the last review started at.
``compress-watch``
    Gemini CLI: the size of the chat recording when a PreCompress said a
    compression might follow (it says so before every request); the turn's end
    looks at what was appended since and decides.
``jobs/``
    Job records of background work for this session (:mod:`pi_memory.jobs.records`).

All of it is derived state: deleting it costs one re-render or one review,
never a memory. Files are replaced atomically without fsync (disposable), and
directories untouched for :data:`DEFAULT_MAX_AGE_DAYS` days are pruned.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final, NamedTuple

from pi_memory.config.defaults import SESSION_DAYS

DEFAULT_MAX_AGE_DAYS: Final = SESSION_DAYS
SESSIONS: Final = "sessions"
INDEX_FILE: Final = "index.txt"
SURFACED_FILE: Final = "surfaced.json"
TURNS_FILE: Final = "turns.json"
#: Present when the index must go back in with the next prompt (no session start follows).
REINJECT_FILE: Final = "reinject"
#: Gemini: where the chat recording ended when PreCompress fired (see the module doc).
WATCH_FILE: Final = "compress-watch"
JOBS_DIR: Final = "jobs"
#: Marker whose mtime says when the sessions were last pruned (at most daily).
PRUNED_MARK: Final = ".pruned"
_SAFE: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


class Gate(NamedTuple):
    """pi-memory-auto's review gate, per session: turns are counted here because hosts
    give no turn index; the turn a review started at is recorded *before* it runs."""

    turns: int = 0
    last_key: str = ""
    reviewed_at: int = 0


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


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8", "surrogateescape")
    except (OSError, ValueError):
        return None


def _write(path: Path, text: str) -> None:
    from pi_memory.fs.atomic import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text, durable=False)


def frozen_injection(session_id: str) -> str | None:
    """The injection frozen for this session, ``None`` when none was."""
    return _read(session_dir(session_id) / INDEX_FILE)


def freeze_injection(session_id: str, text: str) -> None:
    _write(session_dir(session_id) / INDEX_FILE, text)


def request_reinject(session_id: str, *, frozen: bool = False) -> None:
    """The next prompt carries the index: rendered afresh, or the ``frozen`` bytes."""
    _write(session_dir(session_id) / REINJECT_FILE, "frozen" if frozen else "")


def reinject_pending(session_id: str) -> bool:
    return (session_dir(session_id) / REINJECT_FILE).exists()


def reinject_frozen(session_id: str) -> bool:
    return _read(session_dir(session_id) / REINJECT_FILE) == "frozen"


def clear_reinject(session_id: str) -> None:
    try:
        os.unlink(session_dir(session_id) / REINJECT_FILE)
    except OSError:
        pass


def watch_compression(session_id: str, offset: int) -> None:
    """Remember ``offset``, unless an earlier one of this turn is still waiting."""
    if compression_watch(session_id) is None:
        _write(session_dir(session_id) / WATCH_FILE, str(offset))


def compression_watch(session_id: str) -> int | None:
    text = _read(session_dir(session_id) / WATCH_FILE)
    return int(text) if text is not None and text.strip().isdigit() else None


def clear_compression_watch(session_id: str) -> None:
    try:
        os.unlink(session_dir(session_id) / WATCH_FILE)
    except OSError:
        pass


def surfaced(session_id: str) -> list[str]:
    import json

    text = _read(session_dir(session_id) / SURFACED_FILE)
    try:
        data = json.loads(text) if text else []
    except ValueError:
        return []
    return [item for item in data if isinstance(item, str)] if isinstance(data, list) else []


def record_surfaced(session_id: str, ids: list[str]) -> None:
    import json

    known = surfaced(session_id)
    merged = known + [i for i in ids if i not in known]
    _write(session_dir(session_id) / SURFACED_FILE, json.dumps(merged))


def clear_surfaced(session_id: str) -> None:
    try:
        os.unlink(session_dir(session_id) / SURFACED_FILE)
    except OSError:
        pass


def read_gate(session_id: str) -> Gate:
    import json

    text = _read(session_dir(session_id) / TURNS_FILE)
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return Gate()
    if not isinstance(data, dict):
        return Gate()
    turns, key, at = data.get("turns"), data.get("lastKey"), data.get("reviewedAt")
    return Gate(
        turns if isinstance(turns, int) and turns >= 0 else 0,
        key if isinstance(key, str) else "",
        at if isinstance(at, int) and at >= 0 else 0,
    )


def write_gate(session_id: str, gate: Gate) -> None:
    import json

    data = {"turns": gate.turns, "lastKey": gate.last_key, "reviewedAt": gate.reviewed_at}
    _write(session_dir(session_id) / TURNS_FILE, json.dumps(data))


def count_turn(gate: Gate, key: str) -> Gate:
    """One more turn, unless ``key`` names the turn counted last (a repeated delivery)."""
    if key and key == gate.last_key:
        return gate
    return gate._replace(turns=gate.turns + 1, last_key=key)


def review_due(gate: Gate, every: int) -> bool:
    """pi-memory-auto: every ``every`` turns, and a turn index starts at most one review."""
    return gate.turns > gate.reviewed_at and gate.turns - gate.reviewed_at >= every


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
