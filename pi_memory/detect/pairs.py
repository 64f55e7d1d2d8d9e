"""Pair judging: each detector's pairs of live memories, judged within a layer; pure.

A detector is a judge of two memories' :class:`~pi_memory.detect.text_features.Features`.
:func:`judge_every_pair` is its definition (every pair, one by one);
:func:`judge_candidates` judges only the pairs a set-similarity join lets through
(:mod:`pi_memory.detect.set_join`) and returns the same list.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from itertools import compress, repeat
from operator import attrgetter, eq

from pi_memory.detect.set_join import forget_group_orders
from pi_memory.detect.text_features import BodyFacts, Features, Group, age_keys, store_facts
from pi_memory.entry import Entry
from pi_memory.keywords import canonical_keys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, TypeVar

#: The last store's entries and their features. ``show`` runs both detectors
#: on one list of entries; entries are frozen, so the same objects in the same
#: order are the same store, and the second detector reuses the first one's work.
_last: tuple[tuple[Entry, ...], dict[str, Group]] | None = None


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
) -> dict[str, Group]:
    """Features of the live entries, grouped by layer in input order: each layer a
    :class:`~pi_memory.detect.text_features.Group`, its tokens numbered in one
    vocabulary for the whole store.

    ``known`` holds facts already made, by body (kept across runs: see
    :mod:`pi_memory.detect.feature_cache`); a body it lacks is worked out here.
    Memoised for the most recent store (by the identity of its entries). The
    returned lists are shared: callers must not modify them.
    """
    global _last  # noqa: PLW0603 -- a one-slot cache of a pure function's result
    store = tuple(entries)
    if _last is not None and _same_objects(_last[0], store):
        return _last[1]
    forget_group_orders()  # the last store's groups: let them go with it
    with no_cycle_collection():
        # A column at a time, in the interpreter's C loops: at 100,000 memories a
        # Python step per entry cost as much as working out the facts.
        live = [entry for entry in store if not entry.superseded_by]
        vocabulary, facts = store_facts(list(map(_BODY, live)), known)
        keywords = list(map(_KEYWORD, live))
        keys = canonical_keys(keywords)
        key_of = map(keys.__getitem__, keywords)
        made = list(map(_FEATURES, zip(live, age_keys(live), key_of, *facts)))
        layer_of = list(map(_LAYER, live))
        layers = {
            # ``eq`` is called in C; a string's bound ``__eq__`` packs its argument first.
            layer: Group(compress(made, map(eq, layer_of, repeat(layer))), vocabulary)
            for layer in dict.fromkeys(layer_of)
        }
    _last = (store, layers)
    return layers


_BODY: Final = attrgetter("body")
_KEYWORD: Final = attrgetter("keyword")
_LAYER: Final = attrgetter("layer")
_FEATURES: Final = partial(tuple.__new__, Features)


def _same_objects(a: Sequence[Entry], b: Sequence[Entry]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def oldest_first(x: Features, y: Features, now: str) -> tuple[Features, Features]:
    """The pair in age order (by time, then id): the older one is the one to supersede.

    A time past ``now`` (a clock ahead, or a date typed into a file) counts as
    ``now``, and loses a tie to a time that is not in the future: a row cannot
    outrank every later correction by claiming a date to come.
    """
    first, second = x.age, y.age
    if first[0] <= now and second[0] <= now:
        # Neither in the future, the usual case: the ages compare as they are.
        return (x, y) if first <= second else (y, x)
    return (x, y) if _believed_age(first, now) <= _believed_age(second, now) else (y, x)


def _believed_age(age: tuple[str, str], now: str) -> tuple[str, bool, str]:
    return (now, False, age[1]) if age[0] > now else (age[0], True, age[1])


def judging_time(now: datetime | None) -> str:
    """``now`` (default: the clock) as the stored times are written, for :func:`oldest_first`."""
    from pi_memory.entry import format_time
    from pi_memory.staleness import local_now

    return format_time(local_now(datetime.now() if now is None else now))


if TYPE_CHECKING:
    Pair = TypeVar("Pair")
Judge = Callable[[Features, Features, str], "Pair | None"]


def judge_every_pair(
    entries: Iterable[Entry], judge: Judge[Pair], now: datetime | None = None
) -> list[Pair]:
    """A detector's definition: every pair of live entries of each layer, judged one by one
    (``now``: the moment that counts as the present, see :func:`oldest_first`)."""
    found: list[Pair] = []
    moment = judging_time(now)
    for group in features(entries).values():
        for i, x in enumerate(group):
            for y in group[i + 1 :]:
                pair = judge(x, y, moment)
                if pair is not None:
                    found.append(pair)
    return found


def judge_candidates(
    entries: Iterable[Entry],
    candidates: Callable[[Sequence[Features]], Iterable[tuple[int, int]]],
    judge: Judge[Pair],
    known: Mapping[str, BodyFacts] | None = None,
    now: datetime | None = None,
) -> list[Pair]:
    """The same list as :func:`judge_every_pair` when ``candidates`` holds every accepted pair
    (``known``: as :func:`features` takes it)."""
    found: list[Pair] = []
    moment = judging_time(now)
    with no_cycle_collection():
        for group in features(entries, known).values():
            for i, j in candidates(group):
                pair = judge(group[i], group[j], moment)
                if pair is not None:
                    found.append(pair)
    return found


#: What a join hands over for a pair whose shared tokens it did not count.
UNCOUNTED: Final = -1
CountedJudge = Callable[[Features, Features, int, str], "Pair | None"]


def judge_counted(
    entries: Iterable[Entry],
    candidates: Callable[[Sequence[Features]], Mapping[tuple[int, int], int]],
    judge: CountedJudge[Pair],
    known: Mapping[str, BodyFacts] | None = None,
    now: datetime | None = None,
) -> list[Pair]:
    """:func:`judge_candidates` for candidates that come with how many tokens each pair
    shares (or :data:`UNCOUNTED`), passed to the judge: what a join has counted is not
    counted again."""
    found: list[Pair] = []
    moment = judging_time(now)
    with no_cycle_collection():
        for group in features(entries, known).values():
            for (i, j), common in candidates(group).items():
                pair = judge(group[i], group[j], common, moment)
                if pair is not None:
                    found.append(pair)
    return found


def ranked(pairs: Iterable[Pair], key: Callable[[Pair], Any], limit: int | None) -> list[Pair]:
    """``pairs`` in ``key`` order, the first ``limit`` of them (all when ``None``)."""
    ordered = sorted(pairs, key=key)
    return ordered if limit is None else ordered[: max(0, limit)]
