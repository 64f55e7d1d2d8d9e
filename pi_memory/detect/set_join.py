"""The set-similarity join: which pairs of token sets reach ``jaccard >= t``, fast; pure.

Both detectors ask it the same question of a group of memories. Three exact
ways answer it: a prefix index (:class:`PrefixIndex`, for ordinary prose), a
bitmask comparison of every pair (:func:`dense_join`, for a group written from
one template) and a partition of the tokens (:func:`partition_join`, for a high
threshold over common words); :func:`dense_pays` and :func:`prefix_cost` choose.
Sets are compared as the ranks of their tokens, rarest first (:func:`group_order`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from itertools import chain, compress, groupby
from operator import attrgetter

from pi_memory.detect.text_features import Vocabulary
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeVar

    from pi_memory.detect.text_features import Features

    #: What a set holds: words, or their ids.
    Word = TypeVar("Word", str, int)

#: A tolerance so that float rounding in ``t * n`` can only make a filter
#: more permissive, never drop a pair the exact rule would accept.
EPS: Final = 1e-9
#: Keyword groups up to this size are compared pair by pair; larger ones go
#: through prefix indexes so that one popular keyword cannot cost n².
SMALL_GROUP: Final = 16
#: Sets sampled to estimate the cost of a prefix join.
_COST_SAMPLE: Final = 250


def rarity_ranks(sets: Iterable[Set[Word]]) -> dict[Word, int]:
    """Each token's position when ordered rarest first (ties alphabetical)."""
    counts = Counter(chain.from_iterable(sets))
    ordered = sorted(counts)
    # A stable sort by count keeps ties in the alphabetical order of the first sort.
    ordered.sort(key=counts.__getitem__)
    return {token: rank for rank, token in enumerate(ordered)}


def rank_order(items: Set[Word], ranks: Mapping[Word, int]) -> list[int]:
    """The ranks of ``items``, rarest first: the order :class:`PrefixIndex` expects.

    Ranks rather than the words: sorting and hashing small ints is several
    times cheaper than sorting words by a key and hashing strings.
    """
    return sorted(map(ranks.__getitem__, items))


#: :meth:`PrefixIndex._bounds` by the index's parameters, then by probe size.
_BOUNDS: dict[tuple[float, int | None, bool], dict[int, tuple[int, int, int, list[int]]]] = {}


class PrefixIndex:
    """Candidate generation for ``jaccard(x, y) >= threshold`` by prefix filtering.

    If ``J(x, y) >= t`` the sets share at least ``ceil(t * max(|x|, |y|))``
    tokens, so under any fixed token order the first
    ``|x| - ceil(t * |x|) + 1`` tokens of ``x`` and the same prefix of ``y``
    must intersect (the first shared token is in both prefixes). Sets are
    given in one order, rarest token first (:func:`rank_order`), which keeps
    common words out of the prefixes, so posting lists stay short.

    Two more exact filters drop pairs before they become candidates: sizes
    (``J <= min/max``), and positions: where the first shared token sits at
    (0-based) ``i`` in ``x`` and ``j`` in ``y``, nothing before it is shared,
    so the overlap is at most ``min(|x| - i, |y| - j)``, while ``J >= t``
    needs an overlap of ``t / (1 + t) * (|x| + |y|)``. Every pair the exact rule accepts is
    a candidate; candidates still have to be verified. ``threshold`` must be
    above 0 (at 0 every pair qualifies and there is nothing to filter).

    ``max_missing``, when given, adds a further necessary condition: each set
    lacks at most that many of the other's tokens. The overlap is then also at
    least ``max(|x|, |y|) - max_missing``, so prefixes shrink to
    ``max_missing + 1`` tokens, and sizes differ by at most ``max_missing``.

    Sets must be added in ascending order of size (then key). When every
    probe is at least as large as every set already indexed (a self-join in
    that order), an indexed set ``y`` needs an overlap of at least
    ``2t / (1 + t) * |y|``, so it is indexed by a shorter prefix: pass
    ``probes_no_smaller=True`` then, and find pairs with a larger indexed set
    some other way.
    """

    def __init__(
        self, threshold: float, max_missing: int | None = None, *, probes_no_smaller: bool = False
    ) -> None:
        self._threshold = threshold
        self._share = threshold / (1 + threshold)
        self._missing = max_missing
        self._index_share = 2 * self._share if probes_no_smaller else threshold
        #: Prefix lengths by (size, share): few distinct sizes, many sets.
        self._lengths: dict[tuple[int, float], int] = {}
        #: Indexed prefix lengths by size.
        self._index_lengths: dict[int, int] = {}
        #: Per probe size, what :meth:`_bounds` computes: shared by every index of
        #: the same parameters (a detector run makes hundreds, one per group).
        self._bounds_by_size = _BOUNDS.setdefault((threshold, max_missing, probes_no_smaller), {})
        #: token → (size, key, room) of every set whose prefix holds it, sorted; the room is
        #: how many of the set's tokens sit at the token or after it (the size less its
        #: 0-based position), the most that set can share with a set that meets it there.
        self._postings: dict[int, list[tuple[int, int, int]]] = {}

    def _prefix_length(self, size: int, share: float) -> int:
        key = (size, share)
        length = self._lengths.get(key)
        if length is None:
            overlap = max(1, math.ceil(share * size - EPS))
            if self._missing is not None:
                overlap = max(overlap, size - self._missing)
            length = self._lengths[key] = size - overlap + 1
        return length

    def shape(self, size: int) -> tuple[int, int, int, list[int]]:
        """For a set of ``size`` in a self-join (see :meth:`probes_added`): its probed
        prefix length, its indexed prefix length, the smallest indexed size it can pair
        with and the overlap each indexed size needs, for a caller that runs the pass
        itself."""
        bounds = self._bounds_by_size.get(size)
        length, _, smallest, needs = bounds if bounds is not None else self._bounds(size)
        indexed = self._index_lengths.get(size, -1)
        if indexed < 0:
            indexed = self._index_lengths[size] = self._prefix_length(size, self._index_share)
        return length, indexed, smallest, needs

    def probe(self, ordered: Sequence[int]) -> list[int]:
        """Keys of indexed sets that pass the prefix, size and position filters with
        ``ordered``; a key may come more than once.

        The position filter needs the first token a pair shares, and that is the
        first one met: a shared token of lower rank sits earlier in both sets,
        so in both prefixes. Every later one sits further on in both, and its
        bound is no looser: once a pair fails, it fails at every later token,
        so nothing needs to remember which keys were met.
        """
        size = len(ordered)
        if size == 0 or not self._postings:
            return []
        bounds = self._bounds_by_size.get(size)
        length, high, smallest, needs = bounds if bounds is not None else self._bounds(size)
        # Sizes are whole numbers: the range of them that fits, as bisect keys.
        start, stop = (smallest,), (high + 1,)
        found: list[int] = []
        postings = self._postings
        for i, token in enumerate(ordered[:length]):
            posting = postings.get(token)
            if posting is None:
                continue
            rest = size - i
            found += [
                key
                for other, key, room in posting[
                    bisect_left(posting, start) : bisect_left(posting, stop)
                ]
                if rest >= needs[other] <= room
            ]
        return found

    def probe_add(self, key: int, ordered: Sequence[int]) -> list[int]:
        """:meth:`probe` with ``ordered``, then :meth:`add` it as ``key``: one step of
        :meth:`probes_added`, whose rules it follows."""
        for _, found in self.probes_added((key,), {key: ordered}):
            return found
        return []

    def probes_added(
        self, keys: Iterable[int], orders: Mapping[int, Sequence[int]] | Sequence[Sequence[int]]
    ) -> Iterator[tuple[int, list[int]]]:
        """For a self-join: each of ``keys`` (ascending size of ``orders[key]``, then key)
        probed with its order, then added as ``key``, in one pass; yields each key that
        meets an indexed set, with the keys met (a key may come more than once).

        Every set already indexed is no larger than the probe, so one lookup per prefix
        token serves both, and the range of sizes needs only its lower end; and as probes
        only grow, the smallest size they can pair with never shrinks, so postings too
        small for this probe are dropped (an index filled this way is for this pass
        alone). The indexed prefix is a part of the probed one (it needs no looser an
        overlap), and a token's posting gets the set after it was probed: a set never
        meets itself. A size's bounds are looked up once for the keys of that size, and
        the pass runs in one frame: at 100,000 memories a call per set cost a tenth of it.
        """
        postings = self._postings
        get = postings.get
        size = -1
        length = indexed = smallest = 0
        needs: list[int] = []
        start = (0,)
        for key in keys:
            ordered = orders[key]
            if len(ordered) != size:
                size = len(ordered)
                if size:
                    bounds = self._bounds_by_size.get(size)
                    length, _, smallest, needs = (
                        bounds if bounds is not None else self._bounds(size)
                    )
                    indexed = self._index_lengths.get(size, -1)
                    if indexed < 0:
                        indexed = self._index_lengths[size] = self._prefix_length(
                            size, self._index_share
                        )
                    start = (smallest,)
                else:
                    length = indexed = 0
            found: list[int] = []
            # The tokens left from each prefix token on, counted down: the most a pair
            # that first meets there can share, on this side.
            rest = size
            # The indexed prefix first (a part of the probed one): looked up, then added.
            for token in ordered[:indexed]:
                posting = get(token)
                if posting is None:
                    postings[token] = [(size, key, rest)]
                else:
                    if posting and posting[0][0] < smallest:
                        # Too small for this probe is too small for every later one: gone.
                        del posting[: bisect_left(posting, start)]
                    found += [k for other, k, room in posting if rest >= needs[other] <= room]
                    posting.append((size, key, rest))
                rest -= 1
            # The rest of the probed prefix: looked up only.
            for token in ordered[indexed:length]:
                posting = get(token)
                if posting:
                    if posting[0][0] < smallest:
                        del posting[: bisect_left(posting, start)]
                    found += [k for other, k, room in posting if rest >= needs[other] <= room]
                rest -= 1
            if found:
                yield key, found

    def _bounds(self, size: int) -> tuple[int, int, int, list[int]]:
        """For a probe of ``size``: its prefix length, the largest and smallest indexed
        sizes it can pair with, and the overlap each indexed size needs (a whole number:
        overlaps are). Made once per probe size: a visit costs a lookup, not arithmetic."""
        found = self._bounds_by_size.get(size)
        if found is None:
            low = self._threshold * size - EPS
            high = size / self._threshold + EPS
            missing = self._missing
            if missing is not None:
                low = max(low, size - missing)
                high = min(high, size + missing)
            needs = []
            for other in range(math.floor(high) + 1):
                need = self._share * (size + other) - EPS
                if missing is not None:
                    need = max(need, max(size, other) - missing)
                needs.append(math.ceil(need))
            length = self._prefix_length(size, self._threshold)
            found = (length, math.floor(high), math.ceil(low), needs)
            self._bounds_by_size[size] = found
        return found

    def add(self, key: int, ordered: Sequence[int]) -> None:
        """Index ``ordered``; keys must be added in ascending order of size, then key."""
        size = len(ordered)
        postings = self._postings
        length = self._index_lengths.get(size)
        if length is None:
            length = self._index_lengths[size] = self._prefix_length(size, self._index_share)
        for j, token in enumerate(ordered[:length]):
            posting = postings.get(token)
            if posting is None:
                postings[token] = [(size, key, size - j)]
            else:
                posting.append((size, key, size - j))


def _count_ones(value: int) -> int:
    return bin(value).count("1")


#: ``int.bit_count`` where the runtime has it (3.10+), in C.
_bit_count: Callable[[int], int] = getattr(int, "bit_count", _count_ones)


def popcount(value: int) -> int:
    """Set bits of a non-negative ``int``."""
    return _bit_count(value)


def dense_join(
    sets: Sequence[Set[Word]],
    members: Sequence[int],
    threshold: float,
    apart: Callable[[int, int], bool] | None = None,
) -> Iterator[tuple[int, int]]:
    """Every pair of ``members`` with ``jaccard >= threshold``, as ``(low, high)``, checked exactly.

    The all-pairs way for a dense group, where most pairs share a common word
    and a prefix index would hand back nearly every pair anyway (notes written
    from one template): each set becomes a bitmask over the group's own
    tokens, most frequent first, so the masks stay a few machine words long
    and a pair costs one AND and a bit count. Only pairs whose sizes allow the
    threshold are compared. ``apart(i, j)``, when given, rules a pair out
    before it is compared.
    """
    counts = Counter(chain.from_iterable(sets[i] for i in members))
    bit = {token: 1 << n for n, (token, _) in enumerate(counts.most_common())}
    sized = sorted((len(sets[i]), i, sum(map(bit.__getitem__, sets[i]))) for i in members)
    share = threshold / (1 + threshold)
    ones = _bit_count
    for n, (size, i, mask) in enumerate(sized):
        largest = size / threshold + EPS
        for other, j, other_mask in sized[n + 1 :]:
            if other > largest:
                break
            if ones(mask & other_mask) >= share * (size + other) - EPS and not (
                apart is not None and apart(i, j)
            ):
                yield (i, j) if i < j else (j, i)


def partition_join(
    sets: Sequence[Set[Word]],
    members: Sequence[int],
    threshold: float,
    ids: Mapping[Word, int],
) -> set[tuple[int, int]]:
    """Candidate pairs of ``members`` for ``jaccard >= threshold`` by partitioning the tokens.

    For a high threshold, two sets that qualify differ in only a few tokens:
    with ``|x| <= |y|``, ``J >= t`` needs ``|x △ y| <= |x| (1 - t) / t``
    (``|y| <= |x| / t`` bounds the sizes). Split the tokens into ``d + 1``
    parts by their id; if at most ``d`` tokens differ, some part holds none of
    them, and the two sets agree exactly on that part. So each set is keyed
    by its projection on each part, once per ``d`` its smaller partners
    could need, and pairs that share a key are the candidates: a projection
    holds several tokens, so a key stays selective even when every single
    word is common. Every qualifying pair is a candidate; candidates still
    have to be verified.
    """
    slack = (1 - threshold) / threshold
    buckets: dict[tuple[int, int, tuple[int, ...]], list[int]] = {}
    spreads: dict[int, list[int]] = {}
    for i in members:
        size = len(sets[i])
        needed = spreads.get(size)
        if needed is None:
            smallest = max(1, math.ceil(threshold * size - EPS))
            low, high = math.floor(smallest * slack + EPS), math.floor(size * slack + EPS)
            needed = spreads[size] = list(range(low, high + 1))
        token_ids = sorted(map(ids.__getitem__, sets[i]))
        for spread in needed:
            parts = spread + 1
            projections: list[list[int]] = [[] for _ in range(parts)]
            for token in token_ids:
                projections[token % parts].append(token)
            for part, projection in enumerate(projections):
                buckets.setdefault((spread, part, tuple(projection)), []).append(i)
    pairs: set[tuple[int, int]] = set()
    for bucket in buckets.values():
        for n, i in enumerate(bucket):
            for j in bucket[n + 1 :]:
                if i != j:
                    pairs.add((i, j) if i < j else (j, i))
    return pairs


#: A prefix-filter visit (probe, position check, verification) costs about this
#: many bitmask comparisons.
PREFIX_VISIT_COST: Final = 4
#: Below this many members either join is cheap, and the estimate is not worth making.
DENSE_MIN_GROUP: Final = 64


def dense_pays(members: int, pairs: int, visits: Callable[[], float]) -> bool:
    """Whether comparing all ``pairs`` of a group of ``members`` as bitmasks beats a
    prefix join that would make ``visits()`` posting visits (asked only when it matters)."""
    if members < DENSE_MIN_GROUP:
        return False
    return visits() * PREFIX_VISIT_COST > pairs


def prefix_cost(
    orders: Mapping[int, Sequence[int]] | Sequence[Sequence[int]],
    members: Sequence[int],
    threshold: float,
    sample: int = _COST_SAMPLE,
) -> float:
    """Roughly how many posting entries a prefix self-join of ``members`` would visit.

    A set's probe prefix meets, through each of its tokens, the indexed
    (shorter) prefixes holding that token; about half of them are indexed
    before the probe runs. Counted on an evenly spaced sample of at most
    ``sample`` sets and scaled up (visits grow with the square of the sets),
    so the estimate costs little next to either join.
    """
    step = max(1, -(-len(members) // sample))
    sampled = [orders[i] for i in members[::step]]
    if not sampled:
        return 0.0
    index_share = 2 * threshold / (1 + threshold)
    # Prefix lengths by set size, worked out once per size: few sizes, many sets.
    lengths: dict[int, tuple[int, int]] = {}
    for size in {len(ordered) for ordered in sampled}:
        lengths[size] = (
            size - max(1, math.ceil(threshold * size - EPS)) + 1,
            size - max(1, math.ceil(index_share * size - EPS)) + 1,
        )
    probed = Counter(
        chain.from_iterable(ordered[: lengths[len(ordered)][0]] for ordered in sampled)
    )
    index_prefixes = [ordered[: lengths[len(ordered)][1]] for ordered in sampled]
    indexed = Counter(chain.from_iterable(index_prefixes))
    # A set meets itself through its indexed prefix (a part of its probe prefix).
    own = sum(map(len, index_prefixes))
    visits = (sum(count * indexed[token] for token, count in probed.items()) - own) / 2
    return visits * (len(members) / len(sampled)) ** 2


#: Group orders kept at most: a store has a group per layer.
_KEPT_ORDERS: Final = 4


class GroupOrder(NamedTuple):
    """What both detectors' joins share of a group: one token order, the keyword groups."""

    #: The store's words by id (see :class:`~pi_memory.detect.text_features.Vocabulary`):
    #: every token rarest first; any other word gets an id on first sight.
    ranks: dict[str, int]
    #: Each item's tokens in that order (see :func:`rank_order`).
    tokens: list[list[int]]
    #: The items of each keyword (canonical key; items without one are in none),
    #: ascending.
    keywords: dict[str, list[int]]


#: The orders of the last store's groups (by the identity of each group's list:
#: :func:`~pi_memory.detect.pairs.features` hands out the same lists for the same
#: store), with their groups.
_orders: dict[int, tuple[Sequence[Features], GroupOrder]] = {}


def group_order(group: Sequence[Features]) -> GroupOrder:
    """The rank order of ``group``'s tokens and its keyword groups, made once for both
    detectors.

    ``group`` is a :class:`~pi_memory.detect.text_features.Group`: a token's id
    is its rank in the group's store, rarest first (see
    :func:`~pi_memory.detect.text_features.store_facts`), so each item's tokens
    are sorted once, as small ints. Any fixed order keeps the prefix joins exact;
    rarest first keeps them selective.
    """
    known = _orders.get(id(group))
    if known is not None and known[0] is group:
        return known[1]
    vocabulary = getattr(group, "vocabulary", None)
    if not isinstance(vocabulary, Vocabulary):
        raise TypeError("not a group of features: its ids are in no known vocabulary")
    # Each keyword's items, ascending: a stable sort of the items that have one.
    keys = list(map(_KEY, group))
    by_key = sorted(compress(range(len(keys)), keys), key=keys.__getitem__)
    keywords = {key: list(items) for key, items in groupby(by_key, keys.__getitem__)}
    order = GroupOrder(vocabulary, list(map(sorted, map(_TOKENS, group))), keywords)
    if len(_orders) >= _KEPT_ORDERS:
        _orders.clear()
    _orders[id(group)] = (group, order)
    return order


_KEY: Final = attrgetter("key")
_TOKENS: Final = attrgetter("tokens")


def forget_group_orders() -> None:
    """Let the last store's group orders go (a new store's groups are new lists)."""
    _orders.clear()


def self_join(
    members: Iterable[int],
    orders: Mapping[int, Sequence[int]] | Sequence[Sequence[int]],
    index: PrefixIndex,
    out: set[tuple[int, int]],
) -> None:
    """Every pair of ``members`` the prefix ``index`` lets through, into ``out`` as (low, high).

    Ascending size: every earlier set is no larger, so one probe per set
    finds each qualifying pair once.
    """
    # Sorted by index first, then (stable) by size alone: no key tuple per member.
    ordered = sorted(members)
    ordered.sort(key=lambda k: len(orders[k]))
    for i, found in index.probes_added(ordered, orders):
        for j in found:
            out.add((i, j) if i < j else (j, i))


def size_allows(small: int, large: int, threshold: float) -> bool:
    """Whether sets of these sizes can reach ``jaccard >= threshold``: ``J <= small / large``."""
    return small >= threshold * large - EPS
