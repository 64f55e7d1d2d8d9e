"""Search over entries: tokenising, scoring, ranking, paging, and the text a reader sees.

Modes (pi-memory-auto's retrieval table):

``keyword`` (default)
    A hit needs any one query token in the body or keyword. Scored
    ``coverage*10 + tagExact*4 + tagPartial*2 + textHits*0.5 + phrases*1 + near*0.3
    + answer*1 + recency``, pi-memory-auto's shape (content match dominates, keyword
    hits next, time breaks ties), with content match measured over the entries
    searched: query tokens weigh by their rarity (idf) in ``coverage`` and
    ``textHits``, body hits saturate and are normalised by body length, each
    adjacent pair of query words found verbatim counts as a phrase, each two
    neighbouring query terms found in neighbouring words by their forms as
    ``near``, and a body holding what the question's answer looks like (a time
    for "when", a number for "how many") counts as ``answer``. A term the body
    holds only outside the sentence holding the most of the query counts for
    0.8 of its weight in ``coverage``: words asked together and found together
    say more than the same words scattered over a memory.
    When nothing matches, the newest entries are listed and ``fallback`` is set.
``all``
    Every entry, ranked by the same scorer with a three times stronger
    recency term: matches first, then whatever is newest.
``tag``
    Exact canonical-keyword lookup (the mode for a keyword copied from the index).
``recent``
    Newest first.
``id``
    Exact entry id.

An id-shaped query (``YYYYMMDD-xxxx``) is an id lookup in every mode, and a
query with no tokens (empty, or only stopwords) lists the newest entries as
mode ``recent`` (nothing was asked, so nothing "failed to match"). A query
of symbols that makes no token (``c++``, ``c#``) did ask for something: it is
matched literally, and a miss is a miss. ``tag`` also takes a line copied
from the index, count and all (``#deploy (2)``). A result's ``mode`` is the
mode that actually ran.

Matching is by substring of the lowercased body, and an English query word is
first reduced to a light stem, so ``deploy`` finds ``deployment``, ``painted``
finds ``painting``, and a Chinese query finds Chinese text without a word
segmenter. Han runs are queried as the run itself plus its 2-grams: ``部署前备份``
then still finds ``部署时先备份`` through ``部署`` and ``备份``, and coverage
says how much of the query was found.

Ranking is per mode, then demoted in two stable groups: stale entries below
fresh ones, superseded entries last. Each entry's rank key is computed once.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType

from pi_memory.config.defaults import MEMORY_MAX_BYTES
from pi_memory.entry import format_time, is_id
from pi_memory.keywords import STOPWORDS, canonical_key
from pi_memory.named_tuple import NamedTuple
from pi_memory.staleness import (
    SECONDS_END,
    interval_months,
    local_now,
    moment,
    seconds,
    sortable_time,
    stale_cutoff,
    stale_label,
)
from pi_memory.text import counted
from pi_memory.tokens import tokenize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Protocol

    from pi_memory.entry import Entry
    from pi_memory.search_index import Brief
else:
    Protocol = object  # the type checker's structural base; typing costs a command milliseconds


PAGE_SIZE: Final = 10
KEYWORD: Final = "keyword"
TAG: Final = "tag"
RECENT: Final = "recent"
ALL: Final = "all"
ID: Final = "id"
MODES: Final = (KEYWORD, TAG, RECENT, ALL, ID)

COVERAGE_WEIGHT: Final = 10.0
TAG_EXACT_WEIGHT: Final = 4.0
TAG_PARTIAL_WEIGHT: Final = 2.0
TEXT_HIT_WEIGHT: Final = 0.5
#: Each adjacent pair of query words found verbatim in the body.
PHRASE_WEIGHT: Final = 1.0
#: A body holding what the question's answer looks like (a time for "when").
ANSWER_SHAPE_WEIGHT: Final = 1.0
#: The share of its weight a term loses from ``coverage`` when the body holds it only
#: outside the sentence that holds the most of the query: the query's words in one
#: sentence say more about a memory than the same words scattered over its sentences.
SCATTERED_LOSS: Final = 0.2
#: Each two neighbouring query terms found in neighbouring words of the body by their
#: forms (``paint`` and ``sunset`` in "painted a sunset" or "sunset painting"): a
#: looser phrase than :data:`PHRASE_WEIGHT`'s, which is spelt as the query spells it.
NEAR_WEIGHT: Final = 0.3
#: Term-frequency saturation and length normalisation (the usual BM25 values).
SATURATION: Final = 1.2
LENGTH_NORM: Final = 0.75
RECENCY_MAX: Final = 1.5
RECENCY_DAYS: Final = 60.0
#: Past this age recency is 0; younger entries are the only ones whose time is parsed.
RECENCY_HORIZON_DAYS: Final = 90
ALL_RECENCY_BOOST: Final = 3.0

_PHRASE_WORD_RE: Final = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
#: Where a sentence ends: ``.``, ``!`` or ``?`` before a space or the end (not the dot
#: of ``node.js`` or ``3.5``), a line break, or a CJK full stop, exclamation or question.
_SENTENCE_END_RE: Final = re.compile(r"[.!?]+(?:\s|$)|[\n\u3002\uff01\uff1f]")
#: An index line's keyword and count: ``#deploy (2)``.
_COUNTED_LINE_RE: Final = re.compile(r"^(.*?\S)\s*\(\d+\)$")
_FRESH: Final = 0
_STALE: Final = 1
_SUPERSEDED: Final = 2


class Hit(NamedTuple):
    entry: Entry
    score: float
    #: The staleness label, ``None`` when fresh (or superseded).
    stale: str | None


class SearchResult(NamedTuple):
    #: The mode that ran (an id-shaped query runs ``id``, an empty one ``recent``).
    mode: str
    query: str
    page: int
    pages: int
    #: Results over all pages.
    total: int
    #: Nothing matched, so the newest entries are listed instead.
    fallback: bool
    hits: tuple[Hit, ...]
    #: What the search could not look at, and why (a refused layer, an unreadable file).
    notes: tuple[str, ...] = ()
    #: Ids of the hits that came from the repository, not from this user.
    foreign: frozenset[str] = frozenset()
    #: Suspect memories (their anchored code changed since): id → what changed.
    suspect: Mapping[str, str] = MappingProxyType({})


#: A result before paging, larger is better: (-group, score, confirmed time, id, -position).
#: Plain tuples compare in C; the position makes every row distinct, so the order
#: is total and the same input always gives the same pages.
_Row = tuple[int, float, str, str, int]


class _Ranked(Protocol):
    """What ranks an entry besides its score: an :class:`Entry`, or a search index's brief."""

    @property
    def id(self) -> str: ...
    @property
    def time(self) -> str: ...
    @property
    def last(self) -> str: ...
    @property
    def superseded_by(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def file(self) -> str: ...


class _Clock:
    """Per-search time facts, computed once; times are compared as sortable strings."""

    def __init__(self, now: datetime, review_months: int) -> None:
        self.now = local_now(now)
        self.review_months = review_months
        #: Staleness cutoff by what decides the interval (``type`` or ``file``).
        self.cutoffs: dict[str, str] = {}
        #: 1, or 3 in mode ``all``.
        self.recency_boost = 1.0
        self.recency_cutoff = format_time(self.now - timedelta(days=RECENCY_HORIZON_DAYS))

    def cutoff(self, entry: _Ranked) -> str:
        """The entry's staleness cutoff, memoised in :attr:`cutoffs`."""
        months = interval_months(entry, self.review_months)
        cutoff = self.cutoffs[entry.type or entry.file] = stale_cutoff(self.now, months)
        return cutoff

    def recency(self, when: str) -> float:
        if not when or when < self.recency_cutoff:
            return 0.0
        confirmed = moment(when)
        if confirmed is None:
            return 0.0
        age_days = max(0.0, (self.now - confirmed).total_seconds() / 86400)
        return max(0.0, RECENCY_MAX - age_days / RECENCY_DAYS)

    def recency_of(self, count: int, now: int) -> float:
        """:meth:`recency` of the time :func:`pi_memory.staleness.seconds` counts ``count``,
        ``now`` its count of :attr:`now`: the same float, without parsing a time."""
        age_days = max(0.0, (now - count) / 86400)
        return max(0.0, RECENCY_MAX - age_days / RECENCY_DAYS)


def _row(entry: _Ranked, index: int, score: float | None, clock: _Clock) -> _Row:
    """``score`` is ``None`` for a listing (no score, not even recency).

    Runs once per entry, so the common cases are inlined: a time already in
    the stored form is not re-parsed, and cutoffs are plain dict lookups.
    """
    when = entry.last or entry.time
    if len(when) != 19 or when[10] != " ":
        when = sortable_time(when)
    if entry.superseded_by:
        group = _SUPERSEDED
    elif when and when < (clock.cutoffs.get(entry.type or entry.file) or clock.cutoff(entry)):
        group = _STALE
    else:
        group = _FRESH
    if score is None:
        return (-group, 0.0, when, entry.id, -index)
    if when >= clock.recency_cutoff:
        score += clock.recency_boost * clock.recency(when)
    return (-group, score, when, entry.id, -index)


def _tag_score(key: str, forms: Sequence[str]) -> float:
    if not key:
        return 0.0
    if key in forms:
        return TAG_EXACT_WEIGHT
    for form in forms:
        if form in key or key in form:
            return TAG_PARTIAL_WEIGHT
    return 0.0


def phrases(query: str) -> list[str]:
    """Adjacent query word pairs, as a body would spell them (not two stopwords)."""
    words = _PHRASE_WORD_RE.findall(query.lower())
    return [
        f"{first} {second}"
        for first, second in zip(words, words[1:])
        if first not in STOPWORDS or second not in STOPWORDS
    ]


def idf(entries: int, containing: int) -> float:
    """How much finding a token says about an entry: rarer tokens weigh more."""
    return math.log(1.0 + (entries - containing + 0.5) / (containing + 0.5))


class Corpus(NamedTuple):
    """What content match is measured against, when the entries searched are not all
    there are (a search index hands over only the entries that can match)."""

    #: Every entry of the store.
    size: int
    #: The sum of ``len(body.lower())`` over every entry.
    total_length: int


class _Asked(NamedTuple):
    """A keyword query as the scorer reads it (see :func:`_score_entries`)."""

    #: Each term's token, in query order: what a keyword is compared with.
    names: list[str]
    #: The canonical keys a keyword is tag-matched against.
    forms: list[str]
    #: What a lowercased body is searched for: each term's first form, then the others.
    patterns: list[str]
    #: Each term's forms, in term order (what finds it in one sentence of a body).
    term_forms: list[tuple[str, ...]]
    #: (column in ``patterns``, the term it counts for) of each term's other forms.
    extra: list[tuple[int, int]]
    #: (term, the next term) of each two terms next to each other among the query's words
    #: (its stopwords and scaffolding left out).
    neighbours: list[tuple[int, int]]
    #: (term, the piece of a memory's time that finds it) of each date term.
    dated: list[tuple[int, str]]
    #: Adjacent query word pairs found verbatim in a body (:func:`phrases`).
    phrases: list[str]
    #: What a body answering the question holds (:func:`pi_memory.query_terms.answer_shape`).
    shape: re.Pattern[str] | None


def _asked(query: str, tokens: Sequence[str]) -> _Asked:
    from pi_memory.query_terms import answer_shape
    from pi_memory.query_terms import terms as query_terms

    asked = query_terms(query, tokens)
    names = [term.token for term in asked]
    forms = [form for form in {canonical_key(query), *map(canonical_key, names)} if form]
    # Each term's first form, then the others: one C loop counts them all, and
    # the few other forms are added to their term's count.
    patterns = [term.forms[0] for term in asked]
    others = [(at, form) for at, term in enumerate(asked) for form in term.forms[1:]]
    patterns += [form for _, form in others]
    extra = list(enumerate((at for at, _ in others), len(asked)))
    dated = [(position, term.time) for position, term in enumerate(asked) if term.time]
    term_forms = [term.forms for term in asked]
    # A hyphenated word's parts come after the query's words: no neighbours of theirs.
    said = 0
    while said < len(asked) and asked[said].token in tokens:
        said += 1
    neighbours = [(at, at + 1) for at in range(said - 1)]
    return _Asked(
        names,
        forms,
        patterns,
        term_forms,
        extra,
        neighbours,
        dated,
        phrases(query),
        answer_shape(query),
    )


class _Tally:
    """Content match over the entries searched, one entry at a time: which match and how
    long the bodies are, kept a column each for :func:`_contents`."""

    def __init__(self, asked: _Asked) -> None:
        self.asked = asked
        self.per_keyword: dict[str, tuple[tuple[bool, ...] | None, float]] = {}
        self.total_length = 0
        #: The matched entries' positions, then their columns (see :func:`_contents`).
        self.at: list[int] = []
        self.counts: list[list[int]] = []
        self.in_keyword: list[tuple[bool, ...] | None] = []
        self.tags: list[float] = []
        self.lengths: list[int] = []

    def keyword_facts(self, keyword: str, key: str = "") -> tuple[tuple[bool, ...] | None, float]:
        """:func:`_keyword_facts`, once per distinct keyword (``key``: its canonical key
        when known)."""
        facts = self.per_keyword.get(keyword)
        if facts is None:
            key = key or canonical_key(keyword)
            asked = self.asked
            facts = self.per_keyword[keyword] = _keyword_facts(
                keyword, key, asked.names, asked.forms
            )
        return facts

    def add(
        self,
        index: int,
        counts: list[int],
        in_keyword: tuple[bool, ...] | None,
        *,
        tag: float,
        when: str,
        size: int,
    ) -> bool:
        """Count one entry (``counts``: hits of each pattern; ``in_keyword``: which terms
        its keyword holds; ``when``: its confirmed time, read for date terms); whether
        it matched."""
        asked, count = self.asked, len(self.asked.names)
        self.total_length += size
        if asked.extra:
            _fold(asked, [counts])
        if counts.count(0) == count and in_keyword is None:
            return False
        if asked.dated:
            in_keyword = _in_time(in_keyword, count, asked.dated, when)
        self.at.append(index)
        self.counts.append(counts)
        self.in_keyword.append(in_keyword)
        self.tags.append(tag)
        self.lengths.append(size)
        return True

    def scores(self, corpus: Corpus | None, size: int) -> tuple[list[float], list[float]]:
        """The content score of each matched entry (in :attr:`at`'s order), and each
        term's share of the query's weight."""
        if corpus is None:
            corpus = Corpus(size, self.total_length)
        return _contents(self.counts, self.in_keyword, self.lengths, self.tags, corpus)


def _fold(asked: _Asked, rows: Iterable[list[int]]) -> None:
    """Each row of hits per pattern made hits per term: a term's other forms are added
    to its count."""
    count, extra = len(asked.names), asked.extra
    for counts in rows:
        for source, position in extra:
            counts[position] += counts[source]
        del counts[count:]


def _contents(
    counts: Sequence[list[int]],
    in_keyword: Sequence[tuple[bool, ...] | None],
    lengths: Sequence[int],
    tags: Sequence[float],
    corpus: Corpus,
) -> tuple[list[float], list[float]]:
    """The content score ``coverage + tag + text_hits`` of matched entries, given a column
    each (hits per term, which terms the keyword or time holds, the body's length, the
    tag score), worked out a term at a time over all of them; and each term's share of
    the query's weight.

    ``coverage`` is :data:`COVERAGE_WEIGHT` times the share of the query's weight
    (each term's :func:`idf` among the entries matched, against ``corpus``) found,
    ``text_hits`` :data:`TEXT_HIT_WEIGHT` times the weighted, saturated and
    length-normalised hits over the query's weight."""
    from itertools import compress
    from operator import itemgetter

    size, total_length = corpus
    everyone = range(len(counts))
    mean_length = total_length / size if size else 1.0
    # Hits saturate (diminishing returns), a shorter body counting each one more:
    # ``hits * (SATURATION + 1) / (hits + damping)``, the damping per entry.
    damping = [
        SATURATION
        * (1 - LENGTH_NORM + LENGTH_NORM * (length / mean_length if mean_length else 1.0))
        for length in lengths
    ]
    named = [(n, held) for n, held in enumerate(in_keyword) if held is not None]
    columns = [
        list(map(itemgetter(term), counts)) for term in range(len(counts[0]) if counts else 0)
    ]
    # Per term: the entries it is found in the keyword (or time) of, not in the body.
    by_name = [
        [n for n, held in named if held[term] and not column[n]]
        for term, column in enumerate(columns)
    ]
    weights = [
        idf(size, len(column) - column.count(0) + len(also))
        for column, also in zip(columns, by_name)
    ]
    weight = sum(weights)
    covered = [0.0] * len(counts)
    text_hits = [0.0] * len(counts)
    # Added a term at a time, in the query's order: each entry's sums are the ones an
    # entry-at-a-time loop makes, to the last bit.
    for term, (column, also) in enumerate(zip(columns, by_name)):
        term_weight = weights[term]
        for n in compress(everyone, column):
            hits = column[n]
            covered[n] += term_weight
            text_hits[n] += term_weight * (hits * (SATURATION + 1) / (hits + damping[n]))
        for n in also:
            covered[n] += term_weight
    contents = [
        COVERAGE_WEIGHT * found / weight + tag + TEXT_HIT_WEIGHT * hit / weight
        for found, tag, hit in zip(covered, tags, text_hits)
    ]
    return contents, [term_weight / weight for term_weight in weights]


def body_bonus(body: str, asked: _Asked, near: Sequence[tuple[int, int]] = ()) -> float:
    """What a score gains from the lowercased body beyond its hits: each query phrase
    found verbatim, each pair of ``near`` (:func:`_near_pairs`) found in neighbouring
    words, and an answer of the shape the question asks for. Anything added here must
    stay within :func:`body_bonus_bound`, which the search index works out without
    the body."""
    bonus = PHRASE_WEIGHT * sum(phrase in body for phrase in asked.phrases)
    if near:
        bonus += NEAR_WEIGHT * _near(body, asked.term_forms, near)
    if asked.shape is not None and asked.shape.search(body):
        bonus += ANSWER_SHAPE_WEIGHT
    return bonus


def _near_pairs(asked: _Asked, hits: Sequence[int]) -> list[tuple[int, int]]:
    """The query's neighbouring terms (:attr:`_Asked.neighbours`) both found in a body
    (``hits``: its hits per term)."""
    return [pair for pair in asked.neighbours if hits[pair[0]] and hits[pair[1]]]


def _near(body: str, forms: Sequence[tuple[str, ...]], pairs: Sequence[tuple[int, int]]) -> int:
    """How many of ``pairs`` of terms ``body`` holds in two neighbouring words, in either
    order (a word holds a term when a form of it is in the word)."""
    words = _PHRASE_WORD_RE.findall(body)
    where: dict[int, set[int]] = {}
    for term in {term for pair in pairs for term in pair}:
        where[term] = {at for at, word in enumerate(words) if any(f in word for f in forms[term])}
    return sum(
        any(at + 1 in where[second] or at - 1 in where[second] for at in where[first])
        for first, second in pairs
    )


def scattered_loss(
    body: str,
    asked: _Asked,
    hits: Sequence[int],
    held: tuple[bool, ...] | None,
    shares: Sequence[float],
) -> float:
    """What ``coverage`` loses for the terms the lowercased ``body`` holds (``hits``: its
    hits per term) only outside its sentence that holds the most of the query's weight
    (``shares``: each term's share of it); a term the keyword or time holds (``held``)
    is about the whole memory and loses nothing, and a body of one sentence nothing.
    Never negative, so the search index's bound of a score without it still bounds
    the score."""
    alone = [term for term, found in enumerate(hits) if found and not (held and held[term])]
    if len(alone) < 2:
        return 0.0
    sentences = _SENTENCE_END_RE.split(body)
    if len(sentences) < 2:
        return 0.0
    forms = asked.term_forms
    best = 0.0
    for sentence in sentences:
        found = 0.0
        for term in alone:
            if any(form in sentence for form in forms[term]):
                found += shares[term]
        best = max(best, found)
    total = sum(shares[term] for term in alone)
    return COVERAGE_WEIGHT * SCATTERED_LOSS * max(0.0, total - best)


def _body_score(
    content: float,
    body: str,
    asked: _Asked,
    hits: Sequence[int],
    *,
    held: tuple[bool, ...] | None,
    shares: Sequence[float],
) -> float:
    """The score before recency of a matched entry whose content score is ``content``
    (``body``: lowercased; ``hits``: per term; ``held``: which terms its keyword or
    time holds; ``shares``: each term's share of the query's weight)."""
    bonus = body_bonus(body, asked, _near_pairs(asked, hits))
    return content + bonus - scattered_loss(body, asked, hits, held, shares)


def body_bonus_bound(possible: int, asked: _Asked, near: int = 0) -> float:
    """The most :func:`body_bonus` can add to a body that may hold ``possible`` phrases
    and holds both terms of ``near`` neighbouring pairs."""
    shape = ANSWER_SHAPE_WEIGHT if asked.shape is not None else 0.0
    return PHRASE_WEIGHT * possible + NEAR_WEIGHT * near + shape


def _score_entries(
    entries: Sequence[Entry],
    tokens: Sequence[str],
    query: str,
    clock: _Clock,
    *,
    every: bool,
    corpus: Corpus | None = None,
) -> list[_Row]:
    """Scored rows; the matching is substring counting, which runs in C.

    The query is read as :func:`pi_memory.query_terms.terms`. Content match is
    measured over the entries searched: ``coverage`` is the share of the
    query's weight (each term's :func:`idf`) found in the body or the keyword
    (or, for a date, the entry's time), ``textHits`` the idf-weighted,
    saturated and length-normalised count of body hits, each query phrase
    found verbatim adds :data:`PHRASE_WEIGHT` and a body holding an answer of
    the shape asked :data:`ANSWER_SHAPE_WEIGHT` (:func:`body_bonus`). Without
    ``every``, entries that match no term in the body or keyword are left out.
    What depends only on the keyword (which terms it contains, its tag score)
    is computed once per distinct keyword.
    """
    asked = _asked(query, tokens)
    tally = _Tally(asked)
    unmatched: list[int] = []
    bodies: dict[int, str] = {}
    for index, entry in enumerate(entries):
        body = entry.body.lower()
        counts = list(map(body.count, asked.patterns))
        in_keyword, tag = tally.keyword_facts(entry.keyword)
        when = entry.last or entry.time
        if tally.add(index, counts, in_keyword, tag=tag, when=when, size=len(body)):
            bodies[index] = body
        elif every:
            unmatched.append(index)
    contents, shares = tally.scores(corpus, len(entries))
    rows = [
        _row(
            entries[at],
            at,
            _body_score(content, bodies[at], asked, hits, held=held, shares=shares),
            clock,
        )
        for at, content, hits, held in zip(tally.at, contents, tally.counts, tally.in_keyword)
    ]
    rows.extend(_row(entries[index], index, 0.0, clock) for index in unmatched)
    return rows


def _in_time(
    in_keyword: tuple[bool, ...] | None, count: int, dated: Sequence[tuple[int, str]], when: str
) -> tuple[bool, ...] | None:
    """``in_keyword`` with the date terms ``when`` falls in marked found too."""
    found = list(in_keyword) if in_keyword is not None else [False] * count
    for position, piece in dated:
        if when.startswith(piece) or when[4 : 4 + len(piece)] == piece:
            found[position] = True
    return tuple(found) if any(found) else None


def _keyword_facts(
    keyword: str, key: str, tokens: Sequence[str], forms: Sequence[str]
) -> tuple[tuple[bool, ...] | None, float]:
    """(which tokens the keyword contains, or ``None`` for none; its tag score);
    ``key`` is ``canonical_key(keyword)``."""
    lowered = keyword.lower()
    named = tuple(token in lowered for token in tokens)
    return (named if any(named) else None), _tag_score(key, forms)


def _listing(entries: Sequence[Entry], clock: _Clock, wanted: Iterable[int]) -> list[_Row]:
    """Unscored rows for the entries at positions ``wanted`` (newest first once ranked)."""
    return [_row(entries[index], index, None, clock) for index in wanted]


def _id_query(query: str) -> str | None:
    candidate = query.strip().strip("[]").strip()
    return candidate if is_id(candidate) else None


def _literal(query: str) -> list[str]:
    """A query of symbols and letters that are no tokens (``c++``, ``c#``) as one literal
    token: it asked for something, so it must not quietly list the newest entries."""
    text = query.strip().lower()
    if any(not (char.isalnum() or char.isspace()) for char in text):
        return [text]
    return []


class IndexTerms(NamedTuple):
    """What a search index must find for a keyword query (:func:`search_index_terms`)."""

    #: What a lowercased body is searched for, in the scorer's order (never empty,
    #: never holding whitespace).
    patterns: list[str]
    #: What a lowercased keyword is searched for.
    tokens: list[str]
    #: Adjacent query word pairs (:func:`phrases`): the body bonus it may earn.
    phrases: list[str]


def search_index_terms(query: str, mode: str) -> IndexTerms | None:
    """What a search index must find for ``query``.

    An entry matches when its lowercased body holds a pattern or its lowercased
    keyword a token, exactly as the scorer decides. ``None`` when the search is
    not a scored keyword search (another mode, an id, nothing asked) or a
    token holds whitespace: then every entry is needed.
    """
    if mode != KEYWORD or _id_query(query) is not None:
        return None
    tokens = tokenize(query) or _literal(query)
    if not tokens or any(len(token.split()) != 1 for token in tokens):
        return None
    asked = _asked(query, tokens)
    if any(len(pattern.split()) != 1 or pattern != pattern.strip() for pattern in asked.patterns):
        return None
    return IndexTerms(asked.patterns, asked.names, asked.phrases)


class Candidates(NamedTuple):
    """The entries a search index found for a keyword query, none of them decoded yet:
    what the postings say of each, and how to read more."""

    #: Per candidate: the hits of each of :attr:`IndexTerms.patterns` in its body.
    counts: Sequence[list[int]]
    #: Per candidate: which of :attr:`IndexTerms.tokens` its keyword holds (``None``: none).
    in_keyword: Sequence[tuple[bool, ...] | None]
    #: Per candidate: ``len(body.lower())``.
    lengths: Sequence[int]
    #: Per candidate: its confirmed time in the sortable form (``search_index.ranked_time``)
    #: counted by :func:`pi_memory.staleness.seconds`, ``SECONDS_END`` when it has no count.
    moments: Sequence[int]
    #: Per candidate: its keyword's canonical key.
    keys: Sequence[str]
    #: Per candidate: how many of :attr:`IndexTerms.phrases` its body may hold.
    possible: Sequence[int]
    #: The brief (``search_index.Brief``) of the candidate at a position.
    brief: Callable[[int], Brief]
    #: The candidate at a position, decoded.
    entry: Callable[[int], Entry]


def search_candidates(
    found: Candidates,
    query: str,
    *,
    page: int = 1,
    now: datetime,
    review_months: int = 0,
    corpus: Corpus,
    suspect: Mapping[str, str] = MappingProxyType({}),
) -> SearchResult:
    """:func:`search` in mode ``keyword`` over what a search index found: the same page,
    reading only what can reach it.

    Every candidate is scored from the postings and the index's columns (hits,
    keyword, key, time) except for the body bonus, and ranked as if fresh: a row
    that bounds its real one from above (the body bonus it may earn is added; being
    stale, superseded or suspect only lowers a row). Candidates are then read best
    bound first, their brief (for the group) and, when their body may hold a
    phrase, their text, until the page is full of rows no bound left can beat. A
    query with a date term reads every brief first (a memory's time is part of its
    match)."""
    clock = _Clock(now, review_months)
    asked = _asked(query, tokenize(query) or _literal(query))
    matched, contents, shares = _candidate_contents(found, asked, corpus)
    bounds = _bounds(found, asked, clock, matched, contents)
    possible, counts = found.possible, found.counts
    decoded: dict[int, Entry] = {}

    def entry(n: int) -> Entry:
        if n not in decoded:
            decoded[n] = found.entry(n)
        return decoded[n]

    size = max(1, page) * PAGE_SIZE
    best: list[_Row] = []
    for bound, at in _best_first(bounds, 2 * size):
        # Below the score of the page's last row, and it fresh: neither this candidate nor
        # any after it can reach the page.
        if len(best) == size and best[0][0] == -_FRESH and bound < best[0][1]:
            break
        n = matched[at]
        brief = found.brief(n)
        score = contents[at]
        hits = counts[n]
        if possible[n] or asked.shape is not None or len(hits) - hits.count(0) > 1:
            held = found.in_keyword[n]
            if asked.dated:
                held = _in_time(held, len(hits), asked.dated, brief.last or brief.time)
            body = entry(n).body.lower()
            score = _body_score(score, body, asked, hits, held=held, shares=shares)
        row = _demoted_row(_row(brief, n, score, clock), brief.id, suspect)
        (heapq.heappush if len(best) < size else heapq.heappushpop)(best, row)
    return _page(
        sorted(best, reverse=True),
        entry,
        ran=KEYWORD,
        query=query,
        page=page,
        fallback=False,
        total=len(matched),
        now=now,
        review_months=review_months,
        suspect=suspect,
    )


def _candidate_contents(
    found: Candidates, asked: _Asked, corpus: Corpus
) -> tuple[list[int], list[float], list[float]]:
    """The candidates that match (every one holds a term in its body or keyword; a date
    only adds to a match), the content score of each and each term's share of the
    query's weight (:func:`_contents`)."""
    counts, in_keyword = found.counts, found.in_keyword
    if asked.extra:
        _fold(asked, counts)
    matched = [n for n, hits in enumerate(counts) if in_keyword[n] is not None or any(hits)]
    if asked.dated:
        in_keyword = list(in_keyword)
        for n in matched:
            brief = found.brief(n)
            when = brief.last or brief.time
            in_keyword[n] = _in_time(in_keyword[n], len(asked.names), asked.dated, when)
    tag_of: dict[str, float] = {}
    for key in found.keys:
        if key not in tag_of:
            tag_of[key] = _tag_score(key, asked.forms)
    keys = found.keys
    if len(matched) < len(counts):
        counts = [counts[n] for n in matched]
        in_keyword = [in_keyword[n] for n in matched]
        lengths = [found.lengths[n] for n in matched]
        tags = [tag_of[keys[n]] for n in matched]
    else:
        lengths = list(found.lengths)
        tags = [tag_of[key] for key in keys]
    contents, shares = _contents(counts, in_keyword, lengths, tags, corpus)
    return matched, contents, shares


def _bounds(
    found: Candidates, asked: _Asked, clock: _Clock, matched: list[int], contents: list[float]
) -> list[tuple[float, int]]:
    """(bound, its position in ``matched``) of each matched candidate: its score ranked as
    if fresh (see :func:`_row`), the body bonus it may earn added, and recency (worked
    out once per time, from the time's count; read from the brief for a time without one)."""
    possible, moments, counts = found.possible, found.moments, found.counts
    bonus = {most: body_bonus_bound(most, asked) for most in set(possible)}
    neighbours = asked.neighbours
    now_count = seconds(format_time(clock.now))
    recent_from = seconds(clock.recency_cutoff)
    if now_count is None or recent_from is None:
        moments = [SECONDS_END] * len(moments)  # a clock out of the counts' range
        recent_from = 0
    boost = clock.recency_boost
    recent: dict[int, float] = {}
    bounds: list[tuple[float, int]] = []
    for at, n in enumerate(matched):
        score = contents[at] + bonus[possible[n]]
        if neighbours:
            near = len(_near_pairs(asked, counts[n]))
            if near:
                score = contents[at] + body_bonus_bound(possible[n], asked, near)
        count = moments[n]
        if count >= recent_from:  # recency as :func:`_row` adds it
            if count == SECONDS_END:
                score = _row(found.brief(n), n, score, clock)[1]
            else:
                recency = recent.get(count)
                if recency is None:
                    recency = recent[count] = clock.recency_of(count, now_count or 0)
                score += boost * recency
        bounds.append((score, at))
    return bounds


def _best_first(bounds: list[tuple[float, int]], first: int) -> Iterator[tuple[float, int]]:
    """``bounds`` from the largest down (they are distinct): the ``first`` largest picked
    out, the rest sorted only if the reader gets past them (a page is usually settled
    within them, and sorting thousands of bounds costs more than the page)."""
    best = heapq.nlargest(first, bounds)
    yield from best
    if len(best) < len(bounds):
        yield from sorted(bounds, reverse=True)[len(best) :]


def _tag_keys(query: str) -> list[str]:
    """The canonical keys a ``tag`` query may mean: as typed, then without the count of an
    index line it was copied from (``#deploy (2)`` means ``deploy``)."""
    keys = [canonical_key(query)]
    counted = _COUNTED_LINE_RE.match(query.strip())
    if counted:
        keys.append(canonical_key(counted.group(1)))
    return [key for key in dict.fromkeys(keys) if key]


def _run(
    entries: Sequence[Entry], query: str, mode: str, clock: _Clock, corpus: Corpus | None = None
) -> tuple[str, bool, list[_Row]]:
    """(the mode that ran, fallback, unordered rows)."""
    everything = range(len(entries))
    wanted_id = _id_query(query)
    if wanted_id is not None:
        matching = [i for i in everything if entries[i].id == wanted_id]
        return ID, False, _listing(entries, clock, matching)
    tokens = tokenize(query) or _literal(query)
    if mode == ID:
        if not query.strip():
            return RECENT, False, _listing(entries, clock, everything)
        return ID, False, []
    if mode == TAG:
        keys = _tag_keys(query)
        if not keys:
            return RECENT, False, _listing(entries, clock, everything)
        tagged: list[int] = []
        for key in keys:
            tagged = [i for i in everything if canonical_key(entries[i].keyword) == key]
            if tagged:
                break
        return TAG, False, _listing(entries, clock, tagged)
    if mode == RECENT or not tokens:
        return RECENT, False, _listing(entries, clock, everything)
    if mode == ALL:
        clock.recency_boost = ALL_RECENCY_BOOST
        return ALL, False, _score_entries(entries, tokens, query, clock, every=True)
    scored = _score_entries(entries, tokens, query, clock, every=False, corpus=corpus)
    if scored:
        return KEYWORD, False, scored
    return KEYWORD, True, _listing(entries, clock, everything)


def search(
    entries: Sequence[Entry],
    query: str,
    *,
    mode: str = KEYWORD,
    page: int = 1,
    now: datetime,
    review_months: int = 0,
    corpus: Corpus | None = None,
    suspect: Mapping[str, str] = MappingProxyType({}),
) -> SearchResult:
    """Rank ``entries`` for ``query`` and return one page of hits.

    ``corpus``: the whole store's size and body length, when ``entries`` are
    only the ones that can match (found through :func:`search_index_terms`).
    Raises ``ValueError`` for an unknown mode (the caller's input, not the store's).
    """
    if mode not in MODES:
        raise ValueError(f"unknown search mode {mode!r} (one of: {', '.join(MODES)})")
    clock = _Clock(now, review_months)
    ran, fallback, rows = _run(entries, query, mode, clock, corpus)
    if suspect:
        rows = _demoted(rows, entries, suspect)
    # Rows are distinct (they end with the input position), so this order is total.
    best = heapq.nlargest(max(1, page) * PAGE_SIZE, rows)
    return _page(
        best,
        entries.__getitem__,
        ran=ran,
        query=query,
        page=page,
        fallback=fallback,
        total=len(rows),
        now=now,
        review_months=review_months,
        suspect=suspect,
    )


def _page(
    best: Sequence[_Row],
    entry: Callable[[int], Entry],
    *,
    ran: str,
    query: str,
    page: int,
    fallback: bool,
    total: int,
    now: datetime,
    review_months: int,
    suspect: Mapping[str, str],
) -> SearchResult:
    """The result for ``page`` of the ``total`` rows, ``best`` the first pages' rows in
    order, ``entry`` the entry at a row's position."""
    page = max(1, page)
    window = best[(page - 1) * PAGE_SIZE :]
    hits = tuple(
        Hit(entry(-row[4]), round(row[1], 4), stale_label(entry(-row[4]), now, review_months))
        for row in window
    )
    return SearchResult(
        mode=ran,
        query=query.strip(),
        page=page,
        pages=max(1, -(-total // PAGE_SIZE)),
        total=total,
        fallback=fallback,
        hits=hits,
        suspect={h.entry.id: suspect[h.entry.id] for h in hits if h.entry.id in suspect},
    )


def _demoted_row(row: _Row, entry_id: str, suspect: Mapping[str, str]) -> _Row:
    """A suspect memory (its code changed since) ranks with the stale ones, below the fresh."""
    if suspect and row[0] == -_FRESH and entry_id in suspect:
        return (-_STALE, *row[1:])
    return row


def _demoted(rows: list[_Row], entries: Sequence[Entry], suspect: Mapping[str, str]) -> list[_Row]:
    return [_demoted_row(row, entries[-row[4]].id, suspect) for row in rows]


def _location(entry: Entry) -> str:
    return f"{entry.layer}/{entry.file}" if entry.file else entry.layer


def render_hit(
    hit: Hit,
    foreign: frozenset[str] = frozenset(),
    max_body_bytes: int = MEMORY_MAX_BYTES,
    suspect: Mapping[str, str] = MappingProxyType({}),
) -> list[str]:
    """One result: the metadata line, its labels, then the body as stored; a memory from
    the repository says so after its ``src``, which anyone could write; a body over
    ``max_body_bytes`` (one stored before the limit, or by hand) is shown clipped."""
    from pi_memory.memory_size import clipped

    entry = hit.entry
    src = f"src: {entry.src}"
    if entry.id in foreign:
        from pi_memory.provenance import REPOSITORY_MARK

        src += f" ({REPOSITORY_MARK})"
    fields = [f"[{entry.id}] {_location(entry)}", entry.time, src]
    fields.append(f"tags: {entry.keyword}")
    if entry.seen > 1:
        fields.append(f"seen: {entry.seen}")
    if entry.last:
        fields.append(f"last: {entry.last}")
    if entry.supersedes:
        fields.append(f"supersedes: {','.join(entry.supersedes)}")
    lines = [" | ".join(fields) + " |"]
    if hit.stale:
        lines.append(f"  {hit.stale}")
    if entry.id in suspect:
        from pi_memory.anchors.notice import hit_line
        from pi_memory.launcher import this_package

        lines.append(f"  {hit_line(suspect[entry.id], this_package().command('verify', entry.id))}")
    if entry.superseded_by:
        lines.append(f"  superseded by [{entry.superseded_by}]")
    body = clipped(entry.body, max_body_bytes, f"the whole text is in {_location(entry)}")
    lines.extend(f"  {line}".rstrip() for line in body.splitlines())
    return lines


def _header(result: SearchResult) -> str:
    parts = [f"memory search — mode: {result.mode}"]
    query = " ".join(result.query.split())
    if query:
        parts.append(f'query: "{query}"')
    # The newest memories listed when nothing matched are no results of this query.
    parts.append(counted(0 if result.fallback else result.total, "result"))
    if result.page <= result.pages:  # a page past the end says so below, unnumbered
        parts.append(f"page {result.page}/{result.pages}")
    return " · ".join(parts)


def _empty_note(result: SearchResult) -> str:
    if result.fallback or result.mode == RECENT:
        return "no memories stored"
    if result.mode == TAG:
        return 'no memory has this keyword — mode "keyword" searches the text'
    if result.mode == ID:
        return "no memory has this id"
    return "no memory matched"


def render_search(result: SearchResult, max_body_bytes: int = MEMORY_MAX_BYTES) -> str:
    """The text a person or an agent reads for one page of results, each body at most
    ``max_body_bytes`` (the store's ``memoryMaxBytes``)."""
    lines = [_header(result)]
    lines.extend(f"note: {note}" for note in result.notes)
    if result.total == 0:
        lines.append(_empty_note(result))
    elif result.fallback:
        lines.append(f"no match — the newest memories instead ({result.total} in all)")
    if result.total and not result.hits:
        lines.append(f"nothing on page {result.page} — {counted(result.pages, 'page')} in all")
    for hit in result.hits:
        lines.append("")
        lines.extend(render_hit(hit, result.foreign, max_body_bytes, result.suspect))
    if result.hits and result.page < result.pages:
        lines.append("")
        lines.append(f"page {result.page}/{result.pages} — more: --page {result.page + 1}")
    return "\n".join(lines) + "\n"
