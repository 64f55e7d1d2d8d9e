"""Superseded-requirement candidates: two versions of one fact, both still live; pure.

A requirement changes in a later session, the change is written as a new
memory, and the old one stays live. Nothing here decides which is current —
it only finds pairs for a person, ``compact`` and the extraction prompt.

A pair of live entries in one layer is a candidate when:

- they share a keyword (canonical key) — templated rows about different
  subjects never do;
- their bodies are not identical after normalisation (that is a duplicate);
- they are about one subject: the Jaccard of their word tokens with every
  number removed is at least :data:`MIN_SIMILARITY_NUMBERS` when both carry
  numbers and the number sets differ (a diverged number — port, version,
  timeout — is the strongest signal), otherwise at least
  :data:`MIN_SIMILARITY_WORDS`;
- and they diverged: the numbers differ, or a few words were replaced (each
  side has between 1 and :data:`MAX_REPLACED_WORDS` words the other lacks; a
  pure addition is an elaboration, not a change).

``values`` are the differing numbers (older's first), or the replaced words.
``confidence`` is ``0.5 + 0.5 * similarity`` for a number conflict and
``0.5 * similarity`` for a word conflict, ``similarity`` being the token
Jaccard of the whole bodies; the ranking prefers diverging numbers, then
similarity. The older entry (by time, then id) is the one to supersede.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from pi_memory.duplicates import age_key
from pi_memory.entry import Entry, normalize_memory_text
from pi_memory.similarity import (
    PrefixIndex,
    jaccard,
    keyword_keys,
    number_list,
    rarity_ranks,
    token_list,
    without_numbers,
)

MIN_SIMILARITY_NUMBERS: Final = 0.3
MIN_SIMILARITY_WORDS: Final = 0.5
MAX_REPLACED_WORDS: Final = 3
#: Keyword groups up to this size are compared pair by pair; larger ones go
#: through the prefix index so that one popular keyword cannot cost n².
_SMALL_GROUP: Final = 16


@dataclass(frozen=True)
class ConflictPair:
    """Two live entries of one layer that look like two versions of one fact."""

    #: The entry to supersede if the newer one is current.
    older: str
    newer: str
    layer: str
    #: The shared keyword, spelled as the older entry spells it.
    shared: str
    #: The differing numbers, or the replaced words; the older entry's first.
    values: tuple[str, ...]
    confidence: float
    #: Token Jaccard of the two bodies, numbers included.
    similarity: float
    #: True when the divergence is in the numbers.
    numeric: bool


@dataclass(frozen=True)
class _Features:
    entry: Entry
    age: tuple[str, str]
    norm: str
    keywords: dict[str, str]
    tokens: frozenset[str]
    word_list: tuple[str, ...]
    words: frozenset[str]
    number_list: tuple[str, ...]
    numbers: frozenset[str]


def _features(entry: Entry) -> _Features:
    numbers = number_list(entry.body)
    all_tokens = token_list(entry.body)
    words = token_list(without_numbers(entry.body)) if numbers else all_tokens
    return _Features(
        entry=entry,
        age=age_key(entry),
        norm=normalize_memory_text(entry.body),
        keywords=keyword_keys([entry.keyword]),
        tokens=frozenset(all_tokens),
        word_list=tuple(words),
        words=frozenset(words),
        number_list=tuple(numbers),
        numbers=frozenset(numbers),
    )


def _judge(x: _Features, y: _Features) -> ConflictPair | None:
    """The rule for one pair of live entries of one layer."""
    shared = x.keywords.keys() & y.keywords.keys()
    if not shared or x.norm == y.norm:
        return None
    old, new = (x, y) if x.age <= y.age else (y, x)
    words = jaccard(old.words, new.words)
    numeric = bool(old.numbers and new.numbers and old.numbers != new.numbers)
    if numeric:
        if words < MIN_SIMILARITY_NUMBERS:
            return None
        values = _differing(old.number_list, new.numbers) + _differing(new.number_list, old.numbers)
    else:
        if words < MIN_SIMILARITY_WORDS:
            return None
        gone = _differing(old.word_list, new.words)
        came = _differing(new.word_list, old.words)
        if not (0 < len(gone) <= MAX_REPLACED_WORDS and 0 < len(came) <= MAX_REPLACED_WORDS):
            return None
        values = gone + came
    similarity = jaccard(old.tokens, new.tokens)
    return ConflictPair(
        older=old.entry.id,
        newer=new.entry.id,
        layer=x.entry.layer,
        shared=old.keywords[min(shared)],
        values=values,
        confidence=0.5 + 0.5 * similarity if numeric else 0.5 * similarity,
        similarity=similarity,
        numeric=numeric,
    )


def _differing(ordered: Sequence[str], other: frozenset[str]) -> tuple[str, ...]:
    return tuple(item for item in ordered if item not in other)


def _sort_key(pair: ConflictPair) -> tuple[bool, float, str, str, str, str, tuple[str, ...]]:
    return (
        not pair.numeric,
        -pair.similarity,
        pair.older,
        pair.newer,
        pair.layer,
        pair.shared,
        pair.values,
    )


def _by_layer(entries: Iterable[Entry]) -> dict[str, list[_Features]]:
    layers: dict[str, list[_Features]] = {}
    for entry in entries:
        if entry.live:
            layers.setdefault(entry.layer, []).append(_features(entry))
    return layers


def find_conflicts_bruteforce(entries: Iterable[Entry]) -> list[ConflictPair]:
    """The definition: every pair of live entries of each layer, judged one by one."""
    found: list[ConflictPair] = []
    for group in _by_layer(entries).values():
        for i, x in enumerate(group):
            for y in group[i + 1 :]:
                pair = _judge(x, y)
                if pair is not None:
                    found.append(pair)
    return sorted(found, key=_sort_key)


def find_conflicts(entries: Iterable[Entry], limit: int | None = None) -> list[ConflictPair]:
    """Conflict pairs, diverging numbers first, then by similarity; the brute force's list."""
    found: list[ConflictPair] = []
    for group in _by_layer(entries).values():
        for i, j in _candidates(group):
            pair = _judge(group[i], group[j])
            if pair is not None:
                found.append(pair)
    ranked = sorted(found, key=_sort_key)
    return ranked if limit is None else ranked[: max(0, limit)]


def _candidates(group: Sequence[_Features]) -> set[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, that contain every pair the rule accepts."""
    by_keyword: dict[str, list[int]] = {}
    for index, item in enumerate(group):
        for key in item.keywords:
            by_keyword.setdefault(key, []).append(index)
    pairs: set[tuple[int, int]] = set()
    ranks: dict[str, int] | None = None
    for members in by_keyword.values():
        if len(members) <= _SMALL_GROUP:
            pairs.update(_similar_sizes(group, members))
            continue
        if ranks is None:
            ranks = rarity_ranks(item.words for item in group)
        prefixes = PrefixIndex(MIN_SIMILARITY_NUMBERS, ranks)
        for i in sorted(members, key=lambda k: (len(group[k].words), k)):
            words = group[i].words
            pairs.update((min(i, j), max(i, j)) for j in prefixes.probe(words))
            prefixes.add(i, words)
    return pairs


def _similar_sizes(group: Sequence[_Features], members: list[int]) -> list[tuple[int, int]]:
    # Jaccard(x, y) <= min/max of the sizes: pairs that cannot reach the
    # lowest similarity gate are not worth judging (the tolerance keeps a
    # pair exactly at the gate despite float rounding).
    sizes = [(len(group[i].words), i) for i in members]
    return [
        (i, j)
        for n, (size_i, i) in enumerate(sizes)
        for size_j, j in sizes[n + 1 :]
        if size_i
        and size_j
        and min(size_i, size_j) >= MIN_SIMILARITY_NUMBERS * max(size_i, size_j) - 1e-9
    ]
