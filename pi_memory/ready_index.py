"""The index to inject, kept ready beside the fast path's note: a store's keyword tallies.

A session start after a change used to do the full work: load the
configuration, open the store, read both layers, rebuild each keyword table.
But what it injects (and writes to each ``MEMORY.md``) is made of the keyword
tallies of the layers (:mod:`pi_memory.keyword_tally`) and the recall logs;
nothing else a hook answers depends on the layers' contents. So the tallies
are kept here, with the identity of every file they were worked out from (the
category files, this user's trust record of the project layer), and:

- a hook whose note (:mod:`pi_memory.hosts.fastpath`) differs only in what is
  in the layer directories renders the injection from these tallies and the
  recall logs as they are now — a search changes only a recall log;
- a write keeps them up to date (``Store.keep_ready``), summing the facts of the one
  file it changed with those the cache holds of the others; a write that changes no
  tally (a repeat's ``seen`` bumped) only moves them to the file's new identity
  (:func:`moved`), reading no facts at all.

Like every cache here it is derived: checked against each file's identity,
used only when every one matches (a hand edit, a write killed before it got
here, or any other writer means a mismatch, and the hook does the full work,
which keeps it anew); deleting it costs one full hook. It is written only for
a store whose session start says nothing (no unreadable file, no memories
withheld), as the note is.
"""

from __future__ import annotations

import marshal
from pathlib import Path

from pi_memory.keywords import Tally, within_reach
from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.layer_files import RECALLS_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Final

    from pi_memory.fs.parse_cache import Identity

VERSION: Final = 2
DIRECTORY: Final = "hooks"


class Ready(NamedTuple):
    #: :func:`signature` of the settings it was worked out under.
    signature: str
    #: Every file it was worked out from, with its identity then (``None``: absent).
    sources: tuple[tuple[str, Identity | None], ...]
    layout: str
    index_budget: int
    lock_timeout_ms: int
    #: Each layer's ``MEMORY.md``: ``(layer, directory, tally of its entries)``.
    indexes: tuple[tuple[str, str, Tally], ...]
    #: The injection's blocks in order: ``(layer, label, directory, tally)``.
    blocks: tuple[tuple[str, str, str, Tally], ...]


def signature(values: Sequence[object]) -> str:
    """What the tallies and their labels depend on (plain values), as one string."""
    import json

    return json.dumps([VERSION, *values])


def _file(sign: str) -> Path:
    import zlib

    from pi_memory.fs.cache_home import cache_home

    raw = sign.encode("utf-8", "surrogateescape")
    return Path(cache_home()) / DIRECTORY / f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.ready"


def save(ready: Ready) -> bool:
    """Keep ``ready``; a failure only costs speed (``False``)."""
    from pi_memory.fs.atomic import atomic_write_bytes

    target = _file(ready.signature)
    # Only the keywords that can make a table are kept (marshal keeps plain tuples only).
    plain: tuple[Any, ...] = (
        *ready[:5],
        tuple((layer, d, tuple(within_reach(t))) for layer, d, t in ready.indexes),
        tuple((layer, label, d, tuple(within_reach(t))) for layer, label, d, t in ready.blocks),
    )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, marshal.dumps(plain), durable=False)
    except (OSError, ValueError):
        return False
    return True


def recalls_in(directory: Path) -> dict[str, int]:
    """The recall log of the layer ``directory`` (missing or damaged: none)."""
    from pi_memory.recalls import parse_recalls

    try:
        # surrogateescape: a keyword read from a damaged row is credited as it is stored.
        text = (directory / RECALLS_FILE).read_text("utf-8", "surrogateescape")
    except OSError:
        return {}
    return parse_recalls(text)


def load(sign: str, now: Mapping[str, Identity | None]) -> Ready | None:
    """The tallies kept under ``sign`` if every file they came from is as it was: each
    file's identity is taken from ``now`` (path → identity), or stat'ed when not there."""
    from pi_memory.fs.parse_cache import identity_at

    try:
        raw = marshal.loads(_file(sign).read_bytes())  # noqa: S302 - the user's own cache
        ready = Ready._make(raw)
        if ready.signature != sign:
            return None
        for path, identity in ready.sources:
            seen = now[path] if path in now else identity_at(path)
            if seen != (tuple(identity) if identity is not None else None):
                return None
        return ready._replace(
            indexes=tuple((layer, d, Tally._make(t)) for layer, d, t in ready.indexes),
            blocks=tuple((layer, lb, d, Tally._make(t)) for layer, lb, d, t in ready.blocks),
        )
    except Exception:  # any unreadable cache is a miss
        return None


def moved(
    sign: str, before: Mapping[str, Identity | None], after: Mapping[str, Identity]
) -> Ready | None:
    """Keep the tallies kept under ``sign`` for files that changed without changing them
    (a repeat's ``seen`` bumped: no keyword, time or liveness changed): when they held
    while the files of ``before`` had those identities, they are kept again with the
    identities of ``after``, and returned. ``None`` when they did not hold (the caller
    keeps them afresh) or could not be kept."""
    found = load(sign, before)
    if found is None or not set(after) <= {path for path, _ in found.sources}:
        return None
    sources = tuple((path, after.get(path, identity)) for path, identity in found.sources)
    kept = found._replace(sources=sources)
    return kept if save(kept) else None


def refresh_indexes(ready: Ready) -> bool:
    """Each layer's ``MEMORY.md`` from the tallies and the recall log now, as
    :meth:`Store.refresh_indexes` does in a hook (a layer whose lock is busy is skipped);
    whether any was rewritten. A ``MEMORY.md`` that is already so (the write that kept
    these tallies wrote its own; the other layer's did not change) is compared, not
    rewritten, and its lock is not taken."""
    from pi_memory.layouts import open_layer

    wrote = False
    for layer, directory, tally in ready.indexes:
        path = Path(directory)
        if not path.is_dir():
            continue
        opened = open_layer(ready.layout, layer, path, index_budget=ready.index_budget)
        recalls = recalls_in(path)
        change = opened.prepare_index(tally, recalls)
        if change is None:
            continue
        from pi_memory.fs.lock import StoreLock

        lock = StoreLock(path, "rebuild", ready.lock_timeout_ms)
        try:
            if not lock.acquire(blocking=False):
                continue
            try:
                if change.unchanged():
                    change.commit()
                else:  # changed since it was read: rendered again, as it is now
                    opened.refresh_tally(tally, recalls)
                wrote = True
            finally:
                lock.release()
        finally:
            change.discard()
            change.sync()
    return wrote


def injection(ready: Ready, max_chars: int | None) -> str:
    """:meth:`Store.injection` from the tallies and the recall logs as they are now."""
    from functools import partial

    from pi_memory.layouts import open_layer
    from pi_memory.layouts.protocol import Injected

    sources = [
        Injected(
            layer,
            label,
            Path(directory),
            list,
            partial(recalls_in, Path(directory)),
            partial(_same, tally),
        )
        for layer, label, directory, tally in ready.blocks
    ]
    if not sources:
        return ""
    first = Path(ready.blocks[0][2])
    opened = open_layer(ready.layout, ready.blocks[0][0], first, index_budget=ready.index_budget)
    return opened.injection(sources, max_chars)


def _same(tally: Tally) -> Tally:
    return tally
