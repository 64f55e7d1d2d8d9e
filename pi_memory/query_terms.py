"""What a search query asks for: its terms, and the forms each one is found by.

A query is tokenised as every text is (:func:`pi_memory.retrieval.tokenize`),
then read as a question rather than as a bag of words, with English's own rules
and no model:

- **Scaffolding is not a topic.** ``how long``, ``how many``, ``what kind of``,
  ``likely``, ``mention``, ``describe``: words that say what shape the answer
  has or how it was put, not what it is about.
  They are dropped while the query has another term; a memory that holds the
  word ``long`` is no closer to "how long has she painted".
- **A hyphenated word is also its parts.** ``self-care`` is asked as itself
  and as ``self`` and ``care``, so ``self care`` and ``caring for oneself``
  count; identifiers (``--delete``, ``node.js``, ``src/store.ts``) stay whole.
- **A word is found by its forms**: its light stem, which finds the regular
  inflections as a substring (a word that drops its ``e`` for ``-ing`` is cut
  before it, ``danc`` finds ``dance`` and ``dancing``, and so is its plural;
  a four-letter one is also looked for as its ``-ing`` form, ``hike`` finds
  ``hiking``; an adjective in ``-ent``/``-ant`` and its noun in ``-ence``/``-ance``
  are cut to what both spell, ``confiden``), and the irregular forms English
  gives it (``go`` finds ``went``, ``children`` finds ``child``). A short word
  in ``-ily`` keeps its ending (``family`` is not looked for as ``fami``,
  which ``familiar`` holds; ``happily`` still finds ``happier``). Forms shorter than
  four letters are left out: found as substrings they would match inside
  other words (``ran`` in ``grandma``).
- **A question asks for an answer of a shape.** "When" is answered by a
  time (``yesterday``, ``last week``, ``in June``, ``2022``), "how many" by a
  number, "how long" by a duration (``five years``, ``since``), "how often" by
  a frequency (``every``, ``twice``, ``weekly``): a memory that
  holds one is a little closer than one that does not (:func:`answer_shape`).
- **A date is also a time.** A month name, or a year, is found in a memory's
  time as well as in its text: "in June" asks for what happened in June; the
  day of a whole date (``October 13, 2023``, ``7 July``) asks for that day.

Pure: the engine and the search index read the same terms, so an entry the
index hands over is exactly an entry the scorer would keep.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pi_memory.keywords import stem
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: Forms shorter than this are not looked for (they would match inside other words).
MIN_FORM: Final = 4

_IRREGULAR_TEXT: Final = """
    go goes going went gone | make made making | take took taken taking |
    give gave given giving | get gets getting gotten | say said saying |
    feel felt feeling | see seen seeing | buy bought buying | think thought thinking |
    bring brought bringing | teach taught teaching | catch caught catching |
    find found finding | tell told telling | know knew known knowing |
    leave left leaving | keep kept keeping | sleep slept sleeping |
    spend spent spending | build built building | send sent sending |
    lose lost losing | hold held holding | write wrote written writing |
    choose chose chosen choosing | begin began begun beginning |
    drive drove driven driving | ride rode ridden riding | fly flew flown flying |
    grow grew grown growing | throw threw thrown throwing | draw drew drawn drawing |
    wear wore worn wearing | sing sang sung singing | swim swam swum swimming |
    speak spoke spoken speaking | break broke broken breaking | fall fell fallen falling |
    come came coming | become became becoming | meet meeting | run ran running |
    win winning | pay paid paying | stand stood standing | understand understood |
    hear heard hearing | sell sold selling | lead leading | feed fed feeding |
    child children | person people | woman women | mouse mice | foot feet |
    tooth teeth | life lives | wife wives | knife knives | leaf leaves
"""


def _irregular_groups() -> dict[str, tuple[str, ...]]:
    groups: dict[str, tuple[str, ...]] = {}
    for group in _IRREGULAR_TEXT.split("|"):
        forms = tuple(group.split())
        for form in forms:
            groups[form] = forms
    return groups


#: Each irregular word -> every form of its group.
IRREGULAR: Final = _irregular_groups()

#: A stem an ``-ily`` word is cut to must be at least this long (``happi``, not ``fami``).
MIN_STEM_ILY: Final = 5
#: A word whose ``-ing`` form drops its final ``e`` (``hike``, ``dance``; not ``see``, ``die``).
_SILENT_E_RE: Final = re.compile(r"[a-z]{2,}[^aeiouy]e")
#: Endings an adjective and its noun spell alike up to their last letters
#: (``confident``, ``confidence``; ``important``, ``importance``) ...
SHARED_ENDINGS: Final = ("ent", "ence", "ant", "ance")
#: ... on a word at least this long (``agent`` and ``parent`` are no such pair).
MIN_SHARED: Final = 8

#: Words that ask about the answer's shape, or how it was put ("what did she mention
#: about the car": the memory says what, not that it was mentioned), wherever they
#: stand in a question.
SCAFFOLDING: Final = frozenset(
    {"likely", "might", "probably", "possibly", "mention", "mentioned", "describe", "described"}
)
#: ``how long``, ``how many``: the second word is scaffolding after ``how``.
AFTER_HOW: Final = frozenset({"long", "many", "much", "often"})
#: ``what kind of``: the first word is scaffolding before ``of``.
BEFORE_OF: Final = frozenset({"kind", "kinds", "type", "types", "sort", "sorts"})

MONTHS: Final = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
#: A year a memory may have been written in.
_YEARS: Final = range(1970, 2100)


_NUMBER: Final = (
    r"\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
    r"|a dozen|a couple|a few|several"
)
_TIME_WORDS: Final = (
    "yesterday|today|tonight|tomorrow|ago|recently|weekend|"
    "(?:last|next|this) (?:week|month|year|night|morning|summer|winter|spring|fall)|"
    "(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
    + "|".join(month for month in MONTHS if month != "may")
    + r"|\d{4}|\d{1,2}(?:st|nd|rd|th)"
)
#: What an answer of each shape holds, found in a lowercased body: patterns compiled
#: when a question of that shape is asked (most queries ask none, and compiling all
#: of them cost every search about 1.5 ms).
ANSWERS: Final = {
    "when": rf"\b(?:{_TIME_WORDS})\b",
    "how many": rf"\b(?:{_NUMBER})\b",
    "how long": rf"\b(?:(?:{_NUMBER}) (?:years?|months?|weeks?|days?|hours?|minutes?)|since)\b",
    "how often": (
        r"\b(?:every|once|twice|\w+ times|daily|weekly|monthly|yearly|usually|always|often"
        r"|regularly)\b"
    ),
}


class Term(NamedTuple):
    """One thing a query asks for."""

    #: As tokenised: what a keyword is compared with.
    token: str
    #: Substrings of a lowercased body that find it (at least one).
    forms: tuple[str, ...]
    #: A prefix (``2023``, ``2023-10-13``) or a ``-MM-`` or ``-MM-DD`` piece of a
    #: memory's time that also finds it ("" for none).
    time: str = ""


def _scaffolding(words: Sequence[str]) -> set[str]:
    """The words of ``words`` (the query's, lowercased, in order) that are scaffolding."""
    found = {word for word in words if word in SCAFFOLDING}
    for before, word, after in zip(["", *words], words, [*words[1:], ""]):
        if (before == "how" and word in AFTER_HOW) or (word in BEFORE_OF and after == "of"):
            found.add(word)
    return found


def _time_piece(word: str, words: Sequence[str]) -> str:
    """What of a memory's time (``YYYY-MM-DD …``) a date word names, or ""."""
    if word.isdigit() and len(word) == 4 and int(word) in _YEARS:
        return word
    if word in MONTHS:
        # ``may`` is a month only beside a number (``8 May``, ``May 2023``).
        if word == "may" and not _beside_number(word, words):
            return ""
        return f"-{MONTHS.index(word) + 1:02d}-"
    if word.isdigit() and len(word) <= 2:
        return _day_piece(word, words)
    return ""


def _day_piece(day: str, words: Sequence[str]) -> str:
    """``13`` in ``October 13, 2023`` or ``13 October``: the whole date, as a time's
    ``YYYY-MM-DD`` prefix when the year is said, else as its ``-MM-DD`` piece."""
    for at, word in enumerate(words):
        if word != day or not 1 <= int(day) <= 31:
            continue
        for month_at in (at - 1, at + 1):
            if 0 <= month_at < len(words) and words[month_at] in MONTHS:
                month = MONTHS.index(words[month_at]) + 1
                after = words[max(at, month_at) + 1 : max(at, month_at) + 2]
                year = after[0] if after and after[0].isdigit() and len(after[0]) == 4 else ""
                return f"{year}-{month:02d}-{int(day):02d}"
    return ""


def _beside_number(wanted: str, words: Sequence[str]) -> bool:
    for at, word in enumerate(words):
        if word == wanted:
            near = [*words[max(0, at - 1) : at], *words[at + 1 : at + 2]]
            if any(other.isdigit() for other in near):
                return True
    return False


def answer_shape(query: str) -> re.Pattern[str] | None:
    """What a memory answering ``query`` would hold, when the question says (a time
    for "when", a number for "how many", a duration for "how long"), else ``None``."""
    asked = " ".join(query.lower().split())
    for opening, pattern in ANSWERS.items():
        if asked.startswith(opening + " "):
            return re.compile(pattern)  # kept by re's own cache after the first time
    return None


def forms_of(token: str) -> tuple[str, ...]:
    """The substrings that find ``token`` in a lowercased body: its stem first."""
    first = stem(token)
    if token.endswith("ily") and first == token[:-2] and len(first) < MIN_STEM_ILY:
        first = token  # ``family``: ``fami`` is in ``familiar`` (``happi`` stays)
    others = [form for form in IRREGULAR.get(token, ()) if len(form) >= MIN_FORM]
    # The word as written or as its plural (``changes``): a past or an adverb is no base.
    base = first if token in (first, first + "s") else ""
    if len(base) >= MIN_SHARED and base.endswith(SHARED_ENDINGS):
        # ``confiden`` finds ``confident`` and ``confidence``.
        first = base[: -2 if base.endswith("ce") else -1]
    elif not others and _SILENT_E_RE.fullmatch(base) and base not in MONTHS:
        # ``dance`` is not in ``dancing``: ``danc`` is in both; a shorter stem would be
        # found inside other words (``fil`` in ``film``), so ``hike`` adds ``hiking``.
        if len(base) > MIN_FORM:
            first = base[:-1]
        else:
            others = [base[:-1] + "ing"]
    return tuple(dict.fromkeys([first, *(form for form in others if first not in form)]))


def terms(query: str, tokens: Sequence[str]) -> list[Term]:
    """The terms of ``query``, whose search tokens are ``tokens`` (in query order)."""
    words = query.lower().replace("'s ", " ").split()
    words = [word.strip("?!.,;:\"'()[]") for word in words]
    dropped = _scaffolding(words)
    kept = [token for token in tokens if token not in dropped] or list(tokens)
    asked: dict[str, None] = dict.fromkeys(kept)
    for token in kept:
        parts = token.split("-")
        if len(parts) > 1 and all(part.isalpha() for part in parts):
            asked.update(dict.fromkeys(part for part in parts if len(part) > 1))
    return [Term(token, forms_of(token), _time_piece(token, words)) for token in asked]
