"""What a hook remembers about a project: answers valid while nothing they came from changed.

Every hook is a new interpreter, and most of its time goes to loading the
configuration and the store to compute what the previous hook already
computed. So after a hook did the full work for a working directory it leaves
a note in the cache directory: the injection text, the ``autoSurfacing``
caps, whether background work may start, and the scorer's corpus (a marshal
file), together with the *fingerprint* of everything they were computed from:

- the working directory, the day (anything dated is recomputed daily), and the
  environment that configures the package (``HOME``, ``XDG_*``,
  ``PI_MEMORY_*``, and whether each provider's API-key variable is set);
- ``(mtime_ns, size, inode)`` of both ``memory.json`` files, the project's
  ``.git`` and ``.git/config``, both layer directories and every file in
  them (a file added or removed changes its directory), absent ones included.

The next hook stats those paths; if every one is unchanged it answers from
the note without importing the configuration, the store or any layout. Any
difference, a ``.lock`` in a layer directory, or an unreadable note means the
full path, which writes a new note. The note is derived state: deleting it
costs one full hook.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.surfacing import Corpus, Limits

VERSION: Final = 3
DIRECTORY: Final = "hooks"
LOCK_FILE: Final = ".lock"
#: Beside :data:`DIRECTORY`: the notes of the former naming are gone (:func:`prune`).
RENAMED_MARK: Final = ".hooks-renamed"


class Note(NamedTuple):
    injection: str
    #: The injection's character cap (a host with another cap recomputes it).
    max_context: int
    #: Written by a session start after it rewrote the derived files.
    refreshed: bool
    #: ``Limits`` of ``autoSurfacing`` as a plain tuple.
    limits: tuple[bool, int, int, int]
    #: The side-query would run: a prompt hook needs the configuration then.
    side_query: bool
    background: bool
    session_days: int
    review_turns: int
    #: The environment variables whose presence was part of the fingerprint.
    key_names: tuple[str, ...]
    #: pi-memory's dream nudge: the project layer counted at each new session
    #: ("" when the layout is not consolidated by a dream), after N sessions, after N hours.
    dream: tuple[str, int, float] = ("", 0, 0.0)
    #: The injection's cap in UTF-8 bytes (0: none), for a host that counts bytes.
    max_bytes: int = 0
    #: The background model's CLI provider and the program it runs (``("", "")``: none),
    #: checked at every session start: a CLI uninstalled since changes no fingerprint.
    model_command: tuple[str, str] = ("", "")
    #: The side-query's model (``provider/id``): the prompt hook does not ask it, nor load
    #: the configuration, while it is in its back-off (:mod:`pi_memory.model.backoff`).
    surface_model: str = ""
    #: The project layer's directory and the project's root whose anchors a turn's end
    #: checks in the background (``("", "")``: none, see :mod:`pi_memory.anchors`).
    anchors: tuple[str, str] = ("", "")
    #: The ``notice`` setting: what the hooks tell the user (:mod:`pi_memory.receipts`).
    notice: str = "learned"


def _files(cwd: Path) -> tuple[Path, Path]:
    """The note of ``cwd`` and the corpus kept beside it."""
    from pi_memory.hosts.corpus_cache import SUFFIX

    note_file = _note_file(cwd)
    return note_file, note_file.with_suffix(SUFFIX)


def _note_file(cwd: Path) -> Path:
    """The note of ``cwd`` (its corpus is :func:`_files`'s: a write renders the note alone)."""
    from pi_memory.fs.cache_home import cache_home
    from pi_memory.hosts.quick_hook import note_stem

    return Path(cache_home()) / DIRECTORY / f"{note_stem(str(cwd))}.json"


def environment(env: Mapping[str, str], key_names: Iterable[str]) -> list[str]:
    """The configuring environment as compared (key variables by presence only); the
    injection names the command that runs this package: another copy, another note."""
    from pi_memory.hosts import quick_hook

    return quick_hook.environment(env, key_names)


def stats(paths: Iterable[str]) -> list[list[Any]]:
    """Each path's identity now (:func:`pi_memory.hosts.quick_hook.stats`)."""
    from pi_memory.hosts import quick_hook

    return quick_hook.stats(paths)


def watched(directories: Sequence[Path], extra: Iterable[Path | str]) -> list[str] | None:
    """Every path the answers depend on; ``None`` when a layer is locked (no note then)."""
    paths = [str(p) for p in extra]
    for directory in directories:
        paths.append(str(directory))
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        if LOCK_FILE in names:
            return None
        paths.extend(str(directory / name) for name in names)
    return paths


def _read(cwd: Path, env: Mapping[str, str], day: str) -> tuple[Note, dict[str, Any]] | None:
    """The note for ``cwd`` and its raw record, if written on ``day`` under ``env``."""
    import json

    note_file = _note_file(cwd)
    try:
        data = json.loads(note_file.read_text("utf-8"))
        if data["v"] != VERSION or data["cwd"] != str(cwd) or data["day"] != day:
            return None
        note = Note(
            data["injection"],
            data["maxContext"],
            data["refreshed"],
            tuple(data["limits"]),
            data["sideQuery"],
            data["background"],
            data["sessionDays"],
            data["reviewTurns"],
            tuple(data["keyNames"]),
            tuple(data.get("dream") or ("", 0, 0.0)),
            data.get("maxBytes", 0),
            tuple(data.get("modelCommand") or ("", "")),
            data.get("surfaceModel", ""),
            tuple(data.get("anchors") or ("", "")),
            data.get("notice", "learned"),
        )
        if data["env"] != environment(env, note.key_names):
            return None
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    return note, data


def lookup(cwd: Path, env: Mapping[str, str], day: str) -> tuple[Note, Path | None] | None:
    """The note for ``cwd`` and its corpus file (``None``: not built yet), if the
    fingerprint still holds."""
    found = _read(cwd, env, day)
    if found is None:
        return None
    note, data = found
    try:
        recorded = data["stats"]
        if stats(p[0] for p in recorded) != recorded:
            return None
        if any(Path(p[0]).name == LOCK_FILE for p in recorded):
            return None
        with_corpus = data.get("corpus") is True
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    return note, _files(cwd)[1] if with_corpus else None


class Ready(NamedTuple):
    """What a note says of the index kept ready for it (:mod:`pi_memory.ready_index`)."""

    #: The ready index's signature.
    signature: str
    #: The layer directories.
    directories: tuple[str, ...]
    #: How many of the fingerprint's paths come before the directories' (the other inputs).
    inputs: int
    #: The paths whose change touches only the injection: the layer directories and
    #: what is in them, and this user's trust record of the project layer.
    soft: tuple[str, ...]


class Stale(NamedTuple):
    note: Note
    ready: Ready
    #: The fingerprint of the note's paths now.
    fingerprint: list[list[Any]]
    #: The host whose hooks the note's ``quick`` block is for (``""``: none).
    host: str = ""
    #: Whether anything changed since the note was written.
    changed: bool = True
    #: The tools the note's ``quick`` block lists (``""``: none recorded): they follow
    #: from the configuration and the environment, which a stale note has unchanged.
    tools: str = ""
    #: The note's ``quick`` block as written (``None``: none). All of it but its guards
    #: follows from the host, the package and the environment, which a stale note has
    #: unchanged (:func:`quick_block` takes it as ``kept``).
    quick: Mapping[str, object] | None = None


def stale(cwd: Path, env: Mapping[str, str], day: str) -> Stale | None:
    """The note for ``cwd`` when nothing it was worked out from changed but what only the
    injection reads (the layer directories' files, the trust record): its other answers
    still hold, and the injection can be rendered from the ready index. The directories
    must hold the same names as then (a new file, or a ``.lock``, is a miss)."""
    found = _read(cwd, env, day)
    if found is None:
        return None
    note, data = found
    try:
        ready = Ready(data["ready"], tuple(data["dirs"]), data["inputs"], tuple(data["soft"]))
        recorded = data["stats"]
        paths = [p[0] for p in recorded]
        now = watched([Path(d) for d in ready.directories], paths[: ready.inputs])
        if not ready.signature or now != paths:
            return None
        fingerprint = stats(now)
        soft = set(ready.soft)
        if any(a != b and a[0] not in soft for a, b in zip(fingerprint, recorded)):
            return None
        if any(a[1:4] == b[1:4] and a != b for a, b in zip(fingerprint, recorded)):
            return None  # changed with its time set back: the ready index cannot see it
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    quick = data.get("quick")
    host = quick.get("host", "") if isinstance(quick, dict) else ""
    host = host if isinstance(host, str) else ""
    tools = quick.get("tools", "") if isinstance(quick, dict) else ""
    tools = tools if isinstance(tools, str) else ""
    kept = quick if isinstance(quick, dict) else None
    return Stale(note, ready, fingerprint, host, fingerprint != recorded, tools, kept)


def load_corpus(path: Path) -> Corpus | None:
    """The scorer's corpus kept at ``path`` (:func:`pi_memory.hosts.corpus_cache.load`)."""
    from pi_memory.hosts.corpus_cache import load

    return load(str(path))


def save(
    cwd: Path,
    env: Mapping[str, str],
    day: str,
    *,
    note: Note,
    corpus: Corpus | None,
    fingerprint: list[list[Any]],
    ready: Ready | None = None,
    quick: Mapping[str, object] | None = None,
) -> None:
    """Write the note; ``fingerprint`` is :func:`stats` taken *before* the work it
    describes read anything, so a change during the work shows as a miss later.
    A failure here only costs speed."""
    import json

    from pi_memory.fs.atomic import atomic_write_text

    note_file = _note_file(cwd)
    data = {
        "v": VERSION,
        "cwd": str(cwd),
        "day": day,
        "env": environment(env, note.key_names),
        "stats": fingerprint,
        "injection": note.injection,
        "maxContext": note.max_context,
        "refreshed": note.refreshed,
        "limits": list(note.limits),
        "sideQuery": note.side_query,
        "background": note.background,
        "sessionDays": note.session_days,
        "reviewTurns": note.review_turns,
        "keyNames": list(note.key_names),
        "dream": list(note.dream),
        "modelCommand": list(note.model_command),
        "maxBytes": note.max_bytes,
        "surfaceModel": note.surface_model,
        "anchors": list(note.anchors),
        "notice": note.notice,
        "corpus": corpus is not None,
    }
    if ready is not None:
        data.update(ready=ready.signature, dirs=ready.directories, inputs=ready.inputs)
        data["soft"] = ready.soft
    if quick is not None:
        data["quick"] = dict(quick)  # what a hook needs to answer with os and sys alone
    try:
        note_file.parent.mkdir(parents=True, exist_ok=True)
        if corpus is not None:
            from pi_memory.fs.atomic import atomic_write_bytes
            from pi_memory.hosts.corpus_cache import pack

            atomic_write_bytes(_files(cwd)[1], pack(corpus), durable=False)
        atomic_write_text(note_file, json.dumps(data), durable=False)
    except (OSError, ValueError):
        return


def add_corpus(cwd: Path, corpus: Corpus) -> None:
    """Keep ``corpus`` beside the note a lookup just confirmed (built after that
    lookup, so it is at least as new as the note's fingerprint)."""
    import json

    from pi_memory.fs.atomic import atomic_write_bytes, atomic_write_text
    from pi_memory.hosts.corpus_cache import pack

    note_file, corpus_file = _files(cwd)
    try:
        data = json.loads(note_file.read_text("utf-8"))
        atomic_write_bytes(corpus_file, pack(corpus), durable=False)
        data["corpus"] = True
        atomic_write_text(note_file, json.dumps(data), durable=False)
    except (OSError, ValueError):
        return


def prune(max_age_days: int, now: float) -> int:
    """Delete notes (and corpora) of working directories no hook visited for
    ``max_age_days``: each corpus is as large as the store; and, once, the notes of the
    former naming (:func:`_remove_old_names`). Returns how many."""
    note_file = _note_file(Path("."))
    removed = 0
    try:
        children = list(os.scandir(note_file.parent))
    except OSError:
        return 0
    for child in children:
        try:
            st = child.stat()
            if now - max(st.st_atime, st.st_mtime) > max_age_days * 86_400 and child.is_file():
                os.unlink(child.path)
                removed += 1
        except OSError:
            continue
    return removed + _remove_old_names(note_file.parent)


def _remove_old_names(directory: Path) -> int:
    """Remove, once, the notes (and their corpora) named as before a note's name was the
    FNV-1a hash of its directory (zlib's crc32 and adler32 of it): no hook reads them
    again, and a corpus is as large as its store. :data:`RENAMED_MARK`, beside
    :data:`DIRECTORY` (whose files age out), says it was done."""
    mark = directory.parent / RENAMED_MARK
    if mark.exists():
        return 0
    import json
    import zlib

    from pi_memory.hosts.corpus_cache import SUFFIX
    from pi_memory.hosts.quick_hook import note_stem

    removed = 0
    try:
        children = list(os.scandir(directory))
    except OSError:
        return 0
    for child in children:
        stem, _, suffix = child.name.partition(".")
        if suffix != "json":
            continue
        try:
            with open(child.path, "rb") as note:
                cwd = json.loads(note.read())["cwd"]
            raw = cwd.encode("utf-8", "surrogateescape")
            if stem != f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}" or stem == note_stem(cwd):
                continue
            for path in (child.path, os.path.join(directory, stem + SUFFIX)):
                if os.path.exists(path):
                    os.unlink(path)
        except (OSError, ValueError, LookupError, TypeError, AttributeError):
            continue
        removed += 1
    try:
        mark.touch()
    except OSError:
        pass
    return removed


def limits_of(note: Note) -> Limits:
    from pi_memory.surfacing import Limits

    return Limits(*note.limits)


# -- what a hook answered without the package reads (quick_hook) ---------------------------


def quick_block(
    host_name: str, note: Note, now: float, kept: Mapping[str, object] | None = None
) -> dict[str, object] | None:
    """The note's ``quick`` block for hooks of ``host_name`` (``None``: the note's hooks are
    not the common case, and always take the full path): written with the note by the full
    hook, from the modules that own each fact, so that :mod:`~pi_memory.hosts.quick_hook`
    repeats none of them. ``kept``: the block of the note this one replaces, whose
    fingerprint still holds but for what only the injection reads (:func:`stale`): its
    facts are taken from it, of this version and host, and only its guards looked at
    again (a write renders the note without loading the receipts, sessions and hosts)."""
    if note.background or note.dream[0] or note.notice not in ("off", "learned"):
        return None
    guards = _anchors_guards(note, now)
    if guards is None:
        return None
    from pi_memory.hosts.quick_hook import VERSION as QUICK
    from pi_memory.hosts.quick_hook import stats

    if kept is not None and kept.get("v") == QUICK and kept.get("host") == host_name:
        return {**kept, "guards": stats(str(p) for p in guards)}
    from pi_memory.hosts import hook_receipts
    from pi_memory.hosts.registry import host
    from pi_memory.receipts import MAX_BYTES, NAME, directory
    from pi_memory.session.dirs import PRUNED_MARK, sessions_root
    from pi_memory.session.state import LOCK_FILE as STATE_LOCK
    from pi_memory.session.state import STATE_FILE

    shape = host(host_name)
    return {
        "v": QUICK,
        "host": shape.name,
        "events": dict(shape.events),
        "contextEvents": list(shape.context_events),
        "plainText": shape.plain_text,
        "atPrompt": shape.injected_index_at_prompt,
        "replays": shape.resume_replays_context,
        "everyRequest": shape.compact_hook_every_request,
        "firstPromptStarts": shape.first_prompt_starts,
        "guards": stats(str(p) for p in guards),
        "sessions": str(sessions_root()),
        "pruneMark": str(sessions_root() / PRUNED_MARK),
        "stateFiles": [STATE_FILE, STATE_LOCK],
        "log": str(directory() / NAME),
        "logCap": MAX_BYTES,
        "told": str(hook_receipts.told_file()),
    }


def _anchors_guards(note: Note, now: float) -> list[Path] | None:
    """The files whose change may make the anchors' check due (the note's fingerprint holds
    the rest: the verdicts and the anchors record); ``None`` when it is due, or is due
    again after a time (outside git), which no ``stat`` tells."""
    directory, root = note.anchors
    if not directory:
        return []
    from pi_memory.anchors.cache import due, recheck_after
    from pi_memory.naming.git_repo import find_git_repo, head_files

    try:
        if due(Path(directory), Path(root), now) or recheck_after(Path(directory)):
            return None
    except OSError:
        return None
    repo = find_git_repo(Path(root))
    return head_files(repo) if repo is not None else []
