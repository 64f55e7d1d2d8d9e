"""A session's state as one record: loaded once per hook, saved once.

The record lives in ``state.json`` in the session's directory. A save writes
only the fields this process changed, over what is on disk at that moment:
a hook and a background review of the same session change different fields
(the hooks the injected index, the surfaced set and the turn count; a review its
marks), so neither undoes the other. A save never waits: it takes the
session's ``state.lock`` with ``O_EXCL`` for the microseconds of one
read-merge-replace, and when another process holds it, it writes its changes
as a patch file beside it (``patch-*.json``), which every load applies and the
next save folds in. A lock older than :data:`STALE_LOCK_SECONDS` belongs to a
process that died in those microseconds and is broken: the state is derived,
losing one change costs one re-render or one repeated surfacing.

Files of the layout before this record (``index.txt``, ``surfaced.json``,
``turns.json``, ``review.json``, ``reinject``, ``compress-watch``) are still
read, and win over ``state.json``: only a process of the version before writes
them (a worker that started before an upgrade), so they are the newer word. A
save folds them in and removes them. A user who upgrades mid-session keeps the
frozen injected index, the surfaced set and the review marks: no double surfacing, no
double review.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pi_memory.named_tuple import NamedTuple
from pi_memory.session.dirs import session_dir
from pi_memory.session.gate import ReviewGate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

STATE_FILE: Final = "state.json"
LOCK_FILE: Final = "state.lock"
PATCH_PREFIX: Final = "patch-"
#: A save holds the lock for one read and one replace; older than this, its holder died.
STALE_LOCK_SECONDS: Final = 10.0
#: ``reinject``: the next prompt carries the injected index rendered afresh, or the frozen bytes.
FRESH: Final = "fresh"
FROZEN: Final = "frozen"


class SessionState(NamedTuple):
    #: The injected index, frozen at session start (``None``: none yet). A resumed session
    #: gets these bytes again, so the prompt prefix and the host's cache survive.
    frozen: str | None = None
    #: ``""`` | :data:`FRESH` | :data:`FROZEN`: the next prompt carries the injected index
    #: (no session start follows, or the host takes it with the first prompt).
    reinject: str = ""
    #: Gemini CLI: the chat recording's size at the last prompt; the next prompt or the
    #: session's end looks at what was appended since for a compression.
    watch: int | None = None
    #: Ids of the memories surfaced this session (a compaction clears them).
    surfaced: tuple[str, ...] = ()
    gate: ReviewGate = ReviewGate()


def load(session_id: str) -> SessionState:
    """The session's state; missing or damaged parts read as a fresh session's."""
    return decode(_current(session_dir(session_id))[0])


def save(session_id: str, loaded: SessionState, state: SessionState) -> None:
    """Write the fields of ``state`` that differ from ``loaded`` (what this process read)."""
    before, after = encode(loaded), encode(state)
    changes = {key: value for key, value in after.items() if before.get(key) != value}
    if not changes:
        return
    directory = session_dir(session_id)
    directory.mkdir(parents=True, exist_ok=True)
    if not _take(directory / LOCK_FILE):
        _write_patch(directory, changes)
        return
    try:
        data, folded = _current(directory)
        data.update(changes)
        _write(directory / STATE_FILE, json.dumps(data, ensure_ascii=False))
        for path in folded:
            _unlink(path)
    finally:
        _unlink(directory / LOCK_FILE)


# -- the record on disk ------------------------------------------------------------------


def encode(state: SessionState) -> dict[str, Any]:
    gate = state.gate
    return {
        "frozen": state.frozen,
        "reinject": state.reinject,
        "watch": state.watch,
        "surfaced": list(state.surfaced),
        "turns": gate.turns,
        "lastKey": gate.last_key,
        "startedAt": gate.started_at,
        "lastTurn": gate.last_turn,
        "cursor": gate.cursor,
    }


def decode(data: dict[str, Any]) -> SessionState:
    """The state in ``data``; a field of the wrong type reads as its default."""
    frozen, reinject, watch = data.get("frozen"), data.get("reinject"), data.get("watch")
    surfaced = data.get("surfaced")
    gate = ReviewGate(
        _count(data.get("turns"), 0),
        _text(data.get("lastKey")),
        _count(data.get("startedAt"), 0),
        _number(data.get("lastTurn"), -1),
        _count(data.get("cursor"), 0),
    )
    return SessionState(
        frozen if isinstance(frozen, str) else None,
        reinject if reinject in (FRESH, FROZEN) else "",
        watch if isinstance(watch, int) and _is_int(watch) and watch >= 0 else None,
        tuple(i for i in surfaced if isinstance(i, str)) if isinstance(surfaced, list) else (),
        gate,
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(value: object, default: int) -> int:
    return value if isinstance(value, int) and _is_int(value) and value >= 0 else default


def _number(value: object, default: int) -> int:
    return value if isinstance(value, int) and _is_int(value) else default


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _current(directory: Path) -> tuple[dict[str, Any], list[Path]]:
    """What is on disk now: ``state.json``, the old layout's files over it, then the
    patches in the order they were written; and the files a save folds in."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return {}, []
    data = _json(directory / STATE_FILE) if STATE_FILE in names else {}
    folded: list[Path] = []
    for name, read in LEGACY.items():
        if name in names:
            data.update(read(directory / name))
            folded.append(directory / name)
    for name in names:
        if name.startswith(PATCH_PREFIX) and name.endswith(".json"):
            data.update(_json(directory / name))
            folded.append(directory / name)
    return data, folded


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8", "surrogateescape"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, text: str) -> None:
    from pi_memory.fs.atomic import atomic_write_text

    atomic_write_text(path, text, durable=False)  # disposable, see the package docstring


def _write_patch(directory: Path, changes: dict[str, Any]) -> None:
    import time

    name = f"{PATCH_PREFIX}{time.time_ns():020d}-{os.getpid()}.json"
    _write(directory / name, json.dumps(changes, ensure_ascii=False))


def _take(lock: Path) -> bool:
    """The state's lock, at once or not at all; a lock left by a dead saver is broken."""
    import time

    for _ in range(2):
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            return True
        except FileExistsError:
            try:
                if time.time() - lock.stat().st_mtime < STALE_LOCK_SECONDS:
                    return False
                stale = lock.with_name(f"{LOCK_FILE}.{os.getpid()}.stale")
                os.replace(lock, stale)
                os.unlink(stale)
            except OSError:
                continue
        except OSError:
            return False
    return False


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# -- the files of the layout before state.json -------------------------------------------


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text("utf-8", "surrogateescape")
    except (OSError, ValueError):
        return None


def _legacy_index(path: Path) -> dict[str, Any]:
    text = _read_text(path)
    return {} if text is None else {"frozen": text}


def _legacy_reinject(path: Path) -> dict[str, Any]:
    return {"reinject": FROZEN if _read_text(path) == FROZEN else FRESH}


def _legacy_watch(path: Path) -> dict[str, Any]:
    text = (_read_text(path) or "").strip()
    return {"watch": int(text)} if text.isdigit() else {}


def _legacy_surfaced(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {"surfaced": data} if isinstance(data, list) else {}


def _legacy_turns(path: Path) -> dict[str, Any]:
    data = _json(path)
    names = {"turns": "turns", "lastKey": "lastKey", "reviewedAt": "startedAt"}
    return {new: data[old] for old, new in names.items() if old in data}


def _legacy_review(path: Path) -> dict[str, Any]:
    data = _json(path)
    return {key: data[key] for key in ("lastTurn", "cursor") if key in data}


LEGACY: Final = {
    "index.txt": _legacy_index,
    "reinject": _legacy_reinject,
    "compress-watch": _legacy_watch,
    "surfaced.json": _legacy_surfaced,
    "turns.json": _legacy_turns,
    "review.json": _legacy_review,
}
