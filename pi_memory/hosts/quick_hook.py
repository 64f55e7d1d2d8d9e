"""A hook answered with ``os`` and ``sys`` alone, from the fast path's note.

The note (:mod:`pi_memory.hosts.fastpath`) holds what an unchanged session
start injects; its ``quick`` block, written with it, says the rest of the
hook is the common case (no background work, no dream reminder, the anchors'
check not due, a notice only for what jobs learned) and where the files are
that such a hook touches. Then a session's start, its end and a turn's end
need nothing of the package but this module: the note's fingerprint and the
block's guards checked by ``stat``, the session's state and the receipt
written, the answer printed. Each import is paid at every agent event, and
``typing``, ``collections``, ``pathlib``, ``re`` and ``json`` cost more than
the interpreter's own start; none is loaded here (JSON is read and written
with the interpreter's ``_json`` accelerator, or ``json`` where it has none).

Anything else (a session with state already, a job's receipt to tell, a log
to set aside, a lock in a layer, another host's note, any doubt) goes to the
full hook with the event as read here. Nothing is written before it is settled
that this module answers.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself is what this module avoids
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from pi_memory.surfacing import Surfaced

#: The ``quick`` block's version: a block this module cannot read is a miss.
VERSION = 2
NOTE_DIRECTORY = "hooks"
LOCK_FILE = ".lock"
_ENV_NAMES = ("HOME", "USERPROFILE")
#: A session id that is its own directory name (:func:`pi_memory.session.dirs.session_key`).
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
_DAY_SECONDS = 86_400
#: A compaction's moment is never this module's: its handoff is the full hook's.
_MOMENTS = ("start", "prompt", "end", "turn_end")
#: The fields of a session's state a start changes (:class:`pi_memory.session.state.SessionState`).
_STATE_FIELDS = ("frozen", "reinject", "watch", "surfaced")
#: The ids a receipt names at most (:data:`pi_memory.receipts.MAX_IDS`).
_MAX_IDS = 64
#: 64-bit FNV-1a (:func:`note_stem`).
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_FNV_MASK = 0xFFFFFFFFFFFFFFFF


class Miss(Exception):
    """Not the common case: the full hook answers."""


def note_stem(cwd: str) -> str:
    """The file name (without suffix) of the note of the working directory ``cwd``: its
    64-bit FNV-1a hash, in hex. Every hook and MCP server start works it out, and a hash
    from ``zlib`` would load that module's shared library for a few dozen bytes (a note
    names its own directory: two directories whose names hash alike share no note)."""
    stem = _FNV_OFFSET
    for byte in cwd.encode("utf-8", "surrogateescape"):
        stem = ((stem ^ byte) * _FNV_PRIME) & _FNV_MASK
    return f"{stem:016x}"


def launcher_argv() -> tuple[str, str, str]:
    """This interpreter and this package (or the .pyz it runs from), as a hook runs them
    (:func:`pi_memory.launcher.this_package`, with ``os.path`` only)."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    target = here
    while not os.path.exists(target) and target != os.path.dirname(target):
        target = os.path.dirname(target)  # a zipapp: up to the archive file itself
    python = os.path.realpath(sys.executable) if sys.executable else "python3"
    return (python, "-S", target)


def environment(env: Mapping[str, str], key_names: Iterable[str]) -> list[str]:
    """The configuring environment as a note compares it (key variables by presence only)."""
    from pi_memory import env_names

    own = sorted(
        f"{k}={v}"
        for k, v in env.items()
        if k in _ENV_NAMES or k.startswith((env_names.PREFIX, "XDG_"))
    )
    launcher = f"launcher={' '.join(launcher_argv())}"
    return [*own, launcher, *(f"{name}?{bool(env.get(name))}" for name in sorted(key_names))]


def stats(paths: Iterable[str]) -> list[list[Any]]:
    """Each path's ``[path, mtime_ns, size, inode, ctime_ns]`` (``[path]``: absent).

    The change time catches what the others miss: a same-size edit in place whose
    modification time was set back (``touch -r``, a tool that keeps times). Nothing catches
    two same-size edits in place within one tick of the file system's clock (a few
    milliseconds): both times are read from that clock. An editor's save that writes a new
    file and renames it changes the inode."""
    out: list[list[Any]] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append([path])
            continue
        out.append([path, st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns])
    return out


def safe_session(session_id: str) -> bool:
    """Whether ``session_id`` is its own directory name."""
    return 0 < len(session_id) <= 100 and set(session_id) <= _SAFE and session_id[0] != "."


def stamp(seconds: float) -> str:
    """A receipt's time (:func:`pi_memory.receipts.stamp`)."""
    import time

    local = time.localtime(seconds)
    offset = local.tm_gmtoff or 0
    sign = "-" if offset < 0 else "+"
    offset = abs(offset)
    zone = f"{sign}{offset // 3600:02d}:{offset % 3600 // 60:02d}"
    return time.strftime("%Y-%m-%dT%H:%M:%S", local) + zone


# -- JSON without the json package -----------------------------------------------------------


def loads(text: str) -> object:
    """``json.loads(text)`` (:func:`pi_memory.json_input.parse`); ``ValueError`` for what
    it refuses."""
    from pi_memory.json_input import parse

    return parse(text)


def ascii_string(text: str) -> str:
    """A JSON string as ``json.dumps`` writes it (ASCII)."""
    try:
        from _json import encode_basestring_ascii
    except ImportError:
        import json

        return json.dumps(text)
    return str(encode_basestring_ascii(text))


def _utf8_string(text: str) -> str:
    """A JSON string as ``json.dumps(..., ensure_ascii=False)`` writes it."""
    try:
        from _json import encode_basestring
    except ImportError:
        import json

        return json.dumps(text, ensure_ascii=False)
    return str(encode_basestring(text))


# -- the hook ----------------------------------------------------------------------------------


def run(host: str, event: str) -> tuple[bool, str | None]:
    """``(True, _)`` when the hook of ``--host HOST EVENT`` was answered here; else
    ``(False, the event's text read from stdin, or None when stdin was not read)``."""
    from pi_memory import env_names
    from pi_memory.hosts import MOMENTS, canonical

    moment = MOMENTS.get(canonical(event), "")
    if moment not in _MOMENTS or os.environ.get(env_names.MODEL_CHILD):
        return False, None
    stream = sys.stdin
    if stream is None or stream.isatty():
        return False, None
    raw = stream.read()
    try:
        answer = _answer(moment, host, raw)
    except (Miss, OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return False, raw
    if answer:
        try:
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            pass  # a host that closed its pipe: the hook still exits 0
    return True, raw


def _answer(moment: str, host: str, raw: str) -> str:
    """What to print (``""``: nothing), the session's state and receipt written;
    :class:`Miss` (or any ``OSError``/``ValueError`` before a write) when not answered here."""
    import time

    payload = loads(raw) if raw.strip() else {}
    if not isinstance(payload, dict):
        raise Miss
    text = {k: v for k, v in payload.items() if isinstance(v, str)}
    started = time.monotonic()
    sid, transcript = text.get("session_id", ""), text.get("transcript_path", "")
    cwd = text.get("cwd") or os.getcwd()
    note, quick = _note(cwd, host, moment)  # a host of the registry: the note names it
    if moment == "prompt":
        return _prompt(note, quick, cwd, text, started)
    if moment != "start" and (not sid or not transcript):
        return ""  # nothing to hand on
    if moment == "end":
        if quick["everyRequest"]:
            _settle_at_end(quick, sid, transcript)
        return ""
    if moment == "turn_end":
        if quick["everyRequest"]:
            raise Miss
        if "prompt" not in quick["events"]:
            _notice(note, quick, None)
        return ""
    if quick["plainText"] and payload.get("tools") is True:  # :func:`.events.wants_tools`
        listed = quick["tools"]
        if not isinstance(listed, str) or not listed.isascii() or not listed:
            raise Miss
        return listed + "\n" + _start(note, quick, host, text, started)
    return _start(note, quick, host, text, started)


def _settle_at_end(quick: dict[str, Any], sid: str, transcript: str) -> None:
    """Gemini CLI, whose pre-compression hook fires before every model request and is not
    hooked: each prompt marks where the chat recording ends
    (:func:`pi_memory.session.moments.watch`), and a session's end settles a waiting mark
    here when the chat went on without a compression since (the full hook reads a
    compression's records)."""
    directory = os.path.join(quick["sessions"], sid)
    if not safe_session(sid):
        raise Miss
    watch = _fields(_state_on_disk(directory, quick["stateFiles"][0]))["watch"]
    if watch is not None:
        if _maybe_restarted(transcript, watch):
            raise Miss  # maybe a compression to settle
        _save_state(directory, quick["stateFiles"], {"watch": None})  # settled: none


def _marked(quick: dict[str, Any], before: Mapping[str, Any], transcript: str) -> dict[str, Any]:
    """Gemini CLI (:func:`_settle_at_end`): a prompt settles the last prompt's mark when the
    chat went on without a compression since, and marks where the recording ends now; the
    state's change (``{}``: none). A compression to settle is a miss."""
    if not quick["everyRequest"]:
        return {}
    watch = before["watch"]
    if watch is not None and _maybe_restarted(transcript, watch):
        raise Miss  # maybe a compression: the full hook settles it
    if not transcript:
        return {} if watch is None else {"watch": None}
    try:
        size = os.stat(transcript).st_size
    except OSError:
        size = 0
    return {} if size == watch else {"watch": size}


def noted_tools() -> str | None:
    """What ``tool --list`` prints here (a JSON array), from the note of the working
    directory when it still holds; ``None``: work it out."""
    try:
        _, quick = _note(os.getcwd(), "", "")
        listed = quick["tools"]
    except (Miss, OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    return listed if isinstance(listed, str) and listed.isascii() and listed else None


def _maybe_restarted(transcript: str, mark: int) -> bool:
    """Whether what Gemini CLI appended to its chat recording since ``mark`` may begin a new
    chat (:func:`pi_memory.transcripts.gemini.restarted`: a ``$set`` of the ``sessionId``):
    a turn's records never name that key, so without the word (nor an escape that might
    spell it) nothing was compressed; nor when the recording cannot be read (as the full
    hook has it)."""
    try:
        with open(transcript, "rb") as chat:
            chat.seek(mark)
            appended = chat.read()
    except OSError:
        return False
    return b"sessionId" in appended or b"\\u" in appended


def tool_list() -> bool:
    """``tool --list`` (what pi's extension asks at every session's start) answered from
    the note of the working directory, when it still holds: True when printed."""
    listed = noted_tools()
    if listed is None:
        return False
    try:
        sys.stdout.write(listed + "\n")
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    return True


def _note(cwd: str, host: str, moment: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The note of ``cwd`` and its ``quick`` block, if both still hold for ``host`` (any
    host when ``""``) and ``moment`` (none when ``""``)."""
    import time

    from pi_memory.fs.cache_home import cache_home

    path = os.path.join(cache_home(), NOTE_DIRECTORY, note_stem(cwd) + ".json")
    with open(path, encoding="utf-8") as handle:
        note = loads(handle.read())
    if not isinstance(note, dict) or note.get("cwd") != cwd:
        raise Miss
    quick = note.get("quick")
    if not isinstance(quick, dict) or quick.get("v") != VERSION:
        raise Miss
    if (host and quick.get("host") != host) or (moment and moment not in quick["events"]):
        raise Miss
    if note["day"] != time.strftime("%Y-%m-%d"):
        raise Miss
    if note["env"] != environment(os.environ, note["keyNames"]):
        raise Miss
    for recorded in (note["stats"], quick["guards"]):
        if any(os.path.basename(p[0]) == LOCK_FILE for p in recorded):
            raise Miss
        if stats(p[0] for p in recorded) != recorded:
            raise Miss
    return note, quick


def _start(
    note: dict[str, Any], quick: dict[str, Any], host: str, text: dict[str, str], started: float
) -> str:
    """A session start's answer, after its state and receipt are written."""
    _startable(note, quick)
    sid = text.get("session_id", "")
    source = text.get("source", text.get("trigger", ""))
    directory = os.path.join(quick["sessions"], sid)
    if sid and not safe_session(sid):
        raise Miss
    data = _state_on_disk(directory, quick["stateFiles"][0]) if sid else {}
    changes, shown = start_state(
        data, source, note["injection"], quick["atPrompt"], quick["replays"]
    )
    event_name = text.get("hook_event_name") or quick["events"]["start"]
    answer = ""
    if shown and event_name in quick["contextEvents"]:
        answer = shown if quick["plainText"] else _envelope(event_name, shown)
    if quick["plainText"] and answer:
        from pi_memory.inject.terminal import visible

        answer = visible(answer)
    log = quick["log"]
    told = _nothing_to_tell(note, quick, log)
    if sid and changes:
        _save_state(directory, quick["stateFiles"], changes)
    _append(log, _receipt(host, sid, shown, started, source))
    if told is not None:
        try:
            _notice(note, quick, told)
        except OSError:
            pass  # the log went away since: the next hook tells from its end
    return answer


def _startable(note: dict[str, Any], quick: dict[str, Any]) -> None:
    """:class:`Miss` unless a session's start has nothing to do but what this module does."""
    import time

    if not note["refreshed"] or time.time() - os.stat(quick["pruneMark"]).st_mtime >= _DAY_SECONDS:
        raise Miss  # MEMORY.md not rewritten since, or the daily pruning is due


def _prompt(
    note: dict[str, Any], quick: dict[str, Any], cwd: str, text: dict[str, str], started: float
) -> str:
    """A prompt's answer (:func:`pi_memory.hosts.lifecycle.on_prompt`) in the common case,
    after its state and receipts are written: the scorer alone picks (no side-query model)
    from the corpus kept beside the note, no compression mark waits, and the turn before
    it has nothing to start (the block is written only while no background work may)."""
    sid, prompt = text.get("session_id", ""), text.get("prompt", "")
    if not sid or not safe_session(sid) or "<" in prompt or note["sideQuery"]:
        raise Miss  # Gemini's -p may put context in front of the prompt: the full hook cuts it
    if not note["corpus"]:
        raise Miss  # the full hook builds it
    directory = os.path.join(quick["sessions"], sid)
    data = _state_on_disk(directory, quick["stateFiles"][0])
    before = _fields(data)
    host = quick["host"]
    begins = quick["firstPromptStarts"] and before["frozen"] is None
    begun: dict[str, object] = {}
    if begins:  # :func:`pi_memory.hosts.lifecycle.on_prompt`: this prompt starts the session
        _startable(note, quick)
        begun, _ = start_state(data, "startup", note["injection"], True, quick["replays"])
        before = _fields({**data, **begun})
    marked = _marked(quick, before, text.get("transcript_path", ""))
    if not prompt.strip() and not before["reinject"]:
        if marked:
            _save_state(directory, quick["stateFiles"], {**begun, **marked})
        return ""
    log = quick["log"]
    told = _nothing_to_tell(note, quick, log)
    after = dict(before, **marked)
    index = ""
    if before["reinject"]:  # :func:`pi_memory.session.moments.prompt_index`
        frozen = before["frozen"] if before["reinject"] == "frozen" else None
        index = note["injection"] if frozen is None else frozen
        after.update(frozen=index, reinject="")
    found = _surfaced(note, cwd, prompt, before["surfaced"], index) if prompt.strip() else None
    parts = [index] if index else []
    if found is not None and found.text:
        parts.append(found.text)
        shown = before["surfaced"]  # :func:`pi_memory.session.moments.surfaced`
        after["surfaced"] = shown + [i for i in found.ids if i not in shown]
    if begins:  # the start's receipt (:func:`pi_memory.hosts.lifecycle.on_start`) first
        _append(log, _receipt(host, sid, "", started, "startup"))
    if index:
        _append(log, _receipt(host, sid, index, started, "prompt"))
    if found is not None:
        event = ("surface", found.ids)
        _append(log, _receipt(host, sid, found.text, started, found.via, event=event))
    if told is not None:
        try:
            _notice(note, quick, told)
        except OSError:
            pass  # the log went away since: the next hook tells from its end
    changes = {**begun, **{k: v for k, v in after.items() if before[k] != v}}
    if changes:
        _save_state(directory, quick["stateFiles"], changes)
    context = "\n\n".join(parts)
    event_name = text.get("hook_event_name") or quick["events"]["prompt"]
    if not context or event_name not in quick["contextEvents"] or quick["plainText"]:
        return ""
    return _envelope(event_name, context)


def _surfaced(note: dict[str, Any], cwd: str, prompt: str, skip: list[str], index: str) -> Surfaced:
    """The scorer's pick for ``prompt`` (:func:`pi_memory.hosts.lifecycle._surface`
    without a side-query model), from the corpus kept beside the note, in what the
    context holds besides the ``index`` it carries."""
    from pi_memory.fs.cache_home import cache_home
    from pi_memory.hosts.corpus_cache import SUFFIX, load
    from pi_memory.surfacing import Limits, beside, surface

    corpus = load(os.path.join(cache_home(), NOTE_DIRECTORY, note_stem(cwd) + SUFFIX))
    if corpus is None:
        raise Miss
    caps = Limits(*note["limits"])
    caps = beside(caps, index, note["maxContext"], note["maxBytes"])
    return surface(corpus, prompt, caps, skip=skip, env=os.environ)


def _envelope(event_name: str, context: str) -> str:
    """The JSON a host that reads JSON takes (:func:`pi_memory.hosts.events.render`)."""
    return (
        '{"hookSpecificOutput": {"hookEventName": '
        + ascii_string(event_name)
        + ', "additionalContext": '
        + ascii_string(context)
        + "}}"
    )


def _state_on_disk(directory: str, state_file: str) -> dict[str, Any]:
    """The session's ``state.json`` (``{}``: a new session); a directory holding anything
    else (an older layout's files, a patch, a lock) is a miss."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return {}
    if names not in ([], [state_file]):
        raise Miss
    return _read_state(os.path.join(directory, state_file))


def _read_state(path: str) -> dict[str, Any]:
    """What ``path`` holds (missing or damaged: ``{}``, as the state's own reader has it)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            data = loads(handle.read())
    except (FileNotFoundError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def start_state(
    data: Mapping[str, object], source: str, injection: str, at_prompt: bool, replays: bool
) -> tuple[dict[str, object], str]:
    """:func:`pi_memory.session.moments.started` on the state ``data`` holds: the fields it
    changes, as :func:`pi_memory.session.state.encode` writes them, and the text it injects."""
    before = _fields(data)
    frozen = before["frozen"]
    after = dict(before, reinject="", watch=None)
    if source == "resume" and isinstance(frozen, str):
        shown = "" if replays else frozen
    else:
        after.update(frozen=injection, surfaced=before["surfaced"] if source == "resume" else [])
        shown = injection
    if at_prompt:
        after["reinject"], shown = "frozen", ""
    return {k: v for k, v in after.items() if before[k] != v}, shown


def _fields(data: Mapping[str, object]) -> dict[str, Any]:
    """The fields of a session's state a start or a prompt changes, read as
    :func:`pi_memory.session.state.decode` reads them (a wrong type: the default)."""
    frozen, reinject, watch, surfaced = (data.get(k) for k in _STATE_FIELDS)
    exact = isinstance(watch, int) and not isinstance(watch, bool) and watch >= 0
    return {
        "frozen": frozen if isinstance(frozen, str) else None,
        "reinject": reinject if reinject in ("fresh", "frozen") else "",
        "watch": watch if exact else None,
        "surfaced": [i for i in surfaced if isinstance(i, str)]
        if isinstance(surfaced, list)
        else [],
    }


def _save_state(directory: str, files: list[str], changes: Mapping[str, object]) -> None:
    """:func:`pi_memory.session.state.save`: the changed fields over what is on disk, under
    the session's lock taken at once (busy: a miss, nothing written)."""
    state_file, lock_file = files
    os.makedirs(directory, exist_ok=True)
    lock = os.path.join(directory, lock_file)
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        raise Miss from None
    try:
        if sorted(os.listdir(directory)) not in ([lock_file], sorted(files)):
            raise Miss  # a patch or an older layout came meanwhile: the full hook folds it
        data = _read_state(os.path.join(directory, state_file))
        data.update(changes)
        temp = os.path.join(directory, f".{state_file}.{os.getpid()}.tmp")
        with open(temp, "wb") as out:
            out.write(dumps(data).encode("utf-8", "surrogateescape"))
        os.replace(temp, os.path.join(directory, state_file))
    finally:
        os.unlink(lock)


class Encoded:
    """A value already written as JSON (as ``json.dumps`` writes it), which :func:`dumps`
    puts in as it is: what was encoded once need not be read and encoded again."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def dumps(value: object, *, ascii_only: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=ascii_only)`` of plain values (strings, numbers,
    ``None``, lists, tuples, dicts with string keys, :class:`Encoded` text); ``ValueError``
    for anything else, a float that is not finite and non-ASCII ``Encoded`` text where
    ``ascii_only`` included."""
    if isinstance(value, str):
        return ascii_string(value) if ascii_only else _utf8_string(value)
    if isinstance(value, Encoded):
        if ascii_only and not value.text.isascii():
            raise ValueError("encoded text that is not ASCII")
        return value.text
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        import math

        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(dumps(v, ascii_only=ascii_only) for v in value) + "]"
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("a key that is not a string")
        return (
            "{"
            + ", ".join(
                f"{dumps(k, ascii_only=ascii_only)}: {dumps(v, ascii_only=ascii_only)}"
                for k, v in value.items()
            )
            + "}"
        )
    raise ValueError(f"not a plain value: {type(value).__name__}")


def _receipt(
    host: str,
    sid: str,
    text: str,
    started: float,
    source: str,
    *,
    event: tuple[str, Sequence[str]] = ("inject", ()),
) -> bytes:
    """A hook's receipt line (:func:`pi_memory.receipts.encode`): the index put in (the
    default), or ``event``'s name and the ids it names."""
    import time

    size = len(text.encode("utf-8", "surrogatepass"))
    name, ids = event
    listed = ",".join(ascii_string(i) for i in ids[:_MAX_IDS])
    fields = [
        f'"at":{ascii_string(stamp(time.time()))}',
        f'"host":{ascii_string(host)}',
        f'"session":{ascii_string(sid)}',
        f'"kind":"hook","event":{ascii_string(name)},"layers":[],"ids":[{listed}]',
        f'"bytes":{size if text else 0},"tokens":{(size + 3) // 4 if text else 0},"spent":0',
        f'"ms":{max(0, round((time.monotonic() - started) * 1000))}',
        f'"outcome":{ascii_string("ok" if text else "nothing")}',
        f'"note":{ascii_string(" ".join(source.split())[:200])}',
    ]
    return ("{" + ",".join(fields) + "}\n").encode("ascii")


def _append(log: str, line: bytes) -> None:
    """One ``write`` of one line, as :func:`pi_memory.receipts.append`; never raises."""
    try:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        os.write(fd, line)
    except OSError:
        pass
    finally:
        os.close(fd)


def _nothing_to_tell(
    note: dict[str, Any], quick: dict[str, Any], log: str
) -> tuple[int, int] | None:
    """How far the last notice looked (``None``: notices are off), once it is sure the
    log needs no setting aside and no job waits to be told about; else :class:`Miss`."""
    if os.stat(log).st_size >= quick["logCap"]:
        raise Miss  # the full hook sets the log aside
    told = _told(quick["told"]) if note["notice"] != "off" else None
    if told is not None and _jobs_since(log, told)[0]:
        raise Miss  # a job to tell the person about
    return told


def _told(path: str) -> tuple[int, int]:
    """How far the last notice looked (:func:`pi_memory.hosts.hook_receipts._told`). Read as
    bytes, which ``int`` takes as the ASCII text they are: a text file's ASCII codec is a
    module of its own, loaded for these 42 bytes alone."""
    try:
        with open(path, "rb") as handle:
            inode, offset = (int(n) for n in handle.read().split())
    except (OSError, ValueError):
        return (0, 0)
    return (inode, offset) if inode >= 0 and offset >= 0 else (0, 0)


def _jobs_since(log: str, position: tuple[int, int]) -> tuple[bool, tuple[int, int]]:
    """Whether a job's receipt was logged since ``position``, and the position after the
    log's last whole line (:func:`pi_memory.receipts.read_after`)."""
    with open(log, "rb") as handle:
        found = os.fstat(handle.fileno())
        inode, size = found.st_ino, found.st_size
        if position == (0, 0):
            return False, (inode, size)
        start = position[1] if position[0] == inode and position[1] <= size else 0
        handle.seek(start)
        data = handle.read(size - start)
    whole = data[: data.rfind(b"\n") + 1]
    # A hook's receipt never holds the word unescaped where a kind is: only a job's does.
    return b'"kind":"job"' in whole, (inode, start + len(whole))


def _notice(note: dict[str, Any], quick: dict[str, Any], before: tuple[int, int] | None) -> None:
    """Move the notices' position past what hooks logged since; a job's receipt there is a
    miss before anything was written (``before`` is None), and otherwise is left for the
    next hook to tell."""
    if note["notice"] == "off":
        return
    told = quick["told"]
    start = _told(told) if before is None else before
    jobs, after = _jobs_since(quick["log"], start)
    if jobs:
        if before is None:
            raise Miss
        return
    if after == start:
        return
    line = f"{after[0]:020d} {after[1]:020d}\n".encode("ascii")
    try:
        fd = os.open(told, os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        return
