"""What the model reads of suspect memories: a few words, never the stored files.

The injected index gets one short block after the layers' indexes (the
``MEMORY.md`` files stay as their designs fix them); a surfaced memory's
heading and a search hit say it beside the memory itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.entry import Entry

#: Suspect memories listed in the injected index at most (then how many more).
MAX_LISTED: Final = 8
OPEN: Final = "<suspect_memories>"
CLOSE: Final = "</suspect_memories>"


def heading_mark(reason: str) -> str:
    """What a surfaced memory's heading adds: ``suspect: src/deploy.py changed since``."""
    return f"suspect: {reason}"


def hit_line(reason: str, verify: str) -> str:
    """The label under a search hit."""
    return f"suspect: {reason} — check the code before relying on it; confirmed: {verify}"


def block(entries: Iterable[Entry], suspects: Mapping[str, str], verify: str) -> str:
    """The injected index's block of suspect memories ("" when none); ``verify`` is the
    command that confirms one (``pi-memory verify ID``)."""
    from pi_memory.inject.sanitize import sanitize_for_injection

    listed = [e for e in entries if e.live and e.id in suspects]
    if not listed:
        return ""
    lines = [
        OPEN,
        sanitize_for_injection(
            "The code these memories describe changed since they were written: check it "
            "before relying on them. Confirm one that still holds by writing its text again "
            f"with memory_write (or run: {verify}); supersede one that does not."
        ),
    ]
    for entry in listed[:MAX_LISTED]:
        title = entry.name or f"#{entry.keyword}"
        lines.append(sanitize_for_injection(f"- [{entry.id}] {title}: {suspects[entry.id]}"))
    if len(listed) > MAX_LISTED:
        lines.append(f"- and {len(listed) - MAX_LISTED} more")
    lines.append(CLOSE)
    return "\n".join(lines) + "\n"
