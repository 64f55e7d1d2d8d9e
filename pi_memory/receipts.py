"""Receipts: one line per thing the memory did for the user, in a log of the user's own.

Every hook that puts memories into the prompt (``inject`` at session start,
``surface`` at a prompt) or hands work to the background (``schedule``), and
every background job when it finishes, appends one :class:`Receipt`: when,
which host and session, what it was, the memories involved, the bytes and
estimated tokens it put into the prompt, the model tokens it spent, how long
it took, and how it ended. ``log`` lists them, ``show`` sums up today's,
``doctor`` reads each host's last one, and a hook may tell the user in one
line (:func:`notice_line`).

The log is ``<state home>/receipts/receipts.jsonl`` (:mod:`pi_memory.fs.state_home`),
one JSON object a line. A hook never waits for it: an append is one ``write``
of one whole line on an ``O_APPEND`` descriptor (concurrent writers interleave
whole lines, no lock), and nothing that goes wrong with the log fails the
caller. Past :data:`MAX_BYTES` the log is renamed aside (the newest
:data:`KEEP` such files are kept and read); a log that cannot be opened, or
that holds more damaged lines than good ones, is renamed aside as
``*.unreadable`` and a new one started. A damaged or partial line is skipped
when read.

The record and the rules over it (:func:`encode`, :func:`decode`,
:func:`matches`, :func:`summarise`, :func:`notice_line`) are pure; the I/O is
:func:`append` and :func:`read` at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: A hook's receipt, and a background job's.
HOOK: Final = "hook"
JOB: Final = "job"
KINDS: Final = (HOOK, JOB)
#: A hook's events: the injected index put in at session start, memories surfaced for a
#: prompt, background work handed to the worker. A job's event is its kind (``review``,
#: ``handoff``, ``flush``, ``consolidate`` …).
INJECT: Final = "inject"
SURFACE: Final = "surface"
SCHEDULE: Final = "schedule"
#: The jobs whose written memories count as learned.
LEARNING_JOBS: Final = ("review", "handoff", "flush")
#: Outcomes: done; done and nothing to do; not done.
OK: Final = "ok"
NOTHING: Final = "nothing"
FAILED: Final = "failed"

DIRECTORY: Final = "receipts"
NAME: Final = "receipts.jsonl"
#: The log is set aside past this size.
MAX_BYTES: Final = 1 << 20
#: Set-aside logs kept (and read), and unreadable ones kept for a person to look at.
KEEP: Final = 4
ASIDE_PREFIX: Final = "receipts-"
UNREADABLE: Final = ".unreadable"
#: At most this many memory ids in one receipt, and characters of its note.
MAX_IDS: Final = 64
MAX_NOTE: Final = 200


class Receipt(NamedTuple):
    """One thing the memory did: a hook's work or a finished background job."""

    #: Local time, ``YYYY-MM-DDTHH:MM:SS±HH:MM``.
    at: str
    host: str
    session: str
    #: :data:`HOOK` or :data:`JOB`.
    kind: str
    #: What it was: :data:`INJECT`, :data:`SURFACE`, :data:`SCHEDULE`, or the job's kind.
    event: str
    #: The layers the memories below are in.
    layers: tuple[str, ...] = ()
    #: The memories put into the prompt (a hook) or written (a job).
    ids: tuple[str, ...] = ()
    #: Bytes put into the prompt, and their estimated tokens (:func:`estimate_tokens`).
    bytes: int = 0
    tokens: int = 0
    #: Model tokens spent (in and out).
    spent: int = 0
    #: How long it took, in milliseconds.
    ms: int = 0
    outcome: str = OK
    #: One short line: what a job did or why it failed, what a hook scheduled.
    note: str = ""

    @property
    def day(self) -> str:
        """The local day, ``YYYY-MM-DD``."""
        return self.at[:10]

    @property
    def learned(self) -> int:
        """Memories this receipt learned: those a review, handoff or flush wrote."""
        learning = self.kind == JOB and self.event in LEARNING_JOBS and self.outcome == OK
        return len(self.ids) if learning else 0

    @property
    def recalled(self) -> int:
        """Memories this receipt put into the prompt for a prompt."""
        return len(self.ids) if self.kind == HOOK and self.event == SURFACE else 0


class Filter(NamedTuple):
    """Which receipts to keep; an empty field keeps every receipt."""

    session: str = ""
    host: str = ""
    layer: str = ""
    kind: str = ""
    event: str = ""
    #: A memory's id: receipts that name it.
    memory: str = ""
    #: Seconds since the epoch: receipts from then on (0: all).
    since: float = 0.0


class Summary(NamedTuple):
    """What a set of receipts add up to (``show``'s paragraph, the notice)."""

    receipts: int = 0
    #: Injected indexes put into a prompt.
    injected: int = 0
    recalled: int = 0
    learned: int = 0
    #: Bytes and estimated tokens put into prompts.
    bytes: int = 0
    tokens: int = 0
    spent: int = 0
    jobs: int = 0
    failed: int = 0
    sessions: int = 0


# -- rules -------------------------------------------------------------------------------------


def stamp(seconds: float) -> str:
    """``seconds`` as local time with its offset, like the spend ledger's (no datetime import)."""
    import time

    local = time.localtime(seconds)
    offset = local.tm_gmtoff or 0
    sign = "-" if offset < 0 else "+"
    offset = abs(offset)
    zone = f"{sign}{offset // 3600:02d}:{offset % 3600 // 60:02d}"
    return time.strftime("%Y-%m-%dT%H:%M:%S", local) + zone


def seconds_of(at: str) -> float | None:
    """A receipt's time as seconds since the epoch (``None``: not a time)."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(at).timestamp()
    except ValueError:
        return None


def since_seconds(text: str, now: float) -> float | None:
    """``log --since``'s value as seconds since the epoch (``None``: not understood):
    ``today``, ``yesterday``, ``30m``, ``2h``, ``7d``, or a local date or time
    (``2026-03-14``, ``2026-03-14T09:30``)."""
    import time
    from datetime import datetime

    word = text.strip().lower()
    if word in ("today", "yesterday"):
        local = time.localtime(now)
        midnight = time.mktime((*local[:3], 0, 0, 0, 0, 0, -1))
        return midnight - (86400 if word == "yesterday" else 0)
    units = {"m": 60, "h": 3600, "d": 86400}
    if len(word) > 1 and word[-1] in units and word[:-1].isdigit():
        return now - int(word[:-1]) * units[word[-1]]
    try:
        return datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        return None


def estimate_tokens(text: str) -> int:
    """A rough token count of ``text`` put into a prompt: one per four UTF-8 bytes, rounded up."""
    return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4


def made(
    kind: str,
    event: str,
    *,
    host: str = "",
    session: str = "",
    text: str = "",
    started: float | None = None,
    seconds: float | None = None,
    **fields: object,
) -> Receipt:
    """A receipt stamped now (or at ``seconds``): ``text`` is what went into the prompt (its
    bytes and tokens are counted), ``started`` a ``time.monotonic()`` reading (its duration
    is counted); the other fields as :class:`Receipt` names them."""
    import time

    counted: dict[str, object] = {}
    if text:
        counted = {
            "bytes": len(text.encode("utf-8", "surrogatepass")),
            "tokens": estimate_tokens(text),
        }
    if started is not None:
        counted["ms"] = max(0, round((time.monotonic() - started) * 1000))
    at = stamp(time.time() if seconds is None else seconds)
    return Receipt(at, host, session, kind, event, **{**counted, **fields})  # type: ignore[arg-type]


def encode(receipt: Receipt) -> str:
    """One JSON line (ASCII, keys in a fixed order), ending in a newline."""
    import json

    r = receipt
    record = {
        "at": r.at,
        "host": r.host,
        "session": r.session,
        "kind": r.kind,
        "event": r.event,
        "layers": list(r.layers),
        "ids": list(r.ids[:MAX_IDS]),
        "bytes": r.bytes,
        "tokens": r.tokens,
        "spent": r.spent,
        "ms": r.ms,
        "outcome": r.outcome,
        "note": _one_line(r.note)[:MAX_NOTE],
    }
    return json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def as_json(receipt: Receipt) -> dict[str, object]:
    """The receipt as the JSON object it is logged as (``log --json``)."""
    import json

    found: dict[str, object] = json.loads(encode(receipt))
    return found


def decode(line: str) -> Receipt | None:
    """The receipt on ``line``; ``None`` for a damaged or partial line."""
    import json

    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    texts = [data.get(key) for key in ("at", "host", "session", "kind", "event", "outcome")]
    if not all(isinstance(t, str) for t in texts) or seconds_of(str(texts[0])) is None:
        return None
    numbers = [data.get(key, 0) for key in ("bytes", "tokens", "spent", "ms")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        return None
    size, tokens, spent, ms = (int(str(n)) for n in numbers)
    layers, ids = data.get("layers", []), data.get("ids", [])
    if not all(isinstance(v, list) and all(isinstance(i, str) for i in v) for v in (layers, ids)):
        return None
    note = data.get("note", "")
    at, host, session, kind, event, outcome = (str(t) for t in texts)
    return Receipt(
        at, host, session, kind, event, tuple(layers), tuple(ids),
        size, tokens, spent, ms, outcome, note if isinstance(note, str) else "",
    )  # fmt: skip


def matches(receipt: Receipt, wanted: Filter) -> bool:
    """Whether ``receipt`` passes every field ``wanted`` sets."""
    r, w = receipt, wanted
    plain = ((w.session, r.session), (w.host, r.host), (w.kind, r.kind), (w.event, r.event))
    if any(want and want != have for want, have in plain):
        return False
    if (w.layer and w.layer not in r.layers) or (w.memory and w.memory not in r.ids):
        return False
    if w.since:
        when = seconds_of(r.at)
        return when is not None and when >= w.since
    return True


def select(receipts: Iterable[Receipt], wanted: Filter) -> list[Receipt]:
    return [r for r in receipts if matches(r, wanted)]


def summarise(receipts: Iterable[Receipt]) -> Summary:
    """The totals of ``receipts``."""
    n = injected = recalled = learned = size = tokens = spent = jobs = failed = 0
    sessions: set[str] = set()
    for r in receipts:
        n += 1
        injected += r.kind == HOOK and r.event == INJECT and r.bytes > 0
        recalled += r.recalled
        learned += r.learned
        size, tokens, spent = size + r.bytes, tokens + r.tokens, spent + r.spent
        jobs += r.kind == JOB
        failed += r.outcome == FAILED
        if r.session:
            sessions.add(r.session)
    return Summary(n, injected, recalled, learned, size, tokens, spent, jobs, failed, len(sessions))


def last_by_host(receipts: Iterable[Receipt]) -> dict[str, Receipt]:
    """Each host's latest receipt (``doctor``: whether its hooks run at all)."""
    last: dict[str, Receipt] = {}
    for r in receipts:
        when = seconds_of(r.at) or 0.0
        before = last.get(r.host)
        if r.host and (before is None or when >= (seconds_of(before.at) or 0.0)):
            last[r.host] = r
    return last


def today_paragraph(summary: Summary) -> str:
    """``show``'s one paragraph about today's receipts."""
    s = summary
    if not s.receipts:
        return "Today: the memory has done nothing yet (no receipts; see 'log')."
    return (
        f"Today: {_count(s.sessions, 'session')}; "
        f"{_count(s.injected, 'injected index', 'injected indexes')} "
        f"and {_count(s.recalled, 'memory', 'memories')} recalled for prompts, {s.bytes} bytes "
        f"(~{s.tokens} tokens) put into prompts; {s.learned} learned by "
        f"{_count(s.jobs, 'background job')}"
        + (f" ({s.failed} failed)" if s.failed else "")
        + f", {s.spent} model tokens spent. Details: log --since today."
    )


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


#: The ``notice`` setting: no line; a line when memories were learned; a line for every
#: receipt worth a word (learned, recalled, failed).
NOTICE_OFF: Final = "off"
NOTICE_LEARNED: Final = "learned"
NOTICE_ALL: Final = "all"


def notice_line(setting: str, receipts: Sequence[Receipt]) -> str:
    """The one line a hook shows the user about ``receipts`` (``""``: nothing to say):
    ``memory: learned 2 · recalled 3, 410 tokens``.

    ``learned``: only when a job learned memories; ``all``: also the index or memories put
    into the prompt (and their estimated tokens) and jobs that failed. Numbers and fixed
    words only: nothing a memory or a model wrote reaches it, so it cannot carry a tag.
    """
    if setting not in (NOTICE_LEARNED, NOTICE_ALL):
        return ""
    s = summarise(receipts)
    parts = [f"learned {s.learned}"] if s.learned else []
    if setting == NOTICE_ALL:
        parts += ["index"] if s.injected else []
        parts += [f"recalled {s.recalled}"] if s.recalled else []
        parts += [f"{s.failed} failed"] if s.failed else []
    if not parts:
        return ""
    tokens = f", {s.tokens} tokens" if setting == NOTICE_ALL and s.tokens else ""
    return "memory: " + " · ".join(parts) + tokens


# -- the log -----------------------------------------------------------------------------------


def directory(env: Mapping[str, str] = os.environ) -> Path:
    from pi_memory.fs.state_home import state_home

    return Path(state_home(env)) / DIRECTORY


def append(receipt: Receipt, env: Mapping[str, str] = os.environ) -> bool:
    """Add ``receipt`` to the log: one ``write`` of one line, no lock. Never raises; False
    when it could not be written (a full disk, no state directory)."""
    where = directory(env)
    line = encode(receipt).encode("ascii")
    fd = -1
    try:
        try:
            fd = _open_for_append(where)
        except OSError:
            if not _set_aside(where / NAME, unreadable=True):
                return False
            fd = _open_for_append(where)
        size = os.fstat(fd).st_size
        if size >= MAX_BYTES and _same_file(fd, where / NAME) and _set_aside(where / NAME):
            os.close(fd)
            fd = -1
            fd = _open_for_append(where)
        return os.write(fd, line) == len(line)
    except OSError:
        return False
    finally:
        if fd >= 0:
            os.close(fd)


def _open_for_append(where: Path) -> int:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(where / NAME, flags, 0o600)
    except FileNotFoundError:
        where.mkdir(parents=True, exist_ok=True)
        return os.open(where / NAME, flags, 0o600)


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file ``fd`` is open on (another writer may have set
    it aside already: then it must not set aside the new one)."""
    try:
        mine, named = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (named.st_dev, named.st_ino)


def _set_aside(path: Path, *, unreadable: bool = False) -> bool:
    """Rename the log to a name of its own (kept: the newest :data:`KEEP` of its kind)."""
    import time

    suffix = UNREADABLE if unreadable else ".jsonl"
    moment = time.strftime("%Y%m%dT%H%M%S", time.localtime())
    target = path.with_name(
        f"{ASIDE_PREFIX}{moment}-{time.time_ns() % 10**9:09d}-{os.getpid()}{suffix}"
    )
    try:
        os.rename(path, target)
    except OSError:
        return False
    for old in _aside(path.parent, suffix)[:-KEEP]:
        try:
            os.unlink(old)
        except OSError:
            pass
    return True


def _aside(where: Path, suffix: str) -> list[Path]:
    """The set-aside logs of one kind, oldest first."""
    try:
        names = sorted(
            n for n in os.listdir(where) if n.startswith(ASIDE_PREFIX) and n.endswith(suffix)
        )
    except OSError:
        return []
    return [where / n for n in names]


def read(wanted: Filter | None = None, env: Mapping[str, str] = os.environ) -> list[Receipt]:
    """The receipts ``wanted`` keeps, oldest first, from the set-aside logs and the log.

    A damaged or partial line is skipped; a log that cannot be read, or holds more
    damaged lines than good ones, is set aside as unreadable (a new one starts with the
    next receipt). Never raises.
    """
    where = directory(env)
    found: list[Receipt] = []
    for path in [*_aside(where, ".jsonl"), where / NAME]:
        found += select(_read_file(path, current=path.name == NAME), wanted or Filter())
    return found


def read_after(
    position: tuple[int, int], env: Mapping[str, str] = os.environ
) -> tuple[list[Receipt], tuple[int, int]]:
    """The receipts appended to the log since ``position`` (the log's inode, bytes read),
    and the position after them. ``(0, 0)`` reads nothing and answers the log's end: a
    session starts looking from there. A log set aside since is read from its start.
    Never raises; reads at most :data:`MAX_BYTES`."""
    try:
        with open(directory(env) / NAME, "rb") as log:
            found = os.fstat(log.fileno())
            inode, size = found.st_ino, found.st_size
            if position == (0, 0):
                return [], (inode, size)
            start = position[1] if position[0] == inode and position[1] <= size else 0
            log.seek(start)
            data = log.read(min(size - start, MAX_BYTES))
    except OSError:
        return [], position
    whole = data[: data.rfind(b"\n") + 1]  # a line still being written waits for next time
    lines = [_decode_bytes(line) for line in whole.split(b"\n") if line.strip()]
    return [r for r in lines if r is not None], (inode, start + len(whole))


def _read_file(path: Path, *, current: bool) -> list[Receipt]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError:
        if current:
            _set_aside(path, unreadable=True)
        return []
    lines = data.split(b"\n")
    whole, partial = lines[:-1], lines[-1]
    good = [r for r in map(_decode_bytes, whole) if r is not None]
    bad = sum(1 for line in whole if line.strip()) - len(good)
    if current and bad > len(good):
        _set_aside(path, unreadable=True)
    last = _decode_bytes(partial) if partial.strip() else None
    return good + ([last] if last is not None else [])


def _decode_bytes(line: bytes) -> Receipt | None:
    """The receipt on ``line``, or the one at its end: a writer cut short mid-line (a full
    disk) leaves a partial line that the next writer's whole line continues."""
    start = line.rfind(b'{"at":')
    try:
        return decode(line[max(start, 0) :].decode("utf-8"))
    except UnicodeDecodeError:
        return None
