"""The verdicts of the last check, kept in the cache directory for the hooks.

The hooks only read this file (one small JSON, no git); a background job
(:func:`refresh`) writes it. :func:`due` says, without running git, whether the
verdicts may be out of date: the layer's anchors changed, or ``HEAD`` moved
(read from ``.git`` as git keeps it), or, outside git, the last check is older
than :data:`FILES_RECHECK_SECONDS`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pi_memory.anchors.verdict import Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

VERSION: Final = 1
DIRECTORY: Final = "anchors"
#: Outside git nothing cheap says a file changed: check again after this long.
FILES_RECHECK_SECONDS: Final = 600.0


def cache_file(directory: Path) -> Path:
    """Where the verdicts on the layer at ``directory`` are kept."""
    import zlib

    from pi_memory.fs.cache_home import cache_home

    raw = str(directory).encode("utf-8", "surrogateescape")
    stem = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return Path(cache_home()) / DIRECTORY / f"{stem}.json"


def _load(directory: Path) -> dict[str, object] | None:
    try:
        data = json.loads(cache_file(directory).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION:
        return None
    if data.get("directory") != str(directory):
        return None
    return data


def read(directory: Path) -> dict[str, Verdict]:
    """The cached verdicts by memory id (none when never checked or unreadable)."""
    data = _load(directory)
    raw = data.get("verdicts") if data else None
    if not isinstance(raw, dict):
        return {}
    verdicts: dict[str, Verdict] = {}
    for key, value in raw.items():
        if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
            verdicts[str(key)] = Verdict(value[0], value[1])
    return verdicts


def _anchors_stat(directory: Path) -> list[int]:
    from pi_memory.anchors.record import path

    try:
        st = os.stat(path(directory))
    except OSError:
        return []
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def head_of(root: Path) -> str:
    """``HEAD``'s commit read from the repository's files, without git ("" when it
    cannot be read that way)."""
    from pi_memory.naming.git_repo import find_git_repo, head_commit

    repo = find_git_repo(root)
    return head_commit(repo) if repo is not None else ""


def due(directory: Path, root: Path, now: float) -> bool:
    """The verdicts on the layer may be out of date: a check should run."""
    data = _load(directory)
    anchors = _anchors_stat(directory)
    if data is None:
        return bool(anchors)
    if data.get("anchors") != anchors or data.get("root") != str(root):
        return True
    if data.get("head") != head_of(root):
        return True
    checked = data.get("checked")
    disk = data.get("disk") is True
    return disk and (not isinstance(checked, (int, float)) or now - checked > FILES_RECHECK_SECONDS)


def recheck_after(directory: Path) -> bool:
    """Whether the verdicts on the layer fall due with time alone (checked outside git,
    where nothing cheap says a file changed), not only when a file changes."""
    data = _load(directory)
    return data is not None and data.get("disk") is True


def refresh(directory: Path, root: Path, now: float) -> dict[str, Verdict]:
    """Check every anchored memory of the layer and keep the verdicts."""
    from pi_memory.anchors import record
    from pi_memory.anchors.check import check
    from pi_memory.anchors.project import GIT
    from pi_memory.fs.atomic import atomic_write_text

    stat = _anchors_stat(directory)  # before reading: a change during the check shows
    head = head_of(root)
    anchors = record.read(directory)
    _, verdicts = check(root, anchors)
    data = {
        "v": VERSION,
        "directory": str(directory),
        "root": str(root),
        "anchors": stat,
        "head": head,
        "checked": now,
        "disk": any(a.found.via != GIT for a in anchors.values()),
        "verdicts": {k: list(v) for k, v in sorted(verdicts.items())},
    }
    target = cache_file(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, json.dumps(data, ensure_ascii=False), durable=False)
    return verdicts
