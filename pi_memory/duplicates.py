"""Near-duplicate candidates: the same fact recorded twice in different words; pure.

Exact duplicates are folded at write time; what is left can only be resolved
by a judgement call, so this module never merges anything. The rule, per pair
of live entries in the same layer:

    token   = Jaccard of the bodies' word tokens (Han runs as 2-grams)
    keyword = Jaccard of the canonical keyword keys
    score   = 0.6 * token + 0.4 * keyword        (1 for an identical body)

A pair is a candidate when the number guard lets it through (both bodies
carry numbers and the number sets differ → "port 80" and "port 81" are two
facts, not a rewording), when ``token >= 0.45`` or (at least two shared
keywords and ``token >= 0.25``), and when ``score >= 0.5``. A false candidate
costs one line in a report, a false merge loses a memory: the bias is towards
silence.

:func:`find_duplicates_bruteforce` is that rule applied to every pair: the
definition. :func:`find_duplicates` returns exactly the same list without
looking at every pair (identical bodies by hash, the rest through prefix
filtering within each group of bodies that carry the same numbers).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from pi_memory.entry import Entry, format_time, normalize_memory_text, parse_time
from pi_memory.similarity import (
    PrefixIndex,
    jaccard,
    keyword_keys,
    number_list,
    rarity_ranks,
    tokens,
)

TOKEN_WEIGHT: Final = 0.6
KEYWORD_WEIGHT: Final = 0.4
MIN_TOKEN: Final = 0.45
MIN_TOKEN_WITH_KEYWORDS: Final = 0.25
MIN_SHARED_KEYWORDS: Final = 2
MIN_SCORE: Final = 0.5
#: Keyword groups up to this size are compared pair by pair.
_SMALL_GROUP: Final = 16


@dataclass(frozen=True)
class DuplicatePair:
    """Two live entries of one layer that look like the same fact."""

    #: The older entry's id (by time, then id).
    a: str
    #: The newer entry's id.
    b: str
    layer: str
    score: float
    #: Token Jaccard of the two bodies (1 for an identical body).
    token: float
    #: Keywords both carry (canonical match), spelled as ``a`` spells them, sorted.
    shared: tuple[str, ...]


@dataclass(frozen=True)
class _Features:
    entry: Entry
    age: tuple[str, str]
    norm: str
    tokens: frozenset[str]
    numbers: frozenset[str]
    keywords: dict[str, str]


def _features(entry: Entry) -> _Features:
    return _Features(
        entry=entry,
        age=age_key(entry),
        norm=normalize_memory_text(entry.body),
        tokens=tokens(entry.body),
        numbers=frozenset(number_list(entry.body)),
        keywords=keyword_keys([entry.keyword]),
    )


def age_key(entry: Entry) -> tuple[str, str]:
    """Oldest first: the time as ``YYYY-MM-DD HH:MM:SS`` (unreadable sorts oldest), then the id."""
    text = entry.time
    if not (len(text) == 19 and text[10] == " "):
        parsed = parse_time(text)
        text = format_time(parsed) if parsed is not None else ""
    return (text, entry.id)


def _judge(x: _Features, y: _Features) -> DuplicatePair | None:
    """The rule for one pair of live entries of one layer."""
    shared_keys = x.keywords.keys() & y.keywords.keys()
    if x.norm == y.norm:
        token = score = 1.0
    else:
        if x.numbers and y.numbers and x.numbers != y.numbers:
            return None
        token = jaccard(x.tokens, y.tokens)
        if not (
            token >= MIN_TOKEN
            or (len(shared_keys) >= MIN_SHARED_KEYWORDS and token >= MIN_TOKEN_WITH_KEYWORDS)
        ):
            return None
        keyword = jaccard(x.keywords.keys(), y.keywords.keys())
        score = TOKEN_WEIGHT * token + KEYWORD_WEIGHT * keyword
        if score < MIN_SCORE:
            return None
    older, newer = (x, y) if x.age <= y.age else (y, x)
    return DuplicatePair(
        a=older.entry.id,
        b=newer.entry.id,
        layer=x.entry.layer,
        score=score,
        token=token,
        shared=tuple(sorted(older.keywords[key] for key in shared_keys)),
    )


def _sort_key(pair: DuplicatePair) -> tuple[float, str, str, str, float, tuple[str, ...]]:
    return (-pair.score, pair.a, pair.b, pair.layer, -pair.token, pair.shared)


def _by_layer(entries: Iterable[Entry]) -> dict[str, list[_Features]]:
    layers: dict[str, list[_Features]] = {}
    for entry in entries:
        if entry.live:
            layers.setdefault(entry.layer, []).append(_features(entry))
    return layers


def _ranked(pairs: Iterable[DuplicatePair], limit: int | None) -> list[DuplicatePair]:
    ranked = sorted(pairs, key=_sort_key)
    return ranked if limit is None else ranked[: max(0, limit)]


def find_duplicates_bruteforce(entries: Iterable[Entry]) -> list[DuplicatePair]:
    """The definition: every pair of live entries of each layer, judged one by one."""
    found: list[DuplicatePair] = []
    for group in _by_layer(entries).values():
        for i, x in enumerate(group):
            for y in group[i + 1 :]:
                pair = _judge(x, y)
                if pair is not None:
                    found.append(pair)
    return _ranked(found, None)


def find_duplicates(entries: Iterable[Entry], limit: int | None = None) -> list[DuplicatePair]:
    """Near-duplicate pairs, best first (score, then ids); the same list as the brute force.

    ``limit`` keeps only the first ``limit`` pairs of that order.
    """
    found: list[DuplicatePair] = []
    for group in _by_layer(entries).values():
        for i, j in _candidates(group):
            pair = _judge(group[i], group[j])
            if pair is not None:
                found.append(pair)
    return _ranked(found, limit)


def _candidates(group: Sequence[_Features]) -> set[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, that contain every pair the rule accepts.

    A pair sharing no keyword scores ``0.6 * token``, so it needs
    ``token >= 0.5 / 0.6``: one store-wide join at that high threshold keeps
    prefixes short. Pairs sharing a keyword are joined within their keyword's
    group at the acceptance threshold.
    """
    pairs = _identical_bodies(group)
    ranks = rarity_ranks(item.tokens for item in group)
    _join(group, list(range(len(group))), MIN_SCORE / TOKEN_WEIGHT, ranks, pairs)
    by_keyword: dict[str, list[int]] = {}
    for index, item in enumerate(group):
        for key in item.keywords:
            by_keyword.setdefault(key, []).append(index)
    for members in by_keyword.values():
        if len(members) <= _SMALL_GROUP:
            pairs.update(_all_pairs(members))
            continue
        # Only the two-shared-keywords branch accepts a token Jaccard below
        # 0.45, and it needs entries that carry two keywords.
        multi = sum(1 for i in members if len(group[i].keywords) >= MIN_SHARED_KEYWORDS) >= 2
        threshold = MIN_TOKEN_WITH_KEYWORDS if multi else MIN_TOKEN
        _join(group, members, threshold, ranks, pairs)
    return pairs


def _join(
    group: Sequence[_Features],
    members: list[int],
    threshold: float,
    ranks: dict[str, int],
    out: set[tuple[int, int]],
) -> None:
    """Add every pair of ``members`` with token Jaccard >= ``threshold`` the number guard allows."""
    # The number guard splits the members: bodies with numbers pair only with
    # bodies carrying the same numbers, or with bodies carrying none.
    by_numbers: dict[frozenset[str], list[int]] = {}
    for index in members:
        by_numbers.setdefault(group[index].numbers, []).append(index)
    plain = PrefixIndex(threshold, ranks)
    _self_join(group, by_numbers.pop(frozenset(), []), plain, out)
    for same in by_numbers.values():
        _self_join(group, same, PrefixIndex(threshold, ranks), out)
        for i in same:
            for j in plain.probe(group[i].tokens):
                out.add((min(i, j), max(i, j)))


def _self_join(
    group: Sequence[_Features], members: list[int], index: PrefixIndex, out: set[tuple[int, int]]
) -> None:
    # Ascending size: every earlier set is no larger, so one probe per set
    # finds each qualifying pair once.
    for i in sorted(members, key=lambda k: (len(group[k].tokens), k)):
        items = group[i].tokens
        for j in index.probe(items):
            out.add((min(i, j), max(i, j)))
        index.add(i, items)


def _identical_bodies(group: Sequence[_Features]) -> set[tuple[int, int]]:
    by_norm: dict[str, list[int]] = {}
    for index, item in enumerate(group):
        by_norm.setdefault(item.norm, []).append(index)
    return {pair for same in by_norm.values() if len(same) > 1 for pair in _all_pairs(same)}


def _all_pairs(indexes: list[int]) -> Iterator[tuple[int, int]]:
    for n, i in enumerate(indexes):
        for j in indexes[n + 1 :]:
            yield (i, j)
