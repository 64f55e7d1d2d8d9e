"""Text features: what the duplicate and conflict detectors read of a memory; pure.

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

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Set
from functools import lru_cache
from itertools import accumulate, chain, compress, repeat
from operator import add, and_, attrgetter, contains, eq, is_not, itemgetter, not_, or_

from pi_memory.entry import (
    Entry,
    format_time,
    normalize_ascii_lowered,
    normalize_evenly_spaced_each,
    normalize_memory_text,
    parse_time,
)
from pi_memory.keywords import canonical_key, stem
from pi_memory.memo import Memo
from pi_memory.named_tuple import NamedTuple
from pi_memory.text import HAN_CLASS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeVar

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


def _content_of(word: str) -> str:
    return "" if word in FUNCTION_WORDS else _lemma(word)


#: Lemmas by word, ``""`` for a function word, kept on first sight: a store repeats
#: its vocabulary, and a word seen before is looked up in C.
_CONTENT: Final = Memo(_content_of, 100_000)


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


#: The last letters of every word :func:`lemma` changes: each suffix :func:`stem` cuts
#: ends in one of them, and so does a final ``e``.
INFLECTED_ENDS: Final = ("s", "g", "d", "y", "e")


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


def jaccard(a: Set[object], b: Set[object]) -> float:
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


#: What a body alone decides: the normalised body, its tokens, numbers,
#: number-free words and content words, each as a set (the joins and the rules
#: compare sets; :func:`body_order` has them in order). A pure function of the
#: body, so it can be kept across runs (see :mod:`pi_memory.detect.feature_cache`).
BodyFacts = tuple[str, frozenset[str], frozenset[str], frozenset[str], frozenset[str]]
#: :data:`BodyFacts` as the detectors read them within one store, in
#: :class:`Features`' order after ``key``: the tokens, the number-free words and
#: the content words as ids in the store's :class:`Vocabulary` (see :func:`store_facts`).
StoreFacts = tuple[str, frozenset[int], frozenset[str], frozenset[int], frozenset[int]]
#: :func:`store_facts`' answer: each of the :data:`StoreFacts` of every body, in order.
StoreColumns = tuple[
    list[str],
    list[frozenset[int]],
    list[frozenset[str]],
    list[frozenset[int]],
    list[frozenset[int]],
]


class Vocabulary(dict[str, int]):
    """A store's words by id: each word is given the next id on first sight.

    :func:`store_facts` numbers every token of a store rarest first, so that
    the joins compare and order small ints instead of words; a word no token
    spells (a number-free word, a content word's lemma) is numbered when first
    asked for, after every token. The joins are exact under any fixed order of
    the words.
    """

    def __missing__(self, word: str) -> int:
        found = self[word] = len(self)
        return found

    if TYPE_CHECKING:

        def numbered(self, word: str) -> int:
            """The id of ``word``, which must have one already."""

    else:
        # A plain dictionary's ``get``: called from C, it is looked up faster than
        # the subscript of a dictionary's subclass.
        numbered = dict.get


class Features(NamedTuple):
    """What both detectors read of one live entry, computed once per entry.

    A named tuple rather than a dataclass: a store of 100,000 memories builds
    100,000 of these, and a tuple is several times cheaper to create. After
    ``key`` come the :data:`StoreFacts`, in their order: the :data:`BodyFacts`
    with the tokens and words as ids in the store's :class:`Vocabulary`. What a
    rule reads in order (the numbers and words a conflict names) is
    :func:`body_order` of the entry's body, worked out only for the pairs that
    get that far.
    """

    entry: Entry
    #: Oldest first: see :func:`age_key`.
    age: tuple[str, str]
    #: Canonical key of the entry's keyword, ``""`` when it has none.
    key: str
    #: The body as write-time de-duplication sees it.
    norm: str
    #: The body's tokens, as ids in the store's vocabulary: the rarer, the smaller.
    tokens: frozenset[int]
    #: Numbers as written (``1.2.3`` is one).
    numbers: frozenset[str]
    #: Word tokens of the body with every number removed, as ids like the tokens.
    words: frozenset[int]
    #: The content words (see the module docstring), as ids like the tokens: a
    #: lemma no token spells is numbered after every token.
    content: frozenset[int]


class Group(list[Features]):
    """One layer's features, with the vocabulary their tokens' and words' ids are in."""

    __slots__ = ("vocabulary",)

    def __init__(self, items: Iterable[Features], vocabulary: Vocabulary) -> None:
        super().__init__(items)
        self.vocabulary = vocabulary


def age_key(entry: Entry) -> tuple[str, str]:
    """Oldest first: the time as ``YYYY-MM-DD HH:MM:SS`` (unreadable sorts oldest), then the id."""
    text = entry.time
    if not (len(text) == 19 and text[10] == " "):
        parsed = parse_time(text)
        text = format_time(parsed) if parsed is not None else ""
    return (text, entry.id)


def age_keys(entries: Sequence[Entry]) -> list[tuple[str, str]]:
    """:func:`age_key` of each of ``entries``, in the interpreter's C loops when every
    time is written as stored (``YYYY-MM-DD HH:MM:SS``)."""
    times = list(map(_TIME, entries))
    if all(map(eq, map(len, times), repeat(19))) and all(
        map(eq, map(_ELEVENTH, times), repeat(" "))
    ):
        return list(zip(times, map(_ID, entries)))
    return list(map(age_key, entries))


_TIME: Final = attrgetter("time")
_ID: Final = attrgetter("id")
_ELEVENTH: Final = itemgetter(10)


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
    tokens: Iterable[str],
    numbers: Iterable[str],
    words: Iterable[str],
    content: Iterable[str],
) -> BodyFacts:
    """:data:`BodyFacts` from :func:`body_lists`' parts."""
    token_set = frozenset(tokens)
    number_set = frozenset(numbers)
    word_set = frozenset(words) if number_set else token_set
    return norm, token_set, number_set or _EMPTY, word_set, frozenset(content)


_EMPTY: Final[frozenset[str]] = frozenset()


def body_facts(body: str) -> BodyFacts:
    """What the detectors read of ``body`` (see :data:`BodyFacts`): the sets of
    :func:`body_lists`, made without putting anything in order."""
    lowered = body.lower()
    if not lowered.isascii():
        return _wide_facts(body, lowered)
    norm = normalize_ascii_lowered(lowered)
    found = _ASCII_TOKEN_RE.findall(lowered)
    tokens = frozenset(found)
    # The tokens are the [a-z0-9] runs and a digit has no case: the body holds a
    # digit only if they do. Most bodies carry no number.
    if "".join(tokens).isalpha():
        return (
            norm,
            tokens,
            _EMPTY,
            tokens,
            frozenset(filter(None, map(_CONTENT.__getitem__, found))),
        )
    # The tokens of the body without its numbers are its letter runs: no substitution.
    words = _ASCII_WORD_RE.findall(lowered)
    numbers = frozenset(_NUMBER_RE.findall(body))
    content = frozenset(filter(None, map(_CONTENT.__getitem__, words)))
    return norm, tokens, numbers, frozenset(words), content


#: What joins the bodies :func:`store_facts` works on a column at a time; a store whose
#: bodies hold it is worked a body at a time.
_SEPARATOR: Final = "\x00"
#: Every ASCII character that is no letter or digit of a token to a space, the
#: separator kept: an ASCII body's tokens are then what ``str.split`` cuts.
_NOT_TOKEN: Final = {
    code: " "
    for code in range(128)
    if not chr(code).isalnum() and chr(code) != _SEPARATOR  # A-Z are lowered first
}


_DIGIT_TO_SPACE: Final = str.maketrans("0123456789", " " * 10)


def store_facts(
    bodies: Sequence[str], known: Mapping[str, BodyFacts] | None = None
) -> tuple[Vocabulary, StoreColumns]:
    """The :data:`StoreFacts` of ``bodies`` as columns (each fact of every body, in
    order), and the vocabulary of their ids: every token numbered by how often
    ``bodies`` use it, rarest first (ties in the order first seen), then the words
    no token spells.

    ``known`` holds facts already made, by body (see
    :mod:`pi_memory.detect.feature_cache`); the ASCII bodies it lacks are worked
    out a column at a time, their tokens counted as split and given their ids in
    one look-up each (the other bodies go through :func:`body_facts`). A word is
    looked up once: ordering and every later comparison read small ints.
    """
    in_columns = list(map(str.isascii, bodies))
    if known:
        in_columns = list(map(and_, in_columns, map(not_, map(known.__contains__, bodies))))
    plain = list(compress(bodies, in_columns))
    text = _SEPARATOR.join(plain).lower()
    if plain and text.count(_SEPARATOR) != len(plain) - 1:
        in_columns, plain = [False] * len(bodies), []
    given = known or {}
    others = [
        given.get(body) or body_facts(body) for body in compress(bodies, map(not_, in_columns))
    ]
    spaced = text.translate(_NOT_TOKEN).split(_SEPARATOR) if plain else []
    split = list(map(str.split, spaced))
    counts = Counter(chain.from_iterable(split))
    spelled_here = list(counts)
    counts.update(chain.from_iterable(map(_TOKENS, others)))
    # Rarest first: a stable sort keeps ties in the order first seen.
    ids = Vocabulary(zip(sorted(counts, key=counts.__getitem__), range(len(counts))))
    made = _ascii_ids(plain, (split, spelled_here), text, ids)
    if not others:
        return ids, made
    # The other bodies' words as ids, a column at a time: most have no number, and
    # their words are their tokens (the same set).
    number = ids.__getitem__
    token_sets = list(map(_TOKENS, others))
    word_sets = list(map(_WORDS, others))
    token_ids = list(map(frozenset, map(map, repeat(ids.numbered), token_sets)))
    word_ids = token_ids.copy()
    for index in compress(range(len(others)), map(is_not, word_sets, token_sets)):
        word_ids[index] = frozenset(map(number, word_sets[index]))
    numbered = (
        list(map(_NORM, others)),
        token_ids,
        list(map(_NUMBERS, others)),
        word_ids,
        list(map(frozenset, map(map, repeat(number), map(_CONTENT_WORDS, others)))),
    )
    if not plain:
        return ids, numbered
    # Each body's facts from their own columns, in order (a bool indexes the pair).
    at = list(compress(range(len(bodies)), map(not_, in_columns)))
    return ids, (
        _merged(numbered[0], made[0], in_columns, at),
        _merged(numbered[1], made[1], in_columns, at),
        _merged(numbered[2], made[2], in_columns, at),
        _merged(numbered[3], made[3], in_columns, at),
        _merged(numbered[4], made[4], in_columns, at),
    )


if TYPE_CHECKING:
    Item = TypeVar("Item")


def _merged(false: list[Item], true: list[Item], picks: list[bool], at: list[int]) -> list[Item]:
    """The items of ``false`` and ``true`` in the order ``picks`` takes them from each
    (``at``: where ``picks`` takes from ``false``)."""
    if len(false) * _FEW > len(picks):
        sources = [iter(false), iter(true)]
        return list(map(next, map(sources.__getitem__, picks)))
    # Few from ``false`` (the store's non-ASCII bodies, most often): the runs of
    # ``true`` between them are copied as slices, a step per item of ``false``.
    merged: list[Item] = []
    taken = 0
    for index, item in zip(at, false):
        end = taken + index - len(merged)
        merged += true[taken:end]
        merged.append(item)
        taken = end
    merged += true[taken:]
    return merged


#: :func:`_merged` copies slices when at most one pick in this many takes from ``false``.
_FEW: Final = 4


_NORM: Final = itemgetter(0)
_TOKENS: Final = itemgetter(1)
_NUMBERS: Final = itemgetter(2)
_WORDS: Final = itemgetter(3)
_CONTENT_WORDS: Final = itemgetter(4)


def _ascii_ids(
    bodies: list[str],
    cut: tuple[list[list[str]], list[str]],
    text: str,
    ids: Vocabulary,
) -> StoreColumns:
    """:data:`StoreFacts` of ASCII ``bodies`` with ids from ``ids``, given all of them
    lowercased and joined by :data:`_SEPARATOR` (``text``) and ``cut``: each cut into
    its tokens, and their tokens."""
    if not bodies:
        return [], [], [], [], []
    split, spelled = cut
    lowered = text.split(_SEPARATOR)
    # Where each body starts in ``text``: what the text holds is found there by
    # ``str.find`` (at C speed) and told to its body.
    starts = list(accumulate(map(add, map(len, lowered[:-1]), repeat(1)), initial=0))
    # A body whose only whitespace is single spaces between words is its own
    # text with the spaces normalised: only the others are cut and joined again.
    norms = list(normalize_evenly_spaced_each(lowered))
    # Two spaces or a space at either end are looked for body by body: ``str.find``
    # over the whole text is slow for a needle that starts with a space.
    uneven = _holding(text, starts, _OTHER_SPACE)
    uneven.update(
        compress(
            range(len(lowered)),
            map(
                or_,
                map(contains, lowered, repeat("  ")),
                map(
                    or_,
                    map(str.startswith, lowered, repeat(" ")),
                    map(str.endswith, lowered, repeat(" ")),
                ),
            ),
        )
    )
    for index in uneven:
        norms[index] = normalize_ascii_lowered(lowered[index])
    tokens = list(map(frozenset, map(map, repeat(ids.numbered), split)))  # each has its id
    # Most bodies carry no number: their words are their tokens. The others' words
    # are their tokens without a digit, and the letter runs of those with one.
    words = tokens.copy()
    numbers = [_EMPTY] * len(tokens)
    numbered = sorted(_holding(text, starts, _DIGITS))
    lettered = list(map(str.isalpha, spelled))
    held = set(compress(spelled, lettered))
    if numbered:
        digital = list(compress(spelled, map(not_, lettered)))
        gone = frozenset(map(ids.numbered, digital))
        # The tokens with both: most tokens with a digit are numbers, with no letter
        # (a ``str.translate`` call costs more than the rest of a token's work).
        both = list(compress(digital, map(not_, map(str.isdigit, digital))))
        runs = list(map(str.split, map(str.translate, both, repeat(_DIGIT_TO_SPACE))))
        held.update(chain.from_iterable(runs))
        spelling = {
            ids.numbered(token): frozenset(map(ids.__getitem__, letters))
            for token, letters in zip(both, runs)
        }
        mixed = spelling.keys()
        for index, found in zip(
            numbered, map(frozenset, map(_NUMBER_RE.findall, map(bodies.__getitem__, numbered)))
        ):
            own = tokens[index]
            words[index] = (
                own.difference(gone)
                if mixed.isdisjoint(own)
                else own.difference(gone).union(*map(spelling.__getitem__, mixed & own))
            )
            numbers[index] = found
    return norms, tokens, numbers, words, content_ids(words, ids, map(ids.__getitem__, held))


#: Whitespace other than a space: an ASCII body that holds one, two spaces in a row
#: or a space at either end is not its own normalised text with trailing punctuation cut.
_OTHER_SPACE: Final = tuple(
    chr(code) for code in range(128) if chr(code).isspace() and chr(code) != " "
)
_DIGITS: Final = tuple("0123456789")


def _holding(text: str, starts: list[int], needles: Iterable[str]) -> set[int]:
    """The bodies of ``text`` (bodies joined by :data:`_SEPARATOR`, the ``i``-th at
    ``starts[i]``) that hold one of ``needles`` (characters other than the separator).

    Each needle is looked for by ``str.find``, and past a body it is found in, the
    search goes on at the next body: a step per body that holds it, none for the others.
    """
    found: set[int] = set()
    last = len(starts) - 1
    for needle in needles:
        at = text.find(needle)
        while at >= 0:
            index = bisect_right(starts, at) - 1
            found.add(index)
            if index == last:
                break
            at = text.find(needle, starts[index + 1])
    return found


def content_ids(
    words: list[frozenset[int]], ids: Vocabulary, held: Iterable[int]
) -> list[frozenset[int]]:
    """The content words of each of ``words`` (number-free words as ids in ``ids``), as
    ids in ``ids``: a lemma no word spells is numbered there in the order of its words.

    ``held`` holds every word of ``words`` (it may hold more): only those are looked
    up, the words of a store's other bodies (Han shingles, kept facts) never are. Most
    words are their own lemma: a set loses its function words, and only a set holding
    an inflected word is mapped word by word.
    """
    spelling = list(ids)
    lemmas = list(range(len(spelling)))
    ordered = sorted(held)
    spelled = list(map(spelling.__getitem__, ordered))
    function = set(compress(ordered, map(FUNCTION_WORDS.__contains__, spelled)))
    inflected: set[int] = set()
    # A word that ends in none of :data:`INFLECTED_ENDS` is its own lemma: only the
    # others are looked up.
    for number in compress(ordered, map(str.endswith, spelled, repeat(INFLECTED_ENDS))):
        found = _CONTENT[spelling[number]]
        if not found:
            function.add(number)
        elif found != spelling[number]:
            lemmas[number] = ids[found]
            inflected.add(number)
    content = list(map(frozenset.difference, words, repeat(function)))
    lemma = lemmas.__getitem__
    for index in compress(range(len(content)), map(not_, map(inflected.isdisjoint, content))):
        content[index] = frozenset(map(lemma, content[index]))
    return content


#: A word that is not Han: letters and digits up to the next Han character.
_NOT_HAN_WORD_RE: Final = re.compile(f"(?:(?![{HAN_CLASS}])[^\\W_])+")


def _wide_facts(body: str, lowered: str) -> BodyFacts:
    """:func:`body_facts` of a body that is not ASCII (``lowered``: the body lowercased).

    A Han shingle is its own content word: only the other words are looked up.
    """
    shingled, plain = _split_tokens(lowered)
    tokens = shingled.union(plain)
    if not _DIGIT_RE.search(body):
        content = shingled.union(filter(None, map(_CONTENT.__getitem__, plain)))
        return normalize_memory_text(body), tokens, _EMPTY, tokens, content
    numbers = frozenset(_NUMBER_RE.findall(body))
    shingled, plain = _split_tokens(_NUMBER_RE.sub(" ", body).lower())
    content = shingled.union(filter(None, map(_CONTENT.__getitem__, plain)))
    return normalize_memory_text(body), tokens, numbers, shingled.union(plain), content


def _split_tokens(lowered: str) -> tuple[frozenset[str], list[str]]:
    """The Han shingles of ``lowered`` and its other word tokens."""
    runs = _HAN_RUN_RE.findall(lowered)
    shingled = frozenset(gram for run in runs for gram in shingles(run)) if runs else _EMPTY
    return shingled, _NOT_HAN_WORD_RE.findall(lowered)


@lru_cache(maxsize=4096)
def body_order(body: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The numbers, number-free words and content words of ``body`` in order of first
    appearance, each once: what a conflict names, in the order the body says it."""
    return body_lists(body)[2:]
