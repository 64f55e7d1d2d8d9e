"""The ``<likely-duplicates>`` and ``<possible-conflicts>`` prompt blocks; pure.

Consolidation and extraction attach them to their prompts as hints, never
verdicts. Ids are spelled out so a pair is actionable even when one side is
not on the page the model is looking at. Both blocks are ``""`` when there is
nothing to say, so a prompt never carries an empty tag.

``<possible-conflicts>`` follows pi-memory-auto line for line::

    - shared: dev-server | differing values: 3000, 8080
      older [20261001-aaaa] The dev server listens on port 3000.
      newer [20261002-bbbb] The dev server listens on port 8080.

``<likely-duplicates>`` has the same shape, with the score in place of the
values and the older entry first::

    - shared: deploy | score 78%
      [20261001-aaaa] Deploy goes through rsync to the staging host.
      [20261020-bbbb] Deploy uses rsync to reach staging.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pi_memory.detect.conflicts import ConflictPair
from pi_memory.detect.duplicates import DuplicatePair
from pi_memory.entry import Entry
from pi_memory.inject.sanitize import sanitize_for_injection

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: Characters of a body shown in a prompt hint: enough to judge the pair.
HINT_BODY_CHARS: Final = 200
_SPACE_RE: Final = re.compile(r"\s+")


def single_line(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, ``…`` marking a cut."""
    flat = _SPACE_RE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    return flat[: max(0, limit - 1)].rstrip() + "…"


def percent(fraction: float) -> str:
    """``0.875`` → ``88%`` (half up, unlike ``round``)."""
    return f"{int(fraction * 100 + 0.5)}%"


def _body(entry: Entry) -> str:
    # A body must not be able to close or forge the block it is quoted in, nor
    # hide text behind invisible characters: the same rule as every other
    # string that reaches a prompt.
    return sanitize_for_injection(single_line(entry.body, HINT_BODY_CHARS))


def render_likely_duplicates(
    pairs: Sequence[DuplicatePair], entries_by_id: Mapping[str, Entry], limit: int
) -> str:
    """The first ``limit`` pairs whose entries are both known, as a tagged block."""
    lines: list[str] = []
    for pair in pairs:
        if len(lines) >= 3 * limit:
            break
        a, b = entries_by_id.get(pair.a), entries_by_id.get(pair.b)
        if a is None or b is None:
            continue
        shared = ", ".join(pair.shared) or "none"
        lines.append(f"- shared: {sanitize_for_injection(shared)} | score {percent(pair.score)}")
        lines.append(f"  [{a.id}] {_body(a)}")
        lines.append(f"  [{b.id}] {_body(b)}")
    return _block("likely-duplicates", lines)


def render_possible_conflicts(
    pairs: Sequence[ConflictPair], entries_by_id: Mapping[str, Entry], limit: int
) -> str:
    """The first ``limit`` pairs whose entries are both known, as a tagged block."""
    lines: list[str] = []
    for pair in pairs:
        if len(lines) >= 3 * limit:
            break
        older, newer = entries_by_id.get(pair.older), entries_by_id.get(pair.newer)
        if older is None or newer is None:
            continue
        shared = sanitize_for_injection(pair.shared)
        values = sanitize_for_injection(", ".join(pair.values))
        lines.append(f"- shared: {shared} | differing values: {values}")
        lines.append(f"  older [{older.id}] {_body(older)}")
        lines.append(f"  newer [{newer.id}] {_body(newer)}")
    return _block("possible-conflicts", lines)


def _block(tag: str, lines: list[str]) -> str:
    if not lines:
        return ""
    return "\n".join([f"<{tag}>", *lines, f"</{tag}>"]) + "\n"
