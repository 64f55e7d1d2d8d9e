"""Superseded-requirement candidates: two versions of one fact, both still live; pure.

A requirement changes in a later session, the change is written as a new
memory, and the old one stays live. Nothing here decides which is current —
it only finds pairs for a person, ``compact`` and the extraction prompt.

A pair of live entries in one layer is a candidate when:

- they share a keyword (canonical key) — templated rows about different
  subjects never do;
- their bodies are not identical after normalisation (that is a duplicate);
- they are about one subject: when both carry numbers and the number sets
  differ (a diverged number — port, version, timeout — is the strongest
  signal), the Jaccard of their word tokens with every number removed is at
  least :data:`MIN_SIMILARITY_NUMBERS`; otherwise the Jaccard of their
  content words (function words dropped, inflections folded: see
  :mod:`pi_memory.detect.text_features`) is at least :data:`MIN_SIMILARITY_WORDS`;
- and they diverged in a value: the numbers differ, or a few content words
  were swapped for others where they stood (each side has between 1 and
  :data:`MAX_REPLACED_WORDS` content words the other lacks, and nothing else
  was added, dropped or moved: :func:`substituted_in_place`). A pure addition
  is an elaboration, not a change; a rewording — ``every``/``each``,
  ``deploys``/``deploy``, ``started by``/``that … starts``, ``goes through …
  to``/``uses … to reach`` — is a merge candidate, not a conflict; and Han
  text is never a value (its tokens are character pairs, not words).

``values`` are the differing numbers (older's first), or the replaced
content words as each body spells them.
``confidence`` is ``0.5 + 0.5 * similarity`` for a number conflict and
``0.5 * similarity`` for a word conflict, ``similarity`` being the token
Jaccard of the whole bodies; the ranking prefers diverging numbers, then
similarity. The older entry (by time, then id) is the one to supersede.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import compress, repeat
from operator import attrgetter, not_

from pi_memory.detect.pairs import judge_candidates, judge_every_pair, oldest_first, ranked
from pi_memory.detect.set_join import (
    SMALL_GROUP,
    PrefixIndex,
    dense_join,
    dense_pays,
    group_order,
    prefix_cost,
    rank_order,
    self_join,
    size_allows,
)
from pi_memory.detect.text_features import (
    BodyFacts,
    Features,
    body_order,
    content_word,
    jaccard,
    spelled,
)
from pi_memory.entry import Entry
from pi_memory.text import is_han

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

MIN_SIMILARITY_NUMBERS: Final = 0.3
MIN_SIMILARITY_WORDS: Final = 0.5
MAX_REPLACED_WORDS: Final = 3


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


def _judge(x: Features, y: Features, now: str) -> ConflictPair | None:
    """The rule for one pair of live entries of one layer (one keyword per entry)."""
    if not x.key or x.key != y.key or x.norm == y.norm:
        return None
    old, new = oldest_first(x, y, now)
    words = jaccard(old.words, new.words)
    numeric = bool(old.numbers and new.numbers and old.numbers != new.numbers)
    if numeric:
        if words < MIN_SIMILARITY_NUMBERS:
            return None
        old_numbers, new_numbers = body_order(old.entry.body)[0], body_order(new.entry.body)[0]
        values = _differing(old_numbers, new.numbers) + _differing(new_numbers, old.numbers)
    else:
        if jaccard(old.content, new.content) < MIN_SIMILARITY_WORDS:
            return None
        _, old_words, old_content = body_order(old.entry.body)
        _, new_words, new_content = body_order(new.entry.body)
        gone = _differing(old_content, new.content)
        came = _differing(new_content, old.content)
        if not (0 < len(gone) <= MAX_REPLACED_WORDS and 0 < len(came) <= MAX_REPLACED_WORDS):
            return None
        if not substituted_in_place(old_content, new_content):
            return None
        values = spelled(old_words, gone) + spelled(new_words, came)
    similarity = jaccard(old.tokens, new.tokens)
    return ConflictPair(
        older=old.entry.id,
        newer=new.entry.id,
        layer=x.entry.layer,
        shared=old.entry.keyword,
        values=values,
        confidence=0.5 + 0.5 * similarity if numeric else 0.5 * similarity,
        similarity=similarity,
        numeric=numeric,
    )


def substituted_in_place(old: Sequence[str], new: Sequence[str]) -> bool:
    """Whether ``new`` is ``old`` with a few values swapped where they stood.

    The content words must line up but for replaced runs of at most
    :data:`MAX_REPLACED_WORDS` words on each side: a word added, dropped or
    moved is a rewording (a merge candidate), not a changed value. Han text is
    never a value: its tokens are 2-character shingles, not words.
    """
    from difflib import SequenceMatcher

    replaced = False
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace" or max(i2 - i1, j2 - j1) > MAX_REPLACED_WORDS:
            return False
        if any(is_han(token[0]) for token in (*old[i1:i2], *new[j1:j2])):
            return False
        replaced = True
    return replaced


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


def find_conflicts_bruteforce(
    entries: Iterable[Entry], now: datetime | None = None
) -> list[ConflictPair]:
    """The definition: every pair of live entries of each layer, judged one by one."""
    return ranked(judge_every_pair(entries, _judge, now), _sort_key, None)


def find_conflicts(
    entries: Iterable[Entry],
    limit: int | None = None,
    known: Mapping[str, BodyFacts] | None = None,
    now: datetime | None = None,
) -> list[ConflictPair]:
    """Conflict pairs, diverging numbers first, then by similarity; the brute force's list
    (``known``: as :func:`~pi_memory.detect.duplicates.find_duplicates` takes it)."""
    return ranked(judge_candidates(entries, _candidates, _judge, known, now), _sort_key, limit)


def _candidates(group: Sequence[Features]) -> set[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, that contain every pair the rule accepts.

    Two necessary conditions, one per kind of conflict, each with its own join:

    - a word conflict needs content-word Jaccard >= 0.5 and at most 3 content
      words missing on each side, so the sets overlap in all but 3 of their
      words and their sizes differ by at most 3: prefixes of at most 4 tokens;
    - a number conflict needs both sides to carry numbers, and word Jaccard >= 0.3.
    """
    ranks, tokens, by_keyword = group_order(group)
    words = list(map(_WORDS, group))
    numbers = list(map(_NUMBERS, group))
    pairs: set[tuple[int, int]] = set()
    lemmas: list[int] | None = None
    for keyword_members in by_keyword.values():
        if len(keyword_members) < 2:
            continue
        # A body of numbers alone has nothing to compare (a body without words has
        # no content words either).
        members = list(compress(keyword_members, map(words.__getitem__, keyword_members)))
        if len(members) <= SMALL_GROUP:
            pairs.update(p for p in _plausible_pairs(group, members) if _may_conflict(group, *p))
            continue
        # Without numbers a body's words are its tokens, already in order: only
        # the bodies with numbers need their words ordered.
        orders = _WordOrders(tokens)
        numbered = list(compress(members, map(numbers.__getitem__, members)))
        # Words are ids in the order of the tokens.
        orders.update(zip(numbered, map(sorted, map(words.__getitem__, numbered))))
        if lemmas is None:
            lemmas = _lemma_ranks(ranks)
        plain = list(compress(members, map(not_, map(numbers.__getitem__, members))))
        contents = _content_orders(group, plain, numbered, tokens, ranks=ranks, lemmas=lemmas)
        by_words: set[tuple[int, int]] = set()
        by_numbers: set[tuple[int, int]] = set()
        if _dense(members, numbered, orders):
            content = [item.content for item in group]
            by_words.update(dense_join(content, members, MIN_SIMILARITY_WORDS))
            words = [item.words for item in group]
            by_numbers.update(dense_join(words, numbered, MIN_SIMILARITY_NUMBERS))
        else:
            prefixes = PrefixIndex(MIN_SIMILARITY_WORDS, MAX_REPLACED_WORDS, probes_no_smaller=True)
            self_join(members, contents, prefixes, by_words)
            prefixes = PrefixIndex(MIN_SIMILARITY_NUMBERS, probes_no_smaller=True)
            self_join(numbered, orders, prefixes, by_numbers)
        # On templated notes the filters let through many pairs that share
        # most words yet replace none, or too many: checking the counts here
        # is much cheaper than judging them.
        pairs.update(p for p in by_words if _words_may_conflict(group[p[0]], group[p[1]]))
        pairs.update(p for p in by_numbers if _numbers_may_conflict(group[p[0]], group[p[1]]))
    return pairs


#: In :func:`_lemma_ranks`, a function word's: it is no content word.
_NO_LEMMA: Final = -1
_NO_LEMMAS: Final = frozenset([_NO_LEMMA])
_WORDS: Final = attrgetter("words")
_NUMBERS: Final = attrgetter("numbers")


def _lemma_ranks(ranks: dict[str, int]) -> list[int]:
    """By token rank, the rank of the token's lemma as a content word (:data:`_NO_LEMMA`
    for a function word): made once per layer, for the tokens the layer ranked."""
    spelled_by_rank = sorted(ranks, key=ranks.__getitem__)
    lemmas = [content_word(token) for token in spelled_by_rank]
    return [ranks[lemma] if lemma else _NO_LEMMA for lemma in lemmas]


def _content_orders(
    group: Sequence[Features],
    plain: list[int],
    numbered: list[int],
    tokens: list[list[int]],
    *,
    ranks: dict[str, int],
    lemmas: list[int],
) -> dict[int, list[int]]:
    """Content words in rank order (see :func:`rank_order`) of the ``plain`` members (no
    numbers) and the ``numbered`` ones.

    A body without numbers has as content words its tokens' lemmas, function words
    left out: they come from its token ranks by :func:`_lemma_ranks`, without looking
    a word up again (at 100,000 memories the look-ups cost more than the join). The
    members are worked a column at a time, in the interpreter's C loops.
    """
    lemma_sets = map(set, map(map, repeat(lemmas.__getitem__), map(tokens.__getitem__, plain)))
    contents = dict(zip(plain, map(sorted, map(set.difference, lemma_sets, repeat(_NO_LEMMAS)))))
    contents.update((i, rank_order(group[i].content, ranks)) for i in numbered)
    return contents


class _WordOrders(dict[int, list[int]]):
    """Each body's number-free words in rank order, by index: those of a body with numbers
    as given, any other's its tokens' order (its words are its tokens)."""

    def __init__(self, tokens: list[list[int]]) -> None:
        super().__init__()
        self._tokens = tokens

    def __missing__(self, index: int) -> list[int]:
        return self._tokens[index]


def _may_conflict(group: Sequence[Features], i: int, j: int) -> bool:
    """Necessary for either kind of conflict: the one the pair's numbers call for."""
    x, y = group[i], group[j]
    if x.numbers and y.numbers and x.numbers != y.numbers:
        return jaccard(x.words, y.words) >= MIN_SIMILARITY_NUMBERS
    return _words_may_conflict(x, y)


def _words_may_conflict(x: Features, y: Features) -> bool:
    """Necessary for a word conflict: each side replaces 1 to 3 content words, Jaccard >= 0.5."""
    common = len(x.content & y.content)
    small, large = len(x.content), len(y.content)
    if small > large:
        small, large = large, small
    return (
        large - MAX_REPLACED_WORDS <= common < small
        and jaccard(x.content, y.content) >= MIN_SIMILARITY_WORDS
    )


def _numbers_may_conflict(x: Features, y: Features) -> bool:
    """Necessary for a number conflict: the number sets differ, word Jaccard >= 0.3.

    Both sides carry numbers: the join only pairs bodies that do.
    """
    return x.numbers != y.numbers and jaccard(x.words, y.words) >= MIN_SIMILARITY_NUMBERS


def _dense(members: list[int], numbered: list[int], orders: dict[int, list[int]]) -> bool:
    """Whether comparing every pair beats the prefix filters for one keyword group.

    Word conflicts need all but a few words shared, so their prefixes are
    short; number conflicts are what a narrow vocabulary makes expensive.
    """
    pairs = len(members) * (len(members) - 1) // 2 + len(numbered) * (len(numbered) - 1) // 2
    return dense_pays(
        len(members),
        pairs,
        lambda: (
            prefix_cost(orders, numbered, MIN_SIMILARITY_NUMBERS)
            + prefix_cost(orders, members, MIN_SIMILARITY_WORDS)
        ),
    )


def _plausible_pairs(group: Sequence[Features], members: list[int]) -> Iterator[tuple[int, int]]:
    """Pairs of a small group whose word-set sizes allow either kind of conflict.

    ``jaccard(x, y) <= min(|x|, |y|) / max(|x|, |y|)``; the tolerance keeps a
    pair exactly at a gate despite float rounding.
    """
    sized = [
        (i, len(group[i].words), len(group[i].content), bool(group[i].numbers)) for i in members
    ]
    for n, (i, words_i, content_i, numbered_i) in enumerate(sized):
        for j, words_j, content_j, numbered_j in sized[n + 1 :]:
            small, large = (words_i, words_j) if words_i <= words_j else (words_j, words_i)
            if numbered_i and numbered_j and size_allows(small, large, MIN_SIMILARITY_NUMBERS):
                yield (i, j)
                continue
            small, large = (
                (content_i, content_j) if content_i <= content_j else (content_j, content_i)
            )
            if large - small <= MAX_REPLACED_WORDS and size_allows(
                small, large, MIN_SIMILARITY_WORDS
            ):
                yield (i, j)
