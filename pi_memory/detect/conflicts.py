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

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain, compress, islice, repeat
from operator import attrgetter, eq, gt, itemgetter, mul

from pi_memory.detect.pairs import judge_candidates, judge_every_pair, oldest_first, ranked
from pi_memory.detect.set_join import (
    EPS,
    SMALL_GROUP,
    PrefixIndex,
    dense_join,
    dense_pays,
    group_order,
    prefix_cost,
    self_join,
    size_allows,
)
from pi_memory.detect.text_features import (
    BodyFacts,
    Features,
    body_order,
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
        gone = _differing(old_content, frozenset(new_content))
        came = _differing(new_content, frozenset(old_content))
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
      words and their sizes differ by at most 3: prefixes of at most 5 words
      that share two (:func:`_word_join`);
    - a number conflict needs both sides to carry numbers, and word Jaccard >= 0.3.

    What the joins let through is checked against the counts both rules need
    (:func:`_words_may_conflict`, :func:`_numbers_may_conflict`) for the whole
    layer at once; a small group's pairs are checked as they are met
    (:func:`_small_group`).
    """
    _, _, by_keyword = group_order(group)
    keywords = list(by_keyword.values())
    # A body of numbers alone has nothing to compare (a body without words has no
    # content words either); most stores have none.
    every_one_worded = all(map(_WORDS, group))
    found: set[tuple[int, int]] = set()
    by_words: set[tuple[int, int]] = set()
    by_numbers: set[tuple[int, int]] = set()
    for keyword_members in compress(keywords, map(gt, map(len, keywords), repeat(1))):
        members = (
            keyword_members if every_one_worded else [i for i in keyword_members if group[i].words]
        )
        if len(members) <= SMALL_GROUP:
            _small_group(group, members, found)
        else:
            _large_group(group, members, out=(by_words, by_numbers))
    found.update(_words_may_conflict(group, by_words))
    found.update(_numbers_may_conflict(group, by_numbers.difference(found)))
    return found


def _large_group(
    group: Sequence[Features],
    members: list[int],
    *,
    out: tuple[set[tuple[int, int]], set[tuple[int, int]]],
) -> None:
    """The joins of one keyword's ``members`` (more than :data:`SMALL_GROUP`), their pairs
    into ``out`` (for word and for number conflicts)."""
    by_words, by_numbers = out
    items = list(map(group.__getitem__, members))
    numbered = list(compress(members, map(_NUMBERS, items)))
    _word_join(members, list(map(_CONTENT, items)), by_words)
    if len(numbered) < 2:
        return
    # Words are ids in the order of the tokens.
    orders = {i: sorted(group[i].words) for i in numbered}
    pairs = len(numbered) * (len(numbered) - 1) // 2
    if dense_pays(
        len(numbered), pairs, lambda: prefix_cost(orders, numbered, MIN_SIMILARITY_NUMBERS)
    ):
        words = list(map(_WORDS, map(group.__getitem__, numbered)))
        found = dense_join(words, range(len(numbered)), MIN_SIMILARITY_NUMBERS)
        by_numbers.update((numbered[i], numbered[j]) for i, j in found)
    else:
        prefixes = PrefixIndex(MIN_SIMILARITY_NUMBERS, probes_no_smaller=True)
        self_join(numbered, orders, prefixes, by_numbers)


#: How many of a word conflict's shared content words its join looks for.
_SHARED_FIRST: Final = 2
#: The fewest content words a side of a word conflict has: it shares two words at least
#: and lacks one of the other side's (see :func:`_word_join`).
_FEWEST_WORDS: Final = 3
#: Bodies whose prefixes :func:`_meetings` counts, at most.
_MEETINGS_SAMPLE: Final = 250
#: The first content words of a body that :func:`_meetings` counts.
_WORD_PREFIX: Final = itemgetter(slice(0, MAX_REPLACED_WORDS + 2))


def _word_join(
    members: list[int], contents: list[frozenset[int]], out: set[tuple[int, int]]
) -> None:
    """Pairs of ``members`` (in index order) that may be a word conflict, into ``out``
    (either way round), from their ``contents`` (by position): by a prefix filter, or by
    comparing every pair where that pays.

    A word conflict's sides ``x`` and ``y`` share ``c`` content words, and each
    lacks ``g`` of the other's, ``1 <= g <= MAX_REPLACED_WORDS``; Jaccard >= 0.5
    is ``c >= g_x + g_y``. In any fixed order (rarest first here) the words of a
    side that come before the second word the two share are words the other
    lacks, so both shared words sit among a side's first ``g + 2`` words. The
    bodies are taken in ascending size, so the one met earlier (``x``, no larger)
    has ``g_x <= g_y`` and so ``3 * g_x <= |x|``; the later one has
    ``2 * g_y + 1 <= |y|`` (see :func:`_prefix_lengths`). A pair is a candidate
    when its two sides' prefixes hold two shared words and the earlier one's size
    is one a word conflict allows (:class:`_SmallestPartner`); the postings drop
    what no later body can pair with as the sizes grow.
    """
    # Ascending size, then index (the sort is stable): each pair meets once, when its
    # later side looks.
    sizes = list(map(len, contents))
    by_size = sorted(range(len(members)), key=sizes.__getitem__)
    sizes.sort()
    # Content words are ids in the order of the tokens: rarest first. Sorted once, for
    # the estimate and the join alike.
    orders = list(map(sorted, map(contents.__getitem__, by_size)))
    pairs = len(members) * (len(members) - 1) // 2
    if dense_pays(len(members), pairs, lambda: _meetings(orders)):
        # The members are in index order, so a pair's positions are in the order of
        # its indexes.
        found = dense_join(contents, range(len(members)), MIN_SIMILARITY_WORDS)
        out.update((members[i], members[j]) for i, j in found)
        return
    _size_ordered_join(list(map(members.__getitem__, by_size)), orders, sizes, out)


def _size_ordered_join(
    ordered: list[int], orders: list[list[int]], sizes: list[int], out: set[tuple[int, int]]
) -> None:
    """:func:`_word_join`'s prefix filter over ``ordered`` (ascending ``sizes``), whose
    content words are ``orders``: its pairs into ``out``."""
    # Where each word was first met, and the positions of every word met again: most
    # words begin one body of the group only, and need no list.
    first: dict[int, int] = {}
    postings: dict[int, list[int]] = {}
    first_get = first.get
    posting_of = postings.get
    met: list[int] = []
    end = len(sizes)
    here = bisect_left(sizes, _FEWEST_WORDS)
    while here < end:
        # The bodies of one size: the same prefixes, and the same earliest partner.
        size = sizes[here]
        stop = bisect_right(sizes, size, here)
        fewest = bisect_left(sizes, _SMALLEST_PARTNER[size], 0, here)
        indexed, probed = _prefix_lengths(size)
        looks_further = probed > indexed
        for order in orders[here:stop]:
            for word in order[:indexed]:
                if word not in first:
                    first[word] = here
                    continue
                posting = posting_of(word)
                if posting is None:
                    earliest = first[word]
                    if earliest >= fewest:
                        postings[word] = [earliest, here]
                        met.append(earliest)
                    else:
                        postings[word] = [here]
                else:
                    if posting and posting[0] < fewest:
                        del posting[: bisect_left(posting, fewest)]
                    met += posting
                    posting.append(here)
            for word in order[indexed:probed] if looks_further else ():
                posting = posting_of(word)
                if posting is None:
                    once = first_get(word)
                    if once is not None and once >= fewest:
                        met.append(once)
                else:
                    if posting and posting[0] < fewest:
                        del posting[: bisect_left(posting, fewest)]
                    met += posting
            if met:
                if len(met) > 1:
                    # Met through two words: twice in the list, next to each other once
                    # sorted.
                    met.sort()
                    twice = set(compress(met, map(eq, met, islice(met, 1, None))))
                    if twice:
                        i = ordered[here]
                        out.update((ordered[other], i) for other in twice)
                # Most bodies meet nothing, and keep the empty list.
                met = []
            here += 1


def _prefix_lengths(size: int) -> tuple[int, int]:
    """How many of a body's first content words the word join indexes, and how many it
    looks up, for a body of ``size`` of them (at least :data:`_FEWEST_WORDS`).

    Two shared words and the ``g`` words a side lacks: ``g <= MAX_REPLACED_WORDS``,
    and ``g <= size // 3`` for the earlier (indexed) side, ``g <= (size - 1) // 2``
    for the later one (see :func:`_word_join`).
    """
    return (
        _SHARED_FIRST + min(MAX_REPLACED_WORDS, size // 3),
        _SHARED_FIRST + min(MAX_REPLACED_WORDS, (size - 1) // 2),
    )


class _SmallestPartner(dict[int, int]):
    """The fewest content words a word conflict's smaller side can have, by the larger
    side's number of them, worked out on first sight.

    It shares all but :data:`MAX_REPLACED_WORDS` of the larger side's words and
    lacks one of them, so it has ``size - MAX_REPLACED_WORDS + 1`` at least; and
    with ``shared <= smaller - 1``, Jaccard ``>= t`` (``shared >= t / (1 + t) *
    (smaller + larger)``) needs ``smaller >= t * size + 1 + t``.
    """

    def __missing__(self, size: int) -> int:
        gate = MIN_SIMILARITY_WORDS
        found = max(size - MAX_REPLACED_WORDS + 1, math.ceil(gate * size + 1 + gate - EPS))
        self[size] = found
        return found


_SMALLEST_PARTNER: Final = _SmallestPartner()


def _meetings(orders: list[list[int]]) -> float:
    """About how many posting entries :func:`_word_join`'s prefix filter would visit, from
    the bodies' content words in order: it meets a pair through each word their first
    words share, counted on an evenly spaced sample of :data:`_MEETINGS_SAMPLE` bodies
    and scaled up, as :func:`~pi_memory.detect.set_join.prefix_cost` counts."""
    step = max(1, -(-len(orders) // _MEETINGS_SAMPLE))
    sample = orders[::step]
    counts = Counter(chain.from_iterable(map(_WORD_PREFIX, sample)))
    held = list(counts.values())
    squares: int = sum(map(mul, held, held))
    return (squares - sum(held)) / 2 * (len(orders) / len(sample)) ** 2


_WORDS: Final = attrgetter("words")
_NUMBERS: Final = attrgetter("numbers")
_CONTENT: Final = attrgetter("content")


def _words_may_conflict(
    group: Sequence[Features], pairs: Iterable[tuple[int, int]]
) -> set[tuple[int, int]]:
    """Of ``pairs``, as ``(low, high)``, those that pass what a word conflict needs: each
    side replaces 1 to 3 content words, and their Jaccard is at least 0.5.

    On templated notes the joins let through many pairs that share most words yet
    replace none, or too many: checking the counts here is much cheaper than judging.
    """
    found: set[tuple[int, int]] = set()
    for i, j in pairs:
        x, y = group[i].content, group[j].content
        if _words_fit(len(x & y), len(x), len(y)):
            found.add((i, j) if i < j else (j, i))
    return found


def _words_fit(common: int, a: int, b: int) -> bool:
    """Whether sets of ``a`` and ``b`` content words that share ``common`` pass the counts
    a word conflict needs (see :func:`_words_may_conflict`)."""
    return (
        common < a
        and common < b
        and a <= common + MAX_REPLACED_WORDS
        and b <= common + MAX_REPLACED_WORDS
        and common >= MIN_SIMILARITY_WORDS * (a + b - common) - EPS
    )


def _numbers_may_conflict(
    group: Sequence[Features], pairs: Iterable[tuple[int, int]]
) -> set[tuple[int, int]]:
    """Of ``pairs`` (each ``(low, high)``, both sides with numbers), those that pass what a
    number conflict needs: the number sets differ, word Jaccard >= 0.3."""
    found: set[tuple[int, int]] = set()
    for i, j in pairs:
        x, y = group[i], group[j]
        if x.numbers != y.numbers and _numbers_fit(
            len(x.words & y.words), len(x.words), len(y.words)
        ):
            found.add((i, j))
    return found


def _numbers_fit(common: int, a: int, b: int) -> bool:
    """Whether word sets of ``a`` and ``b`` that share ``common`` pass the word Jaccard a
    number conflict needs (see :func:`_numbers_may_conflict`)."""
    return common >= MIN_SIMILARITY_NUMBERS * (a + b - common) - EPS


def _small_group(
    group: Sequence[Features], members: list[int], found: set[tuple[int, int]]
) -> None:
    """Pairs of a small group that pass the counts the conflict their numbers call for
    needs, into ``found``: a number conflict's when both carry numbers and they differ
    (:func:`_numbers_may_conflict`), a word conflict's otherwise
    (:func:`_words_may_conflict`); sizes that cannot reach them are passed over before
    the sets are intersected (see :class:`_SmallestPartner`).

    ``jaccard(x, y) <= min(|x|, |y|) / max(|x|, |y|)``; the tolerance keeps a
    pair exactly at a gate despite float rounding.
    """
    # Ascending number of content words: a body's word conflicts are with the next few
    # (the smallest partner grows with the size), and a body without numbers has no
    # other kind.
    sized = sorted(
        (len(x.content), i, x.words, len(x.words), x.content, x.numbers)
        for i, x in zip(members, map(group.__getitem__, members))
    )
    for n, (size_i, i, words_i, many_i, content_i, numbers_i) in enumerate(sized):
        for size_j, j, words_j, many_j, content_j, numbers_j in sized[n + 1 :]:
            if numbers_i and numbers_j and numbers_i != numbers_j:
                small, large = (many_i, many_j) if many_i <= many_j else (many_j, many_i)
                if size_allows(small, large, MIN_SIMILARITY_NUMBERS) and _numbers_fit(
                    len(words_i & words_j), many_i, many_j
                ):
                    found.add((i, j) if i < j else (j, i))
                continue
            if size_i < _SMALLEST_PARTNER[size_j]:
                if numbers_i:
                    continue
                break
            if _words_fit(len(content_i & content_j), size_i, size_j):
                found.add((i, j) if i < j else (j, i))
