"""Text similarity shared by the duplicate and conflict detectors; pure.

Tokens are lowercased word runs. Han text has no word delimiters, so a Han
run is cut into overlapping 2-character shingles instead: "部署脚本" and
"部署流程" then share "部署" the way two English sentences share a word.

A body's *content words* are its word tokens without numbers, without
:data:`FUNCTION_WORDS`, each reduced to its :func:`lemma`: "Deploys go
through rsync before each release" and "Deploy goes through rsync before
every release" have the same content words. Negations, modals, quantities
and directions (``not``, ``must``, ``all``, ``before``/``after``, ``on``/``off``)
are not function words: changing one changes a requirement.
"""

from __future__ import annotations

import gc
import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager
from itertools import chain
from typing import Any, Final, NamedTuple, TypeVar

from pi_memory.entry import (
    Entry,
    format_time,
    normalize_ascii_lowered,
    normalize_memory_text,
    parse_time,
)
from pi_memory.keywords import canonical_key, stem
from pi_memory.text import HAN_CLASS

_HAN_RUN_RE: Final = re.compile(f"[{HAN_CLASS}]+")
#: A word: letters and digits that are not Han (``[^\W_]`` is "word char but not ``_``").
_TOKEN_RE: Final = re.compile(f"[{HAN_CLASS}]+|(?:(?![{HAN_CLASS}])[^\\W_])+")
#: A number as written: ``3000``, ``1.2.3``, ``0.5``. A version is one value, not three.
_ASCII_TOKEN_RE: Final = re.compile(r"[a-z0-9]+")
#: An ASCII token with its digits cut out: what is left of the words once numbers go.
_ASCII_WORD_RE: Final = re.compile(r"[a-z]+")
_NUMBER_RE: Final = re.compile(r"\d+(?:\.\d+)*")
_DIGIT_RE: Final = re.compile(r"\d")
#: Words whose change does not change what a memory requires: articles,
#: determiners, pronouns, auxiliaries, relatives and the plainest prepositions.
_FUNCTION_WORD_TEXT: Final = """
    a an the this that these those it its they them their there here which who whom
    whose what is are was were be been being am do does did has have had having
    by of to for with from as at into onto each every also just then so very
    """
FUNCTION_WORDS: Final = frozenset(_FUNCTION_WORD_TEXT.split())


class _Lemmas(dict[str, str]):
    """Lemmas by word, ``""`` for a function word, filled on first sight.

    A store repeats its vocabulary: most words are seen many times, and a
    lookup through ``__getitem__`` stays in C for every word seen before.
    """

    def __missing__(self, word: str) -> str:
        found = "" if word in FUNCTION_WORDS else _lemma(word)
        if len(self) < 100_000:
            self[word] = found
        return found


_CONTENT: Final = _Lemmas()


def shingles(run: str, size: int = 2) -> list[str]:
    """Overlapping ``size``-character pieces of ``run``; a shorter run is its own piece."""
    if len(run) <= size:
        return [run] if run else []
    return [run[i : i + size] for i in range(len(run) - size + 1)]


def token_list(text: str) -> list[str]:
    """Lowercased word tokens in order of first appearance, each once; Han runs as 2-grams."""
    lowered = text.lower()
    if lowered.isascii():
        # The common case, several times faster: no Han, and ``[^\W_]`` is ``[a-z0-9]``.
        return list(dict.fromkeys(_ASCII_TOKEN_RE.findall(lowered)))
    seen: dict[str, None] = {}
    for piece in _TOKEN_RE.findall(lowered):
        if _HAN_RUN_RE.match(piece):
            for gram in shingles(piece):
                seen.setdefault(gram, None)
        else:
            seen.setdefault(piece, None)
    return list(seen)


def lemma(word: str) -> str:
    """``word`` without its inflection: :func:`~pi_memory.keywords.stem`, then a final ``e``.

    ``goes``/``go``, ``released``/``release``, ``starts``/``started`` meet; a
    Han shingle, a number or an identifier stays as it is.
    """
    return _CONTENT[word] or _lemma(word)


def _lemma(word: str) -> str:
    found = stem(word)
    if len(found) >= 3 and found.endswith("e") and found.isascii() and found.isalpha():
        found = found[:-1]
    return found


def content_list(words: Iterable[str]) -> list[str]:
    """The content words of ``words`` (tokens without numbers), as lemmas, each once, in order."""
    return list(_content(words))


def _content(words: Iterable[str]) -> tuple[str, ...]:
    # A lemma is never empty: ``""`` marks a function word.
    return tuple(dict.fromkeys(filter(None, map(_CONTENT.__getitem__, words))))


def spelled(words: Iterable[str], lemmas: Iterable[str]) -> tuple[str, ...]:
    """The first spelling in ``words`` of each of ``lemmas``, in the order of ``words``."""
    wanted = set(lemmas)
    found: dict[str, str] = {}
    for word in words:
        if word in FUNCTION_WORDS:
            continue
        key = lemma(word)
        if key in wanted and key not in found:
            found[key] = word
    return tuple(found.values())


def tokens(text: str) -> frozenset[str]:
    return frozenset(token_list(text))


def number_list(text: str) -> list[str]:
    """The numbers in ``text`` as written, in order of first appearance, each once."""
    return list(dict.fromkeys(_NUMBER_RE.findall(text)))


def jaccard(a: Set[str], b: Set[str]) -> float:
    """``|a ∩ b| / |a ∪ b|``; 0 when both are empty (nothing in common to measure)."""
    if not a and not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


def keyword_set(keywords: Iterable[str]) -> frozenset[str]:
    """Canonical keys of ``keywords``, empty keys dropped."""
    return frozenset(key for key in map(canonical_key, keywords) if key)


def keyword_keys(keywords: Iterable[str]) -> dict[str, str]:
    """Canonical key → the first spelling that produced it (for display)."""
    keys: dict[str, str] = {}
    for keyword in keywords:
        key = canonical_key(keyword)
        if key:
            keys.setdefault(key, keyword)
    return keys


#: A tolerance so that float rounding in ``t * n`` can only make a filter
#: more permissive, never drop a pair the exact rule would accept.
EPS: Final = 1e-9
#: Keyword groups up to this size are compared pair by pair; larger ones go
#: through prefix indexes so that one popular keyword cannot cost n².
SMALL_GROUP: Final = 16
#: Sets sampled to estimate the cost of a prefix join.
_COST_SAMPLE: Final = 1000


def rarity_ranks(sets: Iterable[Set[str]]) -> dict[str, int]:
    """Each token's position when ordered rarest first (ties alphabetical)."""
    counts = Counter(chain.from_iterable(sets))
    ordered = sorted(counts)
    # A stable sort by count keeps ties in the alphabetical order of the first sort.
    ordered.sort(key=counts.__getitem__)
    return {token: rank for rank, token in enumerate(ordered)}


def rank_order(items: Set[str], ranks: dict[str, int]) -> list[int]:
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
        #: token → (size, key, position) of every set whose prefix holds it, sorted.
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
                for other, key, j in posting[
                    bisect_left(posting, start) : bisect_left(posting, stop)
                ]
                if rest >= needs[other] <= other - j
            ]
        return found

    def probe_add(self, key: int, ordered: Sequence[int]) -> list[int]:
        """:meth:`probe` with ``ordered``, then :meth:`add` it as ``key``, in one pass: for a
        self-join in ascending order of size (then key), where every set already indexed
        is no larger than ``ordered``.

        One lookup per prefix token serves both, and no indexed set can be too large,
        so the range of sizes needs only its lower end. The indexed prefix is a part
        of the probed one (it needs no looser an overlap), and a token's posting gets
        the set after it was probed: a set never meets itself.
        """
        size = len(ordered)
        if size == 0:
            return []
        bounds = self._bounds_by_size.get(size)
        length, _, smallest, needs = bounds if bounds is not None else self._bounds(size)
        indexed = self._index_lengths.get(size)
        if indexed is None:
            indexed = self._index_lengths[size] = self._prefix_length(size, self._index_share)
        start = (smallest,)
        found: list[int] = []
        postings = self._postings
        for i, token in enumerate(ordered[:length]):
            posting = postings.get(token)
            if posting is None:
                if i < indexed:
                    postings[token] = [(size, key, i)]
                continue
            rest = size - i
            found += [
                other_key
                for other, other_key, j in posting[bisect_left(posting, start) :]
                if rest >= needs[other] <= other - j
            ]
            if i < indexed:
                posting.append((size, key, i))
        return found

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
                postings[token] = [(size, key, j)]
            else:
                posting.append((size, key, j))


def _count_ones(value: int) -> int:
    return bin(value).count("1")


#: ``int.bit_count`` where the runtime has it (3.10+), in C.
_bit_count: Callable[[int], int] = getattr(int, "bit_count", _count_ones)


def popcount(value: int) -> int:
    """Set bits of a non-negative ``int``."""
    return _bit_count(value)


def dense_join(
    sets: Sequence[Set[str]],
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
    sets: Sequence[Set[str]],
    members: Sequence[int],
    threshold: float,
    ids: Mapping[str, int],
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
) -> float:
    """Roughly how many posting entries a prefix self-join of ``members`` would visit.

    A set's probe prefix meets, through each of its tokens, the indexed
    (shorter) prefixes holding that token; about half of them are indexed
    before the probe runs. Counted on an evenly spaced sample of at most
    :data:`_COST_SAMPLE` sets and scaled up (visits grow with the square of
    the sets), so the estimate costs little next to either join.
    """
    step = max(1, len(members) // _COST_SAMPLE)
    sample = [orders[i] for i in members[::step]]
    if not sample:
        return 0.0
    index_share = 2 * threshold / (1 + threshold)
    # Prefix lengths by set size, worked out once per size: few sizes, many sets.
    lengths: dict[int, tuple[int, int]] = {}
    for size in {len(ordered) for ordered in sample}:
        lengths[size] = (
            size - max(1, math.ceil(threshold * size - EPS)) + 1,
            size - max(1, math.ceil(index_share * size - EPS)) + 1,
        )
    probed = Counter(chain.from_iterable(ordered[: lengths[len(ordered)][0]] for ordered in sample))
    index_prefixes = [ordered[: lengths[len(ordered)][1]] for ordered in sample]
    indexed = Counter(chain.from_iterable(index_prefixes))
    # A set meets itself through its indexed prefix (a part of its probe prefix).
    own = sum(map(len, index_prefixes))
    visits = (sum(count * indexed[token] for token, count in probed.items()) - own) / 2
    return visits * (len(members) / len(sample)) ** 2


#: What a body alone decides, in :class:`Features`' order after ``key``: the
#: normalised body, tokens, numbers (list, set), number-free words (list, set),
#: content words (list, set). A pure function of the body, so it can be kept
#: across runs (see :mod:`pi_memory.detect.feature_cache`).
BodyFacts = tuple[
    str,
    frozenset[str],
    tuple[str, ...],
    frozenset[str],
    tuple[str, ...],
    frozenset[str],
    tuple[str, ...],
    frozenset[str],
]


class Features(NamedTuple):
    """What both detectors read of one live entry, computed once per entry.

    A named tuple rather than a dataclass: a store of 100,000 memories builds
    100,000 of these, and a tuple is several times cheaper to create. After
    ``key`` come the :data:`BodyFacts`, in their order.
    """

    entry: Entry
    #: Oldest first: see :func:`age_key`.
    age: tuple[str, str]
    #: Canonical key of the entry's keyword, ``""`` when it has none.
    key: str
    #: The body as write-time de-duplication sees it.
    norm: str
    tokens: frozenset[str]
    #: Numbers as written, in order of first appearance.
    number_list: tuple[str, ...]
    numbers: frozenset[str]
    #: Word tokens of the body with every number removed, in order of first appearance.
    word_list: tuple[str, ...]
    words: frozenset[str]
    #: The content words (see the module docstring), in order of first appearance.
    content_list: tuple[str, ...]
    content: frozenset[str]


def age_key(entry: Entry) -> tuple[str, str]:
    """Oldest first: the time as ``YYYY-MM-DD HH:MM:SS`` (unreadable sorts oldest), then the id."""
    text = entry.time
    if not (len(text) == 19 and text[10] == " "):
        parsed = parse_time(text)
        text = format_time(parsed) if parsed is not None else ""
    return (text, entry.id)


def body_lists(
    body: str,
) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The ordered parts of a body's facts: normalised body, tokens, numbers, words, content."""
    lowered = body.lower()
    if lowered.isascii():
        norm = normalize_ascii_lowered(lowered)
        # token_list's own fast path.
        all_tokens = tuple(dict.fromkeys(_ASCII_TOKEN_RE.findall(lowered)))
        # Most bodies carry no number. The tokens are the [a-z0-9] runs and a
        # digit has no case, so the body holds a digit only if they do.
        if "".join(all_tokens).isalpha():
            return norm, all_tokens, (), all_tokens, _content(all_tokens)
        numbers = tuple(dict.fromkeys(_NUMBER_RE.findall(body)))
        # The tokens of the body without its numbers are its letter runs: no substitution.
        words = tuple(dict.fromkeys(_ASCII_WORD_RE.findall(lowered))) if numbers else all_tokens
        return norm, all_tokens, numbers, words, _content(words)
    # One scan for a digit spares most bodies the findall.
    numbers = tuple(dict.fromkeys(_NUMBER_RE.findall(body))) if _DIGIT_RE.search(body) else ()
    all_tokens = tuple(token_list(body))
    words = tuple(token_list(_NUMBER_RE.sub(" ", body))) if numbers else all_tokens
    return normalize_memory_text(body), all_tokens, numbers, words, _content(words)


def facts_of(
    norm: str,
    tokens: tuple[str, ...],
    numbers: tuple[str, ...],
    words: tuple[str, ...],
    content: tuple[str, ...],
) -> BodyFacts:
    """:data:`BodyFacts` from :func:`body_lists`' parts (the sets made from the lists)."""
    token_set = frozenset(tokens)
    return (
        norm,
        token_set,
        numbers,
        frozenset(numbers) if numbers else _EMPTY,
        words,
        frozenset(words) if numbers else token_set,
        content,
        frozenset(content),
    )


_EMPTY: Final[frozenset[str]] = frozenset()


def body_facts(body: str) -> BodyFacts:
    """What the detectors read of ``body`` (see :data:`BodyFacts`)."""
    return facts_of(*body_lists(body))


#: The last store's entries and their features. ``show`` runs both detectors
#: on one list of entries; entries are frozen, so the same objects in the same
#: order are the same store, and the second detector reuses the first one's work.
_last: tuple[tuple[Entry, ...], dict[str, list[Features]]] | None = None


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Pause the cycle collector for a detector run, then restore it as it was.

    The joins allocate millions of small tuples and build no reference
    cycles; at 100,000 memories the collector's passes over the growing heap
    took about a third of the detectors' time and could free nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # What the run keeps (the store's features) would otherwise be
            # traversed by the next young and middle passes, again finding
            # nothing: freezing and unfreezing moves every tracked object
            # straight to the oldest generation, which a full pass still visits.
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def features(
    entries: Iterable[Entry], known: Mapping[str, BodyFacts] | None = None
) -> dict[str, list[Features]]:
    """Features of the live entries, grouped by layer in input order.

    ``known`` holds facts already made, by body (kept across runs: see
    :mod:`pi_memory.detect.feature_cache`); a body it lacks is worked out here.
    Memoised for the most recent store (by the identity of its entries). The
    returned lists are shared: callers must not modify them.
    """
    global _last  # noqa: PLW0603 -- a one-slot cache of a pure function's result
    store = tuple(entries)
    if _last is not None and _same_objects(_last[0], store):
        return _last[1]
    _orders.clear()  # the last store's groups: let them go with it
    layers: dict[str, list[Features]] = {}
    keys: dict[str, str] = {}
    facts = known if known is not None else {}
    make = Features._make
    with no_cycle_collection():
        for entry in store:
            if entry.superseded_by:
                continue
            body = entry.body
            found = facts.get(body)
            if found is None:
                found = body_facts(body)
            key = keys.get(entry.keyword)
            if key is None:
                key = keys[entry.keyword] = canonical_key(entry.keyword)
            layers.setdefault(entry.layer, []).append(make((entry, age_key(entry), key, *found)))
    _last = (store, layers)
    return layers


#: Group orders kept at most: a store has a group per layer.
_KEPT_ORDERS: Final = 4


class GroupOrder(NamedTuple):
    """One token order for a group, shared by both detectors' joins."""

    #: Every token, content word and number-free word of the group, rarest first.
    ranks: dict[str, int]
    #: Each item's tokens in that order (see :func:`rank_order`).
    tokens: list[list[int]]


#: The orders of the last store's groups (by the identity of each group's list:
#: :func:`features` hands out the same lists for the same store), with their groups.
_orders: dict[int, tuple[Sequence[Features], GroupOrder]] = {}


def group_order(group: Sequence[Features]) -> GroupOrder:
    """The rank order of ``group``'s tokens, made once for both detectors.

    Any fixed order keeps the prefix joins exact; rarest first keeps them
    selective. One ranking over tokens, content words and number-free words
    serves both (a word counts once per body that holds it in any of them),
    and each item's tokens are sorted once: a body without numbers has its
    tokens as its words.
    """
    known = _orders.get(id(group))
    if known is not None and known[0] is group:
        return known[1]
    # Most content words are tokens of the same body as they are: count the rest.
    ranks = rarity_ranks(
        chain.from_iterable(
            (item.tokens, item.content - item.tokens, item.words - item.tokens)
            if item.numbers
            else (item.tokens, item.content - item.tokens)
            for item in group
        )
    )
    get = ranks.__getitem__
    order = GroupOrder(ranks, [sorted(map(get, item.tokens)) for item in group])
    if len(_orders) >= _KEPT_ORDERS:
        _orders.clear()
    _orders[id(group)] = (group, order)
    return order


def _same_objects(a: Sequence[Entry], b: Sequence[Entry]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


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
    for i in ordered:
        for j in index.probe_add(i, orders[i]):
            out.add((i, j) if i < j else (j, i))


def size_allows(small: int, large: int, threshold: float) -> bool:
    """Whether sets of these sizes can reach ``jaccard >= threshold``: ``J <= small / large``."""
    return small >= threshold * large - EPS


def oldest_first(x: Features, y: Features) -> tuple[Features, Features]:
    """The pair in age order (by time, then id): the older one is the one to supersede."""
    return (x, y) if x.age <= y.age else (y, x)


Pair = TypeVar("Pair")
Judge = Callable[[Features, Features], "Pair | None"]


def judge_every_pair(entries: Iterable[Entry], judge: Judge[Pair]) -> list[Pair]:
    """A detector's definition: every pair of live entries of each layer, judged one by one."""
    found: list[Pair] = []
    for group in features(entries).values():
        for i, x in enumerate(group):
            for y in group[i + 1 :]:
                pair = judge(x, y)
                if pair is not None:
                    found.append(pair)
    return found


def judge_candidates(
    entries: Iterable[Entry],
    candidates: Callable[[Sequence[Features]], Iterable[tuple[int, int]]],
    judge: Judge[Pair],
    known: Mapping[str, BodyFacts] | None = None,
) -> list[Pair]:
    """The same list as :func:`judge_every_pair` when ``candidates`` holds every accepted pair
    (``known``: as :func:`features` takes it)."""
    found: list[Pair] = []
    with no_cycle_collection():
        for group in features(entries, known).values():
            for i, j in candidates(group):
                pair = judge(group[i], group[j])
                if pair is not None:
                    found.append(pair)
    return found


def ranked(pairs: Iterable[Pair], key: Callable[[Pair], Any], limit: int | None) -> list[Pair]:
    """``pairs`` in ``key`` order, the first ``limit`` of them (all when ``None``)."""
    ordered = sorted(pairs, key=key)
    return ordered if limit is None else ordered[: max(0, limit)]
