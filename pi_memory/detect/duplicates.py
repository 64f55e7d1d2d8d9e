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

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import compress
from operator import attrgetter, not_

from pi_memory.detect.pairs import UNCOUNTED, judge_counted, judge_every_pair, oldest_first, ranked
from pi_memory.detect.set_join import (
    DENSE_MIN_GROUP,
    EPS,
    PREFIX_VISIT_COST,
    SMALL_GROUP,
    PrefixIndex,
    dense_join,
    dense_pays,
    group_order,
    partition_join,
    prefix_cost,
    rarity_ranks,
)
from pi_memory.detect.text_features import BodyFacts, Features, jaccard
from pi_memory.entry import Entry
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["DuplicatePair", "find_duplicates", "find_duplicates_bruteforce"]

TOKEN_WEIGHT: Final = 0.6
KEYWORD_WEIGHT: Final = 0.4
MIN_TOKEN: Final = 0.45
MIN_TOKEN_WITH_KEYWORDS: Final = 0.25
MIN_SHARED_KEYWORDS: Final = 2
MIN_SCORE: Final = 0.5
#: Joins at or above this threshold partition the tokens (few may differ);
#: below it, too many may differ for a partition to stay selective.
_PARTITION_THRESHOLD: Final = 0.6
#: Prefix visits per set past which partitioning is cheaper: ordinary prose
#: stays under 15, notes from a handful of templates reach hundreds.
_PARTITION_VISITS_PER_SET: Final = 50
#: Sets a glance at a keyword group's prefix visits counts (see :func:`_dense`).
_GLANCE: Final = 32
#: How far below paying for the dense join a glance must put a group for the full
#: estimate to be skipped: a sample this small may miss some of the visits.
_GLANCE_MARGIN: Final = 4

_NEW: Final = object.__new__
_TOKENS: Final = attrgetter("tokens")
_NUMBERS: Final = attrgetter("numbers")


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


def _judge(x: Features, y: Features, now: str) -> DuplicatePair | None:
    """The rule for one pair of live entries of one layer."""
    return _judge_counted(x, y, UNCOUNTED, now)


def _judge_counted(x: Features, y: Features, common: int, now: str) -> DuplicatePair | None:
    """:func:`_judge`, given how many tokens the bodies share (:data:`UNCOUNTED`: not known).

    Every entry carries exactly one keyword, so the keyword Jaccard is 1 when
    the canonical keys match and 0 otherwise, and at most one keyword is shared.
    """
    shared = 1 if x.key and x.key == y.key else 0
    if x.norm == y.norm:
        token = score = 1.0
    else:
        if x.numbers and y.numbers and x.numbers != y.numbers:
            return None
        if common == UNCOUNTED:
            token = jaccard(x.tokens, y.tokens)
        else:
            # As :func:`jaccard` divides, from the overlap a join already counted.
            union = len(x.tokens) + len(y.tokens) - common
            token = common / union if union else 0.0
        if not (
            token >= MIN_TOKEN
            or (shared >= MIN_SHARED_KEYWORDS and token >= MIN_TOKEN_WITH_KEYWORDS)
        ):
            return None
        score = TOKEN_WEIGHT * token + KEYWORD_WEIGHT * shared
        if score < MIN_SCORE:
            return None
    older, newer = oldest_first(x, y, now)
    # Filled in directly: the frozen class's own __init__ sets each field through
    # object.__setattr__, several times the cost, and a large store has tens of
    # thousands of pairs. The same fields, so the same value, hash and repr.
    pair = _NEW(DuplicatePair)
    pair.__dict__.update(
        a=older.entry.id,
        b=newer.entry.id,
        layer=x.entry.layer,
        score=score,
        token=token,
        shared=(older.entry.keyword,) if shared else (),
    )
    return pair


def _sort_key(pair: DuplicatePair) -> tuple[float, str, str, str, float, tuple[str, ...]]:
    return (-pair.score, pair.a, pair.b, pair.layer, -pair.token, pair.shared)


def find_duplicates_bruteforce(
    entries: Iterable[Entry], now: datetime | None = None
) -> list[DuplicatePair]:
    """The definition: every pair of live entries of each layer, judged one by one."""
    return ranked(judge_every_pair(entries, _judge, now), _sort_key, None)


def find_duplicates(
    entries: Iterable[Entry],
    limit: int | None = None,
    known: Mapping[str, BodyFacts] | None = None,
    now: datetime | None = None,
) -> list[DuplicatePair]:
    """Near-duplicate pairs, best first (score, then ids); the same list as the brute force.

    ``limit`` keeps only the first ``limit`` pairs of that order; ``known`` is
    facts already made, by body (see :func:`~pi_memory.detect.pairs.features`).
    """
    return ranked(judge_counted(entries, _candidates, _judge_counted, known, now), _sort_key, limit)


def _candidates(group: Sequence[Features]) -> dict[tuple[int, int], int]:
    """Index pairs ``(i, j)``, ``i < j``, that contain every pair the rule accepts, each with
    the tokens the pair shares where a join counted them (else :data:`UNCOUNTED`).

    A pair sharing no keyword scores ``0.6 * token``, so it needs
    ``token >= 0.5 / 0.6``: one store-wide join at that high threshold keeps
    prefixes short. Pairs sharing a keyword are joined within their keyword's
    group at the acceptance threshold.
    """
    ids, orders, by_keyword = group_order(group)
    sets = _Sets(
        list(map(_TOKENS, group)),
        list(map(_NUMBERS, group)),
        list(map(len, orders)),
        # Every token's id is below the vocabulary's size.
        [None] * len(ids),
    )
    pairs = _identical_bodies(group, sets.sizes)
    _join(sets, list(range(len(group))), MIN_SCORE / TOKEN_WEIGHT, orders, pairs)
    # One keyword per entry: a pair shares at most one, so the two-keyword
    # branch of the rule never applies and the token gate is MIN_TOKEN (a pair
    # sharing the keyword that reaches it also reaches MIN_SCORE).
    for members in by_keyword.values():
        if len(members) > SMALL_GROUP:
            _join(sets, members, MIN_TOKEN, orders, pairs)
        elif len(members) > 1:  # most keywords are one body's: no pair to compare
            _small_group(sets, members, pairs)
    return pairs


def _small_group(sets: _Sets, members: list[int], out: dict[tuple[int, int], int]) -> None:
    """Add every pair of a small keyword group (ascending) that the number guard allows and
    whose token Jaccard reaches MIN_TOKEN, with the tokens it shares, comparing pair by pair.

    Sizes first, by the table the joins check their candidates with (see
    :class:`_Spares`: a negative spare is a pair of sizes that cannot reach the
    threshold). Identical bodies are found separately, so they need not pass here.
    """
    tokens, numbers, sizes, _ = sets
    spares = _spares(MIN_TOKEN)
    for n, i in enumerate(members):
        x, size, mine = tokens[i], sizes[i], numbers[i]
        spare = spares[size]
        for j in members[n + 1 :]:
            theirs = numbers[j]
            if mine and theirs and mine != theirs:
                continue
            other = sizes[j]
            if other <= size:
                allowed = spare[other]
                smaller = other
            else:
                allowed = spares[other][size]
                smaller = size
            if allowed < 0:
                continue
            # Two bodies of one keyword mostly share a word or two: an intersection
            # builds a set of those few.
            common = len(x & tokens[j])
            if smaller - common <= allowed:
                out[(i, j)] = common


class _Sets(NamedTuple):
    """What the joins read of a group, item by item: token sets and number sets."""

    tokens: list[frozenset[int]]
    numbers: list[frozenset[str]]
    #: How many tokens each holds: the order the prefix index is filled in.
    sizes: list[int]
    #: By token id, the posting a prefix join is filling (None between joins).
    table: list[_Posting | None]


def _join(
    sets: _Sets,
    members: list[int],
    threshold: float,
    orders: Sequence[Sequence[int]],
    out: dict[tuple[int, int], int],
) -> None:
    """Add every pair of ``members`` (ascending) with token Jaccard >= ``threshold`` the number
    guard allows, with the tokens it shares where counted."""
    # Both choices read the same estimate: make it once.
    visits = _Visits(members, threshold, orders)
    if _partitioned(members, threshold, orders, visits):
        ids = rarity_ranks(sets.tokens[i] for i in members)
        _verified(sets, partition_join(sets.tokens, members, threshold, ids), threshold, out)
        return
    if _dense(members, threshold, orders, visits):
        for pair in dense_join(sets.tokens, members, threshold, _numbers_apart(sets.numbers)):
            out.setdefault(pair, UNCOUNTED)
        return
    _prefix_join(sets, members, threshold, orders, out)


#: What a posting holds per set: its size, its index, its room (see :class:`PrefixIndex`).
_Posting = list[tuple[int, int, int]]


def _prefix_join(
    sets: _Sets,
    members: list[int],
    threshold: float,
    orders: Sequence[Sequence[int]],
    out: dict[tuple[int, int], int],
) -> None:
    """:meth:`PrefixIndex.probes_added` run here, each probe's candidates checked as they
    come (cheaper than collecting them all, and than judging them), the number guard on
    the candidates; the postings in a list by token id (:attr:`_Sets.table`): indexing
    it costs a fraction of a dictionary look-up, and the joins make 700,000 of them."""
    tokens, numbers, sizes, table = sets
    spares = _spares(threshold)
    shapes = PrefixIndex(threshold, probes_no_smaller=True)
    low = threshold < _PARTITION_THRESHOLD
    made: list[int] = []  # the tokens given a posting, cleared at the end
    size = -1
    length = indexed = smallest = 0
    needs: list[int] = []
    spare: list[int] = []
    start = (0,)
    # Ascending size, then index: the members come in index order and the sort is stable.
    for i in sorted(members, key=sizes.__getitem__):
        ordered = orders[i]
        if len(ordered) != size:
            size = len(ordered)
            if size:
                length, indexed, smallest, needs = shapes.shape(size)
                start = (smallest,)
                spare = spares[size]
            else:
                length = indexed = 0
        found: list[int] = []
        rest = size
        for token in ordered[:indexed]:
            posting = table[token]
            if posting is None:
                table[token] = [(size, i, rest)]
                made.append(token)
            else:
                if posting and posting[0][0] < smallest:
                    del posting[: bisect_left(posting, start)]
                found += [j for other, j, room in posting if rest >= needs[other] <= room]
                posting.append((size, i, rest))
            rest -= 1
        for token in ordered[indexed:length]:
            posting = table[token]
            if posting:
                if posting[0][0] < smallest:
                    del posting[: bisect_left(posting, start)]
                found += [j for other, j, room in posting if rest >= needs[other] <= room]
            rest -= 1
        if not found:
            continue
        mine = numbers[i]
        if mine:  # the number guard first: number sets compare cheaper than token sets
            found = [j for j in found if not numbers[j] or numbers[j] == mine]
        x = tokens[i]
        if low:
            # Most share a token or two: an intersection builds a set of those few.
            for j in found:
                other = sizes[j]
                common = len(x & tokens[j])
                if other - common <= spare[other]:
                    out[(i, j) if i < j else (j, i)] = common
            continue
        for j in found:
            other = sizes[j]
            allowed = spare[other]
            # What the smaller set lacks: a difference keeps those few, a subset test stops.
            missing = 0
            if allowed > 0:
                missing = len(tokens[j] - x)
                if missing > allowed:
                    continue
            elif allowed < 0 or not tokens[j] <= x:
                continue
            out[(i, j) if i < j else (j, i)] = other - missing
    for token in made:
        table[token] = None


class _Spares(dict[int, list[int]]):
    """By a probe's size, how many of its tokens a set of each size no larger may lack and
    still reach the threshold with it: that size less the fewest ``common`` with
    ``common >= (t - EPS) * union``, by the very test a pair would otherwise get, worked
    out once per size (negative: no overlap is enough)."""

    def __init__(self, threshold: float) -> None:
        super().__init__()
        self._gate = threshold - EPS

    def __missing__(self, size: int) -> list[int]:
        gate = self._gate
        spares: list[int] = []
        common = 0
        for other in range(size + 1):
            # The fewest ``common`` that pass never falls as ``other`` grows, so each size
            # starts from the last one's: a size's list is made in one pass, not one pass
            # per ``other`` (a body of 60,000 tokens made 1.8 billion tests).
            # Two empty sets share nothing: a Jaccard of 0.
            while common <= other and not (size and common >= gate * (size + other - common)):
                common += 1
            spares.append(other - common)
        self[size] = spares
        return spares


#: :class:`_Spares` by threshold: the same few for every join of every run (one per
#: keyword group would work the same numbers out hundreds of times a run).
_SPARES: dict[float, _Spares] = {}


def _spares(threshold: float) -> _Spares:
    """The :class:`_Spares` of ``threshold``, made on first use."""
    spares = _SPARES.get(threshold)
    if spares is None:
        spares = _SPARES[threshold] = _Spares(threshold)
    return spares


class _Visits:
    """:func:`prefix_cost` of one join, computed on first use."""

    def __init__(
        self, members: list[int], threshold: float, orders: Sequence[Sequence[int]]
    ) -> None:
        self._args = (orders, members, threshold)
        self._value: float | None = None

    def __call__(self) -> float:
        if self._value is None:
            self._value = prefix_cost(*self._args)
        return self._value


def _partitioned(
    members: list[int],
    threshold: float,
    orders: Sequence[Sequence[int]],
    visits: _Visits | None = None,
) -> bool:
    """Whether a high-threshold join should partition the tokens rather than index prefixes.

    Prefix filtering visits few postings while prefixes hold rare words; when
    even the rarest words of a body are common (templated notes), each set
    would meet hundreds of others through its prefix.
    """
    if threshold < _PARTITION_THRESHOLD:
        return False
    cost = (visits or _Visits(members, threshold, orders))()
    return cost > _PARTITION_VISITS_PER_SET * len(members)


def _dense(
    members: list[int],
    threshold: float,
    orders: Sequence[Sequence[int]],
    visits: _Visits | None = None,
) -> bool:
    """Whether comparing every pair beats the prefix filter for ``members``.

    A prefix visit costs several times a bitmask comparison, so the filter pays
    only while it visits well under all the pairs there are. A glance at a few
    sets rules out most groups first: of prose, the full estimate costs about
    what the join it decides on does (at 30,000 memories an eighth of the
    duplicate joins' steps went into estimates that chose the prefix filter).
    """
    pairs = len(members) * (len(members) - 1) // 2
    if (
        len(members) >= DENSE_MIN_GROUP
        and prefix_cost(orders, members, threshold, _GLANCE) * PREFIX_VISIT_COST * _GLANCE_MARGIN
        <= pairs
    ):
        return False
    return dense_pays(len(members), pairs, visits or _Visits(members, threshold, orders))


def _numbers_apart(numbers: Sequence[frozenset[str]]) -> Callable[[int, int], bool]:
    """The number guard: both bodies carry numbers, and not the same ones."""

    def apart(i: int, j: int) -> bool:
        x, y = numbers[i], numbers[j]
        return bool(x and y and x != y)

    return apart


def _verified(
    sets: _Sets,
    pairs: Iterable[tuple[int, int]],
    threshold: float,
    out: dict[tuple[int, int], int],
) -> None:
    """Add the ``pairs`` the number guard allows whose token Jaccard reaches ``threshold``,
    with the tokens they share."""
    gate = threshold - EPS
    tokens, numbers, sizes, _ = sets
    for i, j in pairs:
        a, b = numbers[i], numbers[j]
        if a and b and a != b:
            continue
        # The smaller set's tokens the other lacks: a difference keeps only those.
        size, other = sizes[i], sizes[j]
        if size <= other:
            common = size - len(tokens[i] - tokens[j])
        else:
            common = other - len(tokens[j] - tokens[i])
        if common >= gate * (size + other - common):
            out[(i, j)] = common


def _identical_bodies(
    group: Sequence[Features], sizes: Sequence[int]
) -> dict[tuple[int, int], int]:
    """Pairs of bodies without tokens that are the same text (a score of 1 whatever their
    tokens).

    Bodies that are the same text with tokens are left to the store-wide join: the text
    is the body up to case, whitespace and trailing punctuation, none of which makes or
    splits a token, so the same text has the same tokens (and numbers), a Jaccard of 1
    that every join finds. Only two bodies with no token at all (``"..."``, ``"!!"``)
    share nothing a join can see.
    """
    empty = list(compress(range(len(sizes)), map(not_, sizes)))
    by_norm: dict[str, list[int]] = {}
    for index in empty:
        by_norm.setdefault(group[index].norm, []).append(index)
    return dict.fromkeys(
        (pair for same in by_norm.values() for pair in _all_pairs(same)), UNCOUNTED
    )


def _all_pairs(indexes: list[int]) -> Iterator[tuple[int, int]]:
    for n, i in enumerate(indexes):
        for j in indexes[n + 1 :]:
            yield (i, j)
