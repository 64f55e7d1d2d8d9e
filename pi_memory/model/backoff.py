"""Remembering a model that failed, so the prompt hook does not ask it again at once.

A model that failed (an error, a timeout, a refusal, a reply that made no
sense) is not asked again at prompt time for a while: the prompt hook is a
new interpreter on every prompt, so without a record every prompt would spend
the whole side-query limit on a model that is down. The while grows with the
failures in a row — :data:`FIRST` seconds, doubled each time, at most
:data:`CAP` — and any answer clears it.

The record is one small JSON file per ``provider/model`` under the cache
directory's ``models/``, shared by every hook of every session, written
atomically without a lock (two hooks failing at once may count one failure
less; nothing worse). Reading it is one small file read; a missing or
unreadable file means "ask".
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: Seconds a model is left alone after its first failure in a row.
FIRST: Final = 30.0
#: The longest back-off: 30 minutes.
CAP: Final = 1800.0
DIRECTORY: Final = "models"


class Backoff(NamedTuple):
    """One model's failures in a row, and until when it is not asked."""

    model: str
    failures: int
    #: Seconds since the epoch at the last failure, and until which the model is left alone.
    failed_at: float
    until: float
    error: str

    def waiting(self, now: float) -> bool:
        return now < self.until


def period(failures: int) -> float:
    """Seconds of back-off after ``failures`` failures in a row (pure)."""
    if failures < 1:
        return 0.0
    return min(CAP, FIRST * 2.0 ** min(failures - 1, 32))


def path_for(model: str, env: Mapping[str, str] = os.environ) -> Path:
    """The record of ``model`` (``provider/id``): a readable name, made unique by a checksum."""
    import zlib

    from pi_memory.fs.cache_home import cache_home

    raw = model.encode("utf-8", "surrogateescape")
    readable = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in model)
    readable = readable[:80]
    return Path(cache_home(env)) / DIRECTORY / f"{readable}-{zlib.crc32(raw):08x}.json"


def read(model: str, env: Mapping[str, str] = os.environ) -> Backoff | None:
    """The record of ``model``, or None (never failed, cleared, or unreadable)."""
    found = _parse(path_for(model, env))
    return found if found is not None and found.model == model else None


def _parse(path: Path) -> Backoff | None:
    import json

    try:
        data = json.loads(path.read_bytes())
        return Backoff(
            str(data["model"]),
            int(data["failures"]),
            float(data["failedAt"]),
            float(data["until"]),
            str(data["error"]),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def waiting(model: str, env: Mapping[str, str] = os.environ) -> bool:
    """Whether ``model`` is still in its back-off: the prompt hook does not ask it then."""
    found = read(model, env) if model else None
    return found is not None and found.waiting(time.time())


def failed(model: str, error: str, env: Mapping[str, str] = os.environ) -> Backoff:
    """Count one more failure of ``model``; never raises."""
    before = read(model, env)
    failures = (before.failures if before else 0) + 1
    now = time.time()
    record = Backoff(model, failures, now, now + period(failures), " ".join(error.split())[:300])
    save(record, env)
    return record


def save(record: Backoff, env: Mapping[str, str] = os.environ) -> None:
    """Write ``record`` atomically; never raises (a record not written costs speed)."""
    import json

    from pi_memory.fs.atomic import atomic_write_text

    data = {
        "model": record.model,
        "failures": record.failures,
        "failedAt": record.failed_at,
        "until": record.until,
        "error": record.error,
    }
    path = path_for(record.model, env)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data) + "\n", durable=False)
    except OSError:
        pass


def answered(model: str, env: Mapping[str, str] = os.environ) -> None:
    """The model answered: its back-off is over."""
    try:
        path_for(model, env).unlink()
    except OSError:
        pass


def every(env: Mapping[str, str] = os.environ) -> list[Backoff]:
    """Every model's record, by name (for ``doctor``)."""
    from pi_memory.fs.cache_home import cache_home

    directory = Path(cache_home(env)) / DIRECTORY
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found = [_parse(directory / name) for name in names if name.endswith(".json")]
    return sorted((r for r in found if r is not None), key=lambda r: r.model)
