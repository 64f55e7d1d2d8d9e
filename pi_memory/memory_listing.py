"""What the ``memory`` tool (pi-memory) answers for ``list`` and ``search``, over plain entries.

The tool itself (:mod:`pi_memory.agent_tools.memory`) and its stand-in in a
headless agent's run (:mod:`pi_memory.jobs.staging`) answer with these texts, so
the model reads the same whichever one it calls. Superseded memories come last,
labelled with what replaced them; a user-layer memory is labelled as such; a
body over ``memoryMaxBytes`` (stored by hand, or before the limit) is clipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pi_memory.config.defaults import MEMORY_MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.entry import Entry

USER_SCOPE: Final = "user"


def _live_first(entries: Sequence[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: not e.live)


def _labels(entry: Entry) -> str:
    labels = []
    if entry.layer == USER_SCOPE:
        labels.append("user layer")
    if not entry.live:
        labels.append(f"superseded by {entry.superseded_by}")
    return f" ({'; '.join(labels)})" if labels else ""


def list_text(entries: Sequence[Entry]) -> str:
    """One line per memory: ``- name (type, modified …) — description [file]``, then labels."""
    if not entries:
        return "No memories yet."
    return "\n".join(
        f"- {e.name} ({e.type}, modified {e.modified}) — {e.description} [{e.file}]{_labels(e)}"
        for e in _live_first(entries)
    )


def search_text(
    entries: Sequence[Entry], query: str, now: datetime, max_body_bytes: int = MEMORY_MAX_BYTES
) -> str:
    """The memories that hold the query's words, best first, superseded ones last; each
    body at most ``max_body_bytes`` (a larger one stored by hand is shown clipped)."""
    from pi_memory.memory_size import clipped
    from pi_memory.retrieval import KEYWORD, search

    # Name and description are searched as well as the body.
    by_place = {(e.layer, e.file): e for e in entries}
    searchable = [e._replace(body=f"{e.name}\n{e.description}\n{e.body}") for e in entries]
    result = search(searchable, query, mode=KEYWORD, now=now)
    if result.fallback or result.mode != KEYWORD or not result.hits:
        return "No matches in memory."
    hits = [by_place[hit.entry.layer, hit.entry.file] for hit in result.hits]
    blocks = [
        f"## {e.name}\nfile: {e.file}\ntype: {e.type}{_block_labels(e)}\n\n"
        + clipped(e.body, max_body_bytes, f"the whole text is in {e.file}")
        for e in hits
    ]
    more = result.total - len(hits)
    if more > 0:
        blocks.append(f"({more} more matches; a narrower query shows them)")
    return "\n\n".join(blocks)


def _block_labels(entry: Entry) -> str:
    lines = []
    if entry.layer == USER_SCOPE:
        lines.append("layer: user")
    if not entry.live:
        lines.append(f"superseded by: {entry.superseded_by} (outdated; kept for history)")
    return "".join(f"\n{line}" for line in lines)
