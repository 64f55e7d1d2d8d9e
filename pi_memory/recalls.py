"""The recall log (``usage.json``): how often each keyword actually found something.

A search credits a keyword only when a returned memory carries it *and* the
query mentioned it, only on page 1 (a deeper page re-reads hits that were
already credited), and never for a fallback or a ``recent`` listing (nothing
was matched). Crediting every keyword of every hit would re-measure ``count``;
crediting keywords the query never mentioned would credit noise.

This module is the pure part: the text codec and the crediting rules. The
store does the read-modify-write under its lock. The log is derived state: a
missing or damaged file reads as "no data" and costs ranking bias only.

The file is one JSON object, ``{"<canonical key>": <recalls>, ...}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from pi_memory.keywords import canonical_key

if TYPE_CHECKING:
    from pi_memory.retrieval import Hit, SearchResult

#: Recalls per keyword: one noisy session cannot dominate the table.
MAX_RECALLS: Final = 10
#: Keys per file; beyond it the least-recalled keys go first.
MAX_KEYS: Final = 5000
#: A query token shorter than this is not "mentioning" a longer keyword.
_MIN_PARTIAL: Final = 2


def parse_recalls(text: str) -> dict[str, int]:
    """The counts in a ``usage.json`` text; whatever is unusable is left out.

    Not JSON, or not an object: ``{}``. Inside the object, a key that has no
    canonical form or a value that is not a non-negative integer is skipped;
    counts above the cap are clamped; spellings of one keyword are merged.
    """
    # json is imported when used: the session-start path imports this module.
    import json

    try:
        data = json.loads(text.lstrip("\ufeff"))
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    counts: dict[str, int] = {}
    for raw_key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            continue
        key = canonical_key(str(raw_key))
        if key:
            counts[key] = min(MAX_RECALLS, counts.get(key, 0) + value)
    return _trim(counts, frozenset())


def render_recalls(counts: Mapping[str, int]) -> str:
    """``usage.json`` text: sorted keys, so equal counts are equal bytes."""
    import json

    return json.dumps(dict(counts), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _query_forms(query: str | Sequence[str]) -> list[str]:
    if isinstance(query, str):
        from pi_memory.retrieval import tokenize

        forms = [canonical_key(query), *(canonical_key(token) for token in tokenize(query))]
    else:
        forms = [canonical_key(token) for token in query]
    return [form for form in forms if form]


def mentions(forms: Sequence[str], key: str) -> bool:
    """Did a query (as canonical forms) mention keyword ``key``?

    Equal, or a substring either way: ``deploy`` mentions ``deploy-script``
    and ``rsync delete`` mentions ``rsync``. A one-character token is too
    weak to mention a longer keyword.
    """
    for form in forms:
        if form == key or key in form:
            return True
        if len(form) >= _MIN_PARTIAL and form in key:
            return True
    return False


def credited_keywords(
    query: str | Sequence[str],
    hits: Iterable[Hit],
    mode: str,
    page: int,
    fallback: bool,
) -> set[str]:
    """The canonical keys a search earns: hits' keywords that the query mentioned.

    ``query`` is the query text (or its tokens); ``hits`` are the returned
    page. Superseded hits earn nothing: their keyword has left the index.
    """
    if page != 1 or fallback or mode == "recent":
        return set()
    forms = _query_forms(query)
    credited: set[str] = set()
    for hit in hits:
        entry = hit.entry
        key = canonical_key(entry.keyword)
        if entry.live and key and key not in credited and mentions(forms, key):
            credited.add(key)
    return credited


def credits_for(result: SearchResult) -> set[str]:
    """:func:`credited_keywords` for a finished search."""
    return credited_keywords(result.query, result.hits, result.mode, result.page, result.fallback)


def apply_credits(counts: Mapping[str, int], keywords: Iterable[str]) -> dict[str, int]:
    """New counts with one recall added per keyword, capped per key and per file.

    When the file is over :data:`MAX_KEYS`, the lowest counts go first; among
    equal counts a key credited just now stays (or a full log could never
    learn a new keyword), and then the alphabetically last goes first.
    """
    updated = dict(counts)
    fresh: set[str] = set()
    for keyword in keywords:
        key = canonical_key(keyword)
        if key and key not in fresh:
            fresh.add(key)
            updated[key] = min(MAX_RECALLS, updated.get(key, 0) + 1)
    return _trim(updated, frozenset(fresh))


def _trim(counts: dict[str, int], fresh: frozenset[str]) -> dict[str, int]:
    if len(counts) <= MAX_KEYS:
        return counts
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0] not in fresh, item[0]))
    return dict(ranked[:MAX_KEYS])
