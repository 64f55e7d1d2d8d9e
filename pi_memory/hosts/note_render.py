"""The fast path's note rendered again from the ready index, when only what is injected changed.

After a write or a search (:mod:`pi_memory.hosts.after_change`), and at a session
start that finds the note stale in that way (:mod:`pi_memory.hosts.lifecycle`), each
``MEMORY.md`` and the injection are rendered from the keyword tallies kept ready
(:mod:`pi_memory.ready_index`) instead of the store. Its own module, beside the
lifecycle: a command that changed the store renders the note without loading what
every moment of a session needs.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from pi_memory.hosts.fastpath import Note, Stale


def rendered(
    cwd: Path, day: str, host: str, limit: int, max_bytes: int, *, found: Stale | None = None
) -> Note | None:
    """The note of ``cwd`` brought up to date from the ready index when only what is
    injected changed (each ``MEMORY.md`` rewritten, the injection rendered within ``limit``
    characters and ``max_bytes`` bytes for ``host``), and saved; ``None``: the full work is
    due (a start that may schedule background work looks at the store). ``found``: what
    :func:`fastpath.stale` said of ``cwd`` just now, when the caller asked it already."""
    from pi_memory import ready_index
    from pi_memory.hosts import fastpath

    if found is None:
        found = fastpath.stale(cwd, os.environ, day)
    if found is None or found.note.background:
        return None
    ready = ready_index.load(found.ready.signature, identities(found.fingerprint))
    if ready is None or not ready.blocks:  # none: kept for the MEMORY.md files alone
        return None
    now = found
    if ready_index.refresh_indexes(ready):  # else the note's fingerprint is as found
        again = fastpath.stale(cwd, os.environ, day)  # after MEMORY.md, as the full path
        if again is None:
            return None
        ready = ready_index.load(found.ready.signature, identities(again.fingerprint))
        if ready is None or not ready.blocks:
            return None
        now = again
    text = fitted(partial(ready_index.injection, ready), limit, max_bytes)
    note = now.note._replace(injection=text, refreshed=True, max_context=limit, max_bytes=max_bytes)
    fastpath.save(
        cwd,
        os.environ,
        day,
        note=note,
        corpus=None,
        fingerprint=now.fingerprint,
        ready=now.ready,
        quick=quick(host, note, now.tools, now.quick),
    )
    return note


def fitted(injection: Callable[[int], str], max_chars: int, max_bytes: int) -> str:
    """The injection within ``max_chars`` and, when given, ``max_bytes``."""
    text = injection(max_chars)
    while max_bytes and len(text.encode("utf-8")) > max_bytes and max_chars > 200:
        # As many characters as the bytes allow at this text's bytes per character.
        max_chars = max(200, len(text) * max_bytes // len(text.encode("utf-8")) - 100)
        shorter = injection(max_chars)
        if len(shorter) >= len(text):
            break  # the layout does not shrink any further
        text = shorter
    return text


def quick(
    host: str, note: Note, tools: str = "", kept: Mapping[str, object] | None = None
) -> dict[str, object] | None:
    """The note's block for a hook answered without the package (:mod:`.quick_hook`);
    ``tools``: the tool list the note's block already holds, still what ``tool --list``
    prints when only what the injection reads changed since (the configuration and the
    environment it follows from are in the note's fingerprint), "": worked out here;
    ``kept``: that block (:func:`fastpath.quick_block`)."""
    import time

    from pi_memory.hosts import fastpath

    block = fastpath.quick_block(host, note, time.time(), kept)
    if block is not None:
        block["tools"] = tools or tool_list()
    return block


def tool_list() -> str:
    """What ``tool --list`` prints here (:func:`pi_memory.commands.tool.run_tool`), for the
    quick block (the configuration it depends on is in the note's fingerprint) and for pi's
    session start that asks for it ("": not known). Here, not in the fast path's module: the
    tools' modules reach the jobs."""
    import json

    from pi_memory.agent_tools.registry import offered_tools
    from pi_memory.errors import PiMemoryError

    try:
        return json.dumps(offered_tools())
    except (OSError, PiMemoryError):
        return ""


def identities(fingerprint: list[list[Any]]) -> dict[str, tuple[int, int, int] | None]:
    """The fingerprint as path → identity (``None``: absent)."""
    return {p[0]: (p[1], p[2], p[3]) if len(p) > 1 else None for p in fingerprint}
