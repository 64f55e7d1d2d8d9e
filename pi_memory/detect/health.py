"""The per-layer health block of ``show``: what needs a person's (or a model's) decision; pure.

::

  health: 2 superseded (kept on disk, out of the index) · 6/24 keywords never recalled · …
  merge candidates (2) — to merge a pair, python -m pi_memory write … --supersedes ID …:
    · [20261001-aaaa] ↔ [20261020-bbbb] 78% shared: deploy
      "Deploy goes through rsync to the staging host." / "Deploy uses rsync to reach staging."
  possible superseded requirements (1) — older vs newer; if the newer one is current, …
    - shared: dev-server | differing values: 3000, 8080 | confidence 88%
      older [20261001-aaaa] (2026-10-01 10:00:00, project/DECISIONS.md): "The dev server …"
      newer [20261002-bbbb] (2026-10-02 10:00:00, project/DECISIONS.md): "The dev server …"

Decisions where pi-memory-auto is silent:

- a part of the ``health:`` line whose count is zero is left out, the line
  itself too when all are; a layer with nothing at all to report says
  ``health: ok``; never-recalled keywords are
  counted only once the layer has at least :data:`MIN_RECALLS` recalls in
  total (before that every keyword sits at zero and it would read as a
  problem); stale files are listed by count, then name;
- a pair that is a conflict is not a merge candidate: a merge would keep
  whichever body it saw fit and could leave the obsolete value reachable;
- each list prints at most :data:`SHOWN_PAIRS` pairs and then
  ``(+N more — python -m pi_memory show --json lists them all)``; the JSON
  form carries every pair;
- empty lists print nothing, not even their heading;
- the advice names only commands that work, in the command line's syntax:
  ``compact`` only when a model can run it, ``--supersedes ID`` otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pi_memory.detect.conflicts import ConflictPair
from pi_memory.detect.duplicates import DuplicatePair
from pi_memory.detect.hints import percent, single_line
from pi_memory.detect.text_features import keyword_keys
from pi_memory.entry import Entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

MIN_RECALLS: Final = 5
SHOWN_PAIRS: Final = 5
#: Places of unread lines named on the health line (``show --json`` has them all).
SHOWN_PLACES: Final = 5
#: Characters of each body quoted in a merge candidate line (two share one line).
MERGE_BODY_CHARS: Final = 80
#: Characters of the body quoted in a conflict row.
CONFLICT_BODY_CHARS: Final = 120
COMMAND: Final = "python -m pi_memory"


@dataclass(frozen=True)
class LayerHealth:
    layer: str
    #: Rows retired by ``superseded-by`` (kept on disk, out of the index).
    superseded: int
    #: Distinct keywords of the live entries.
    keywords: int
    #: Keywords no search ever credited; ``None`` while the layer has fewer than 5 recalls.
    never_recalled: int | None
    #: ``(file, count)`` of stale entries, most first.
    stale: tuple[tuple[str, int], ...]
    merge_candidates: tuple[DuplicatePair, ...]
    conflicts: tuple[ConflictPair, ...]
    #: The layer's entries by id, for the quoted bodies.
    entries: Mapping[str, Entry] = field(default_factory=dict, compare=False, repr=False)
    #: ``FILE:LINE`` of text no memory was read from (damaged or stray lines), and
    #: ``FILE: REASON`` of a file that could not be read.
    unreadable: tuple[str, ...] = ()


def layer_health(  # noqa: PLR0917 - the inputs are six distinct plain values
    layer: str,
    entries: Iterable[Entry],
    recalls: Mapping[str, int],
    stale_counts: Mapping[str, int],
    duplicates: Sequence[DuplicatePair],
    conflicts: Sequence[ConflictPair],
    unreadable: Sequence[str] = (),
) -> LayerHealth:
    """The health of ``layer`` from its entries and the store-wide detector output.

    ``recalls`` is the layer's recall log (keyword → credited finds, keyed by
    canonical key or by spelling); ``stale_counts`` is file → stale entries.
    Pairs of other layers are ignored, so whole-store lists can be passed.
    """
    rows = [entry for entry in entries if entry.layer == layer]
    live = [entry for entry in rows if entry.live]
    keys = set(keyword_keys(entry.keyword for entry in live))
    mine = [pair for pair in conflicts if pair.layer == layer]
    conflicting = {(pair.older, pair.newer) for pair in mine}
    return LayerHealth(
        layer=layer,
        superseded=len(rows) - len(live),
        keywords=len(keys),
        never_recalled=_never_recalled(keys, recalls),
        stale=tuple(
            sorted(
                ((name, count) for name, count in stale_counts.items() if count > 0),
                key=lambda item: (-item[1], item[0]),
            )
        ),
        merge_candidates=tuple(
            pair
            for pair in duplicates
            if pair.layer == layer and (pair.a, pair.b) not in conflicting
        ),
        conflicts=tuple(mine),
        entries={entry.id: entry for entry in rows},
        unreadable=tuple(unreadable),
    )


def _never_recalled(keys: set[str], recalls: Mapping[str, int]) -> int | None:
    credited: dict[str, int] = {}
    for keyword, count in recalls.items():
        for key in keyword_keys([keyword]):
            credited[key] = credited.get(key, 0) + max(0, count)
    if sum(credited.values()) < MIN_RECALLS:
        return None
    return sum(1 for key in keys if credited.get(key, 0) == 0)


def render_health(h: LayerHealth, layer_label: str, *, compact_ready: bool = False) -> list[str]:
    """The block's lines (no trailing newlines); ``layer_label`` is ``project`` or ``user``.

    The advice names only commands that work, in the command line's own syntax:
    ``compact`` only when ``compact_ready`` (a model is there to run it).
    """
    parts = _health_parts(h)
    if parts or not (h.merge_candidates or h.conflicts):
        lines = ["  health: " + (" · ".join(parts) if parts else "ok")]
    else:
        lines = []
    compact = f"{COMMAND} compact {layer_label}"
    write = f"{COMMAND} write --layer {layer_label} --keyword KEYWORD"
    if h.merge_candidates:
        how = (
            compact
            if compact_ready
            else f'to merge a pair, {write} --supersedes ID --supersedes ID "merged text"'
        )
        lines.append(f"  merge candidates ({len(h.merge_candidates)}) — {how}:")
        for pair in h.merge_candidates[:SHOWN_PAIRS]:
            lines.extend(_merge_lines(pair, h.entries))
        lines.extend(_more(len(h.merge_candidates)))
    if h.conflicts:
        also = f", or {compact} to let the pass decide" if compact_ready else ""
        lines.append(
            f"  possible superseded requirements ({len(h.conflicts)}) — older vs newer; "
            f'if the newer one is current, {write} --supersedes OLDER_ID "the newer text"'
            f" (the same text only confirms it){also}:"
        )
        for conflict in h.conflicts[:SHOWN_PAIRS]:
            lines.extend(_conflict_lines(conflict, h.entries))
        lines.extend(_more(len(h.conflicts)))
    return lines


def _health_parts(h: LayerHealth) -> list[str]:
    parts: list[str] = []
    lines = [place for place in h.unreadable if place.rpartition(":")[2].isdigit()]
    whole = [place for place in h.unreadable if place not in lines]
    if whole:
        n = len(whole)
        parts.append(f"{n} file{'s' if n != 1 else ''} not read ({', '.join(whole)})")
    if lines:
        n = len(lines)
        places = ", ".join(lines[:SHOWN_PLACES])
        more = f", +{n - SHOWN_PLACES} more" if n > SHOWN_PLACES else ""
        parts.append(f"{n} line{'s' if n != 1 else ''} not read as memories ({places}{more})")
    if h.superseded:
        parts.append(f"{h.superseded} superseded (kept on disk, out of the index)")
    if h.never_recalled:
        parts.append(f"{h.never_recalled}/{h.keywords} keywords never recalled")
    stale = sum(count for _, count in h.stale)
    if stale:
        files = ", ".join(f"{name} {count}" for name, count in h.stale)
        parts.append(f"{stale} stale — re-verify ({files})")
    return parts


def _quoted(entries: Mapping[str, Entry], entry_id: str, limit: int) -> str:
    entry = entries.get(entry_id)
    return f'"{single_line(entry.body, limit)}"' if entry is not None else "(not found)"


def _merge_lines(pair: DuplicatePair, entries: Mapping[str, Entry]) -> list[str]:
    shared = f" shared: {', '.join(pair.shared)}" if pair.shared else ""
    a = _quoted(entries, pair.a, MERGE_BODY_CHARS)
    b = _quoted(entries, pair.b, MERGE_BODY_CHARS)
    return [
        f"    · [{pair.a}] ↔ [{pair.b}] {percent(pair.score)}{shared}",
        f"      {a} / {b}",
    ]


def _conflict_lines(pair: ConflictPair, entries: Mapping[str, Entry]) -> list[str]:
    return [
        f"    - shared: {pair.shared} | differing values: {', '.join(pair.values)}"
        f" | confidence {percent(pair.confidence)}",
        f"      older {_row(entries, pair.older)}",
        f"      newer {_row(entries, pair.newer)}",
    ]


def _row(entries: Mapping[str, Entry], entry_id: str) -> str:
    entry = entries.get(entry_id)
    if entry is None:
        return f"[{entry_id}] (not found)"
    where = f"{entry.layer}/{entry.file}" if entry.file else entry.layer
    body = single_line(entry.body, CONFLICT_BODY_CHARS)
    return f'[{entry.id}] ({entry.time}, {where}): "{body}"'


def _more(total: int) -> list[str]:
    if total <= SHOWN_PAIRS:
        return []
    hidden = total - SHOWN_PAIRS
    return [f"    (+{hidden} more — {COMMAND} show --json lists them all)"]


def health_json(h: LayerHealth) -> dict[str, Any]:
    """The same data for ``show --json``: every pair, scores rounded to 4 places."""
    return {
        "superseded": h.superseded,
        "stale": dict(h.stale),
        "never_recalled": h.never_recalled,
        "merge_candidates": [
            {"a": p.a, "b": p.b, "score": round(p.score, 4), "shared": list(p.shared)}
            for p in h.merge_candidates
        ],
        "conflicts": [
            {
                "older": p.older,
                "newer": p.newer,
                "shared": p.shared,
                "values": list(p.values),
                "confidence": round(p.confidence, 4),
            }
            for p in h.conflicts
        ],
        "unreadable": list(h.unreadable),
    }
