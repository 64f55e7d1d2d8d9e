"""Job records: background work written down before it starts, so it is never lost.

A hook that has slow work to do (a review, a handoff, the quit flush, a
consolidation) does not do it: it writes a record atomically into the
session's ``jobs/`` directory and starts a detached worker
(:mod:`pi_memory.jobs.worker`). The record says what to do, for which
session, over which part of the transcript (from the session's review cursor
up to the transcript's size when the job was recorded). Its name is derived
from exactly that, so recording the same job twice writes one record.

A record is deleted when its job succeeded or gave up; a record still there
at the next session start belongs to a worker that died (crash, reboot) and
is run again. While a worker runs the jobs of a session it holds that
session's claim file, created with ``O_EXCL`` like the store's lock: two jobs
over the same transcript never both run.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.named_tuple import NamedTuple
from pi_memory.session.dirs import JOBS_DIR, session_key, sessions_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.fs.lock import LockStatus

REVIEW: Final = "review"
HANDOFF: Final = "handoff"
FLUSH: Final = "flush"
CONSOLIDATE: Final = "consolidate"
#: The check of the project memories' anchors (no model): which became suspect.
ANCHORS: Final = "anchors"
KINDS: Final = (REVIEW, HANDOFF, FLUSH, CONSOLIDATE, ANCHORS)
#: Transcript jobs run in this order when several are pending for a session.
ORDER: Final = {HANDOFF: 0, REVIEW: 1, FLUSH: 2, CONSOLIDATE: 3, ANCHORS: 4}
CLAIM_FILE: Final = ".claim"
#: The claim holder's current job ends by then: ``{"pid": …, "deadline": epoch seconds}``.
DEADLINE_FILE: Final = ".deadline"
#: A worker that waits for the session's claim to come free (one at a time).
WAITER_FILE: Final = ".waiter"
#: Seconds past its job's deadline after which a worker is ended (by itself, else by a
#: later worker that takes its jobs over).
GRACE: Final = 5.0
#: A job that failed this many times is dropped (its record renamed ``*.failed``).
MAX_ATTEMPTS: Final = 3
FAILED_SUFFIX: Final = ".failed"
#: An unreadable claim younger than this may be a worker still writing it.
STALE_EMPTY_SECONDS: Final = 10


class JobRecord(NamedTuple):
    kind: str
    session: str
    cwd: str
    #: The host's transcript file ("" for a consolidation).
    transcript: str = ""
    #: ``claude-code`` | ``codex`` | ``gemini`` (the transcript's format).
    host: str = ""
    #: The transcript's size in bytes when the job was recorded: the range ends there.
    end: int = 0
    #: The layer a consolidation works on.
    layer: str = ""
    created: float = 0.0
    attempts: int = 0
    #: Why the last attempt failed, in one line ("" while none did).
    error: str = ""

    @property
    def name(self) -> str:
        if self.kind == CONSOLIDATE:
            return f"{self.kind}-{self.layer}"
        if self.kind == ANCHORS:  # one check per project
            import zlib

            return f"{self.kind}-{zlib.crc32(self.cwd.encode('utf-8', 'surrogateescape')):08x}"
        return f"{self.kind}-{self.end}"


def key_of(record: JobRecord) -> str:
    """The session directory's name (see :func:`pi_memory.session.dirs.session_key`)."""
    return session_key(record.session)


def jobs_dir(key: str) -> Path:
    return sessions_root() / key / JOBS_DIR


def record_path(record: JobRecord) -> Path:
    return jobs_dir(key_of(record)) / f"{record.name}.json"


def encode(record: JobRecord) -> str:
    import json

    return json.dumps(record._asdict(), sort_keys=True)


def decode(text: str) -> JobRecord | None:
    """The record in ``text``, or ``None`` when it is not one (damaged, foreign)."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("kind") not in KINDS:
        return None
    fields: dict[str, object] = {}
    for name, default in JobRecord._field_defaults.items():
        value = data.get(name, default)
        if type(value) is not type(default) and not (
            isinstance(default, float) and isinstance(value, int)
        ):
            return None
        fields[name] = value
    for name in ("kind", "session", "cwd"):
        if not isinstance(data.get(name), str):
            return None
        fields[name] = data[name]
    return JobRecord(**fields)  # type: ignore[arg-type]  # types checked above


def write_record(record: JobRecord) -> Path:
    from pi_memory.fs.atomic import atomic_write_text

    path = record_path(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, encode(record) + "\n", durable=False)
    return path


def pending(key: str) -> list[JobRecord]:
    """The session's recorded jobs by transcript position, a handoff before a review."""
    records = [record for _, record in _read_all(key, "*.json")]
    records.sort(key=lambda r: (r.end, ORDER[r.kind]))
    return records


def _read_all(key: str, pattern: str) -> list[tuple[Path, JobRecord]]:
    """The session's job files matching ``pattern`` that decode, by name."""
    found = []
    try:
        paths = sorted(jobs_dir(key).glob(pattern))
    except OSError:
        return []
    for path in paths:
        try:
            record = decode(path.read_text("utf-8"))
        except OSError:
            continue
        if record is not None:
            found.append((path, record))
    return found


def sessions_with_jobs() -> list[str]:
    """Session keys that have job records (what a session start looks for)."""
    try:
        return sorted({p.parent.parent.name for p in sessions_root().glob(f"*/{JOBS_DIR}/*.json")})
    except OSError:
        return []


def finish(record: JobRecord) -> None:
    try:
        os.unlink(record_path(record))
    except OSError:
        pass


def failed(record: JobRecord, error: str = "") -> None:
    """One more failed attempt, and why; past :data:`MAX_ATTEMPTS` the record is set
    aside as ``*.failed`` (``doctor`` lists it with its last error)."""
    retry = record._replace(attempts=record.attempts + 1, error=" ".join(error.split())[:500])
    try:
        write_record(retry)
        if retry.attempts >= MAX_ATTEMPTS:
            path = record_path(record)
            os.replace(path, path.with_suffix(FAILED_SUFFIX))
    except OSError:
        pass


def set_aside(key: str) -> list[tuple[Path, JobRecord]]:
    """The session's jobs set aside after :data:`MAX_ATTEMPTS` failures."""
    return _read_all(key, f"*{FAILED_SUFFIX}")


def sessions_with_records() -> list[str]:
    """Session keys with pending or set-aside job records (what ``doctor`` reads)."""
    try:
        paths = sessions_root().glob(f"*/{JOBS_DIR}/*")
        return sorted({p.parent.parent.name for p in paths if p.suffix in (".json", FAILED_SUFFIX)})
    except OSError:
        return []


# -- the claim: one worker per session at a time -------------------------------------------


def claim_path(key: str) -> Path:
    return jobs_dir(key) / CLAIM_FILE


def claim(key: str) -> bool:
    """Become the session's worker; False while another live worker is.

    A claim left by a worker that died on this host is broken and taken; a
    claim from another host is never judged dead (it is left for its owner).
    """
    import time

    from pi_memory.fs.lock import (
        HELD,
        create_lock_file,
        format_record,
        holder_alive,
        parse_record,
        this_host,
    )

    path = claim_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    mine = format_record(os.getpid(), this_host(), started, "job")
    for _ in range(2):
        if create_lock_file(path, mine):
            return True
        try:
            state = parse_record(path.read_bytes())
            age = time.time() - path.stat().st_mtime
        except OSError:
            continue  # released meanwhile: try again
        if state.kind == HELD and holder_alive(state) is not False and not _stuck(key, state):
            return False
        if state.kind != HELD and age < STALE_EMPTY_SECONDS:
            return False  # a worker between creating and writing its claim
        if state.kind == HELD and state.pid is not None and holder_alive(state):
            _end_worker(state.pid)  # past every deadline: its jobs are taken over
        stale = path.with_name(f"{CLAIM_FILE}.{os.getpid()}.stale")
        try:  # the holder is gone: rename the claim away, then take it with O_EXCL
            os.replace(path, stale)
            os.unlink(stale)
        except OSError:
            pass
    return False


def release(key: str) -> None:
    from pi_memory.fs.lock import release_lock_file

    release_lock_file(claim_path(key))


# -- deadlines: a worker past its job's deadline has its jobs taken over -------------------


def set_deadline(key: str, deadline: float) -> None:
    """The claim holder's job ends by ``deadline`` (wall-clock seconds)."""
    import json

    from pi_memory.fs.atomic import atomic_write_text

    data = {"pid": os.getpid(), "deadline": deadline}
    atomic_write_text(jobs_dir(key) / DEADLINE_FILE, json.dumps(data), durable=False)


def deadline_of(key: str, pid: int) -> float | None:
    """When the job of worker ``pid`` ends, ``None`` when it named none (yet)."""
    import json

    try:
        data = json.loads((jobs_dir(key) / DEADLINE_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("pid") != pid:
        return None
    deadline = data.get("deadline")
    return float(deadline) if isinstance(deadline, (int, float)) else None


def stuck(key: str) -> bool:
    """The session's claim is held, on this host, by a live worker past its deadline."""
    from pi_memory.fs.lock import HELD, holder_alive, parse_record

    try:
        state = parse_record(claim_path(key).read_bytes())
    except OSError:
        return False
    return state.kind == HELD and holder_alive(state) is True and _stuck(key, state)


def _stuck(key: str, state: LockStatus) -> bool:
    import time

    from pi_memory.fs.lock import holder_alive

    if state.pid is None or holder_alive(state) is not True:
        return False  # only a holder on this host is judged, and a dead one is not stuck
    deadline = deadline_of(key, state.pid)
    return deadline is not None and time.time() > deadline + GRACE


def _end_worker(pid: int) -> None:
    """End a stuck worker, if ``pid`` is provably one (its command line says so)."""
    import signal

    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            command = file.read()
    except OSError:
        return  # no way to tell what the process is now: leave it to its own watchdog
    if b"run_worker" in command or b"pi_memory\x00worker" in command:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def wait_turn(key: str) -> bool:
    """Become the one worker waiting for the session's claim; False while another is."""
    from pi_memory.fs.lock import HELD, create_lock_file, format_record, parse_record, this_host

    path = jobs_dir(key) / WAITER_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = format_record(os.getpid(), this_host(), "", "wait")
    for _ in range(2):
        if create_lock_file(path, mine):
            return True
        try:
            state = parse_record(path.read_bytes())
        except OSError:
            continue
        if state.kind == HELD and state.pid is not None:
            from pi_memory.fs.lock import holder_alive

            if holder_alive(state) is not False:
                return False
        try:
            os.unlink(path)  # its waiter is gone
        except OSError:
            pass
    return False


def stop_waiting(key: str) -> None:
    from pi_memory.fs.lock import release_lock_file

    release_lock_file(jobs_dir(key) / WAITER_FILE)


def waiter_alive(key: str) -> bool:
    from pi_memory.fs.lock import HELD, holder_alive, parse_record

    try:
        state = parse_record((jobs_dir(key) / WAITER_FILE).read_bytes())
    except OSError:
        return False
    return state.kind == HELD and holder_alive(state) is not False
