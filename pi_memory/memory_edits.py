"""A person's changes to one stored memory: edit, remove, restore, and retire one for another.

The command line writes new memories (:meth:`Store.write`); the viewer also
changes the ones that exist. Every change here goes through the engine's rules:
the layer's write lock, a check that the memory is still as the person saw it
(:func:`version`, so a hook's write in between is never lost), a rollback
point of the files it touches in ``.backups/`` (a layout that leaves one on
every change does it itself), an atomic write by the layout, and ``MEMORY.md``
brought up to date.

Nothing is deleted for good: ``remove`` leaves a rollback point (and, in a
layout whose ``memory`` tool keeps removed memories, that tool's copy), and
:func:`removed` lists what :func:`restore` can bring back. Merging a
near-duplicate pair or settling a conflict retires one memory in favour of
the other (``superseded-by``), as a write that supersedes does: both stay on disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pi_memory.errors import EntryRejected, PiMemoryError
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.entry import Entry
    from pi_memory.layouts.protocol import LayerStore, MemoryTool
    from pi_memory.store import Store

#: Labels of the rollback points left here (the snapshot directory's name ends with one).
EDIT: Final = "edit"
REMOVE: Final = "remove"
RETIRE: Final = "retire"


class StaleEdit(PiMemoryError):
    """The memory changed on disk since the person read it: nothing was written."""


class Removed(NamedTuple):
    """A memory removed from a layer that :func:`restore` can bring back."""

    entry: Entry
    #: When it was removed, as the rollback point's name says (UTC, ``YYYY-MM-DD HH:MM:SS``).
    when: str


class Version(NamedTuple):
    """A memory as it was at one rollback point: :func:`history`."""

    when: str
    label: str
    entry: Entry


def version(entry: Entry) -> str:
    """A short fingerprint of everything stored about ``entry``: it changes with any field."""
    import hashlib

    return hashlib.sha256(repr(tuple(entry)).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def find(entries: Sequence[Entry], entry_id: str) -> Entry | None:
    return next((e for e in entries if e.id == entry_id), None)


def _current(entries: Sequence[Entry], entry_id: str, expected: str) -> Entry:
    """The memory ``entry_id`` as it is now; :class:`StaleEdit` when it is not as seen."""
    entry = find(entries, entry_id)
    if entry is None:
        raise StaleEdit(f"memory {entry_id} is no longer in this layer: nothing was changed")
    if version(entry) != expected:
        raise StaleEdit(
            f"memory {entry_id} changed on disk since this page was drawn "
            "(another session or a hook wrote it): nothing was changed; reload and try again"
        )
    return entry


def _rollback_point(store: Store, layer: str, label: str, files: Sequence[str]) -> None:
    """Copy ``files`` into ``.backups/`` unless the layout leaves a point on every change."""
    if store.layer(layer).snapshot_on_write:
        return
    from pi_memory.fs.snapshot import take_snapshot

    directory = store.directory(layer)
    paths = [directory / name for name in dict.fromkeys(files)]
    take_snapshot(directory, label, paths, keep=store.settings.snapshot_keep)


def _refresh(store: Store, layer: str) -> None:
    """``MEMORY.md`` after a change (called under the lock); the change stands if this fails."""
    layer_store = store.layer(layer)
    try:
        layer_store.refresh_index(layer_store.read(), store.recalls(layer))
    except OSError:
        pass  # the next write or session start regenerates it


def edit(store: Store, layer: str, entry_id: str, body: str, expected: str) -> Entry:
    """Give a memory a new text, in place (its id, keyword and times stay; the ``files``
    layout stamps ``modified``); returns it as stored."""
    from pi_memory.store import validate_body

    text = store.redact(validate_body(body, max_bytes=store.settings.max_body_bytes))
    layer_store = store.layer(layer)
    problem = layer_store.body_problem(text)
    if problem:
        raise EntryRejected(problem)
    with store.lock(layer, EDIT):
        current = _current(layer_store.read(), entry_id, expected)
        changed = current._replace(body=text)
        _rollback_point(store, layer, EDIT, [current.file])
        layer_store.update([changed])
        _refresh(store, layer)
        stored = find(layer_store.read(), entry_id)
    return stored or changed


def retire(
    store: Store,
    layer: str,
    loser: tuple[str, str],
    winner: tuple[str, str],
    *,
    body: str | None = None,
) -> Entry:
    """Mark ``loser`` superseded by ``winner`` (each ``(id, version)``), both kept on disk;
    ``body``: the winner's new text (a merge of the pair). Returns the winner as stored."""
    from pi_memory.store import validate_body

    if loser[0] == winner[0]:
        raise EntryRejected("a memory cannot supersede itself")
    text = None
    if body is not None:
        text = store.redact(validate_body(body, max_bytes=store.settings.max_body_bytes))
    layer_store = store.layer(layer)
    with store.lock(layer, RETIRE):
        entries = layer_store.read()
        old = _current(entries, *loser)
        new = _current(entries, *winner)
        if not new.live:
            raise EntryRejected(f"memory {new.id} is itself superseded by {new.superseded_by}")
        links = new.supersedes if old.id in new.supersedes else (*new.supersedes, old.id)
        kept = new._replace(supersedes=links, body=text if text is not None else new.body)
        _rollback_point(store, layer, RETIRE, [old.file, new.file])
        layer_store.update([old._replace(superseded_by=new.id), kept])
        _refresh(store, layer)
        stored = find(layer_store.read(), new.id)
    return stored or kept


def remove(store: Store, layer: str, entry_id: str, expected: str) -> Entry:
    """Take a memory out of the layer, recoverably (see :func:`removed`); returns it."""
    layer_store = store.layer(layer)
    with store.lock(layer, REMOVE):
        current = _current(layer_store.read(), entry_id, expected)
        tool = _memory_tool(layer_store)
        if tool is not None:
            tool.remove_by_name(current.file)  # keeps its copy for keepRemovedDays
        else:
            _rollback_point(store, layer, REMOVE, [current.file])
            layer_store.remove([current.id])
        _refresh(store, layer)
    return current


def _memory_tool(layer_store: LayerStore) -> MemoryTool | None:
    from pi_memory.errors import UsageError

    try:
        return layer_store.memory_tool()
    except UsageError:
        return None


def removed(store: Store, layer: str) -> list[Removed]:
    """Memories removed from ``layer`` that are not back, newest first, each once."""
    present = {e.id for e in store.layer(layer).read()}
    seen: set[str] = set()
    out: list[Removed] = []
    for when, label, entry in _copies(store, layer):
        if label != REMOVE or entry.id in present or entry.id in seen:
            continue
        seen.add(entry.id)
        out.append(Removed(entry, when))
    return out


def restore(store: Store, layer: str, entry_id: str) -> Entry:
    """Bring back the newest copy of a removed memory, under the lock; returns it."""
    layer_store = store.layer(layer)
    with store.lock(layer, "restore"):
        if find(layer_store.read(), entry_id) is not None:
            raise EntryRejected(f"memory {entry_id} is already in the {layer} layer")
        found = next((r for r in removed(store, layer) if r.entry.id == entry_id), None)
        if found is None:
            raise EntryRejected(f"no removed copy of memory {entry_id} is kept")
        tool = _memory_tool(layer_store)
        if tool is not None:
            tool.restore(found.entry.name)
        else:
            layer_store.append(found.entry)
        _refresh(store, layer)
    return found.entry


def history(store: Store, layer: str, entry_id: str) -> list[Version]:
    """Each kept copy of the memory (rollback points, removed copies), newest first."""
    return [Version(when, label, e) for when, label, e in _copies(store, layer) if e.id == entry_id]


def _copies(store: Store, layer: str) -> list[tuple[str, str, Entry]]:
    """``(when, label, entry)`` of every memory in the layer's kept copies, newest first:
    its rollback points, and what its ``memory`` tool removed or replaced."""
    from pi_memory.fs.snapshot import BACKUPS_DIR

    out: list[tuple[str, str, Entry]] = []
    root = store.directory(layer) / BACKUPS_DIR
    try:
        folders = [p for p in root.iterdir() if p.is_dir()]
    except OSError:
        folders = []
    for folder in folders:
        stamp = _stamp(folder.name)
        if stamp is not None:
            out.extend((*stamp, entry) for entry in _read_copy(store, layer, folder))
    tool = _memory_tool(store.layer(layer))
    for kept, entry in tool.kept() if tool is not None else ():
        if entry is not None:
            out.append((kept.when.strftime("%Y-%m-%d %H:%M:%S"), kept.action, entry))
    out.sort(key=lambda item: item[0], reverse=True)
    return out


def _stamp(name: str) -> tuple[str, str] | None:
    """``(YYYY-MM-DD HH:MM:SS, label)`` from ``2026-10-01T00-00-01-000Z-label[-N]``."""
    import re

    match = re.match(r"^(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)-\d{3}Z-([a-z]+)", name)
    if match is None:
        return None
    day, hour, minute, second, label = match.groups()
    return f"{day} {hour}:{minute}:{second}", label


def _read_copy(store: Store, layer: str, folder: Path) -> list[Entry]:
    """The memories a kept copy holds, read by the layer's own layout."""
    from pi_memory.layouts import open_layer

    try:
        return open_layer(store.settings.layout, layer, folder).read()
    except (OSError, PiMemoryError):
        return []
