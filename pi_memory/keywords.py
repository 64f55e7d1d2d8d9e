"""The one-keyword rules: canonical keys, validity, repair on read, the keyword table.

Every memory carries exactly one keyword. A write keeps the first valid one and
counts the rest as dropped (a model asked for one often answers with three, and
rejecting the call would cost a round-trip to learn what the cap already
knows). A read repairs what older versions stored: comma lists, legacy
``#a #b #c`` blobs and invalid candidates collapse to the first survivor, and
an entry left with nothing gets a keyword derived from its body.
"""

from __future__ import annotations

import unicodedata

from pi_memory.memo import Memo
from pi_memory.named_tuple import NamedTuple
from pi_memory.text import HAN_CLASS, is_han

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Final

    from pi_memory.entry import Entry

MAX_WORDS: Final = 8
MAX_HAN: Final = 8
#: No rule of pi-memory-auto names a length, but eight words never need more than
#: this, and an unbounded single "word" (a pasted hash, a URL) is not a topic.
MAX_CHARS: Final = 80
TABLE_CAP: Final = 200
#: How much of a refused keyword a message repeats.
QUOTE_CHARS: Final = 40
#: The recall bonus a keyword can earn in the table's ordering.
RECALL_BONUS_CAP: Final = 4
FALLBACK_KEYWORD: Final = "note"

#: Words that never carry a topic on their own (retrieval drops them from queries too).
_STOPWORD_TEXT: Final = """
    a about above after again all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down
    during each either else ever every few for from further had has have having he
    her here hers him his how however i if in into is it its itself just let me
    more most must my no nor not now of off on once only or other our ours out over
    own per please same she should so some such than that the their theirs them
    then there these they this those through to too under until up upon us use used
    uses using very via was we were what when where whether which while who whom
    why will with within without would yet you your yours
    """
STOPWORDS: Final = frozenset(_STOPWORD_TEXT.split())

#: Unicode punctuation categories that only separate the parts of a keyword.
_SEPARATOR_CATEGORIES: Final = frozenset({"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"})
#: Punctuation that changes what a keyword names (``c#`` is not ``c``), so it stays.
_KEPT_PUNCTUATION: Final = frozenset("#")


#: Each pattern below once compiled (a list each: ``functools`` costs a prompt's hook).
_SPLITTERS: list[tuple[re.Pattern[str], re.Pattern[str]]] = []
_DERIVING: list[tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]] = []
_HAN_RUN: list[re.Pattern[str]] = []


def _splitters() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """What splits a legacy ``#a #b`` blob, and a comma list; compiled when a keyword first
    needs splitting (``re`` itself costs a prompt's hook, which never does)."""
    if not _SPLITTERS:
        import re

        _SPLITTERS.append((re.compile(r"\s+(?=#)"), re.compile("[,，]")))
    return _SPLITTERS[0]


def _deriving() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """What :func:`derive_keyword` reads a body with: a sentence's end, a code span, an
    identifier, a word. Compiled when a body first needs its keyword derived (about a
    millisecond that every command importing this module paid, and few need)."""
    if not _DERIVING:
        import re

        _DERIVING.append(
            (
                re.compile(r"[.!?;:](?:\s|$)|[。！？；：\n]"),
                re.compile(r"`([^`\n]+)`"),
                re.compile(r"[A-Za-z_][\w]*(?:[./-][\w]+)+|[a-z]+[A-Z]\w*|[A-Za-z]+_\w+"),
                re.compile(r"[^\W\d_][\w'-]*"),
            )
        )
    return _DERIVING[0]


def _han_run_re() -> re.Pattern[str]:
    """A run of Han characters; compiled when first needed (the class takes
    milliseconds to compile, and most processes never ask)."""
    if not _HAN_RUN:
        import re

        _HAN_RUN.append(re.compile(f"[{HAN_CLASS}]+"))
    return _HAN_RUN[0]


def stem(token: str) -> str:
    """A light English stem of a word (retrieval matches it as a substring of the body).

    Only plain ASCII words lose a suffix (``painted`` -> ``paint``,
    ``studies`` -> ``stud``, ``running`` -> ``run``, ``dogs`` -> ``dog``):
    the body is matched by substring, so the stem finds every inflection.
    Identifiers, numbers and Han text are matched as written.
    """
    size = len(token)
    if size < 4 or not token.isascii() or not token.isalpha():
        return token
    if size >= 5 and token.endswith("ies"):
        return token[:-3]
    for suffix, shortest in (("ing", 6), ("ed", 5)):
        if size >= shortest and token.endswith(suffix):
            base = token[: -len(suffix)]
            doubled = len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "ls"
            return base[:-1] if doubled else base
    if size >= 5 and token.endswith("es") and token[-3] in "sxzh":
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    if size >= 6 and token.endswith("ly"):
        return token[:-2]
    return token


def _strip_hash(keyword: str) -> str:
    return keyword.strip().lstrip("#").strip()


def _canonical_key(keyword: str) -> str:
    """The identity of a keyword: lowercase with whitespace and separators removed.

    ``Serialize Conversation``, ``serialize-conversation`` and
    ``#serialize_conversation`` are one keyword. Han characters, letters,
    digits, symbols and ``#`` inside the keyword are kept (``c#`` is not ``c``).
    """
    text = _strip_hash(keyword).lower()
    if text.isascii():  # the common case, in C
        return text.translate(_ascii_separators())
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Cf":
            continue  # invisible format characters (bidi, zero-width) never tell keywords apart
        separator = char.isspace() or category in _SEPARATOR_CATEGORIES
        if char in _KEPT_PUNCTUATION or not separator:
            kept.append(char)
    return "".join(kept)


#: The identity of a keyword (:func:`_canonical_key`), kept: search asks once per
#: entry, and a layer has few distinct keywords.
canonical_key: Final = Memo(_canonical_key, 16384).__getitem__


def canonical_keys(keywords: Iterable[str]) -> dict[str, str]:
    """:func:`canonical_key` of each of ``keywords``, by keyword.

    The ASCII ones are cut, joined and lowered and translated as one text: a
    ``str.translate`` builds its table of the characters it meets on every call,
    which costs more than a short keyword's own work (a store of 100,000 memories
    has about 14,000 keywords).
    """
    distinct = list(dict.fromkeys(keywords))
    plain = [keyword for keyword in distinct if keyword.isascii() and "\x00" not in keyword]
    found = dict.fromkeys(distinct, "")
    if plain:
        from itertools import repeat

        stripped = map(str.strip, map(str.lstrip, map(str.strip, plain), repeat("#")))
        # NUL is no separator (a control character): it stays between the keywords.
        text = "\x00".join(stripped).lower().translate(_ascii_separators())
        found.update(zip(plain, text.split("\x00")))
    if len(plain) < len(distinct):
        kept = set(plain)
        found.update((k, canonical_key(k)) for k in distinct if k not in kept)
    return found


#: The ASCII characters :func:`_canonical_key` removes, as a ``str.translate`` table.
_ASCII_SEPARATORS: list[dict[int, None]] = []


def _ascii_separators() -> dict[int, None]:
    if not _ASCII_SEPARATORS:
        _ASCII_SEPARATORS.append(
            {
                code: None
                for code in range(128)
                if chr(code) not in _KEPT_PUNCTUATION
                and (
                    chr(code).isspace() or unicodedata.category(chr(code)) in _SEPARATOR_CATEGORIES
                )
            }
        )
    return _ASCII_SEPARATORS[0]


def _display_form(keyword: str) -> str:
    return " ".join(_strip_hash(keyword).split())


def keyword_issue(keyword: str) -> str | None:
    """Why ``keyword`` cannot be stored, or ``None`` when it can.

    A leading ``#`` (the index's own notation) is stripped before judging.
    """
    text = _strip_hash(keyword)
    if not text:
        return "empty keyword"
    if "\n" in text or "\r" in text:
        return "contains a line break"
    if "|" in text:
        return "contains '|', which separates the entry's metadata fields"
    if "-->" in text or "<!--" in text:
        return "contains a comment marker, which would break the entry's metadata"
    if "," in text or "，" in text:
        return "contains a comma: one keyword per memory"
    if len(text) > MAX_CHARS:
        return f"longer than {MAX_CHARS} characters"
    han = sum(1 for char in text if is_han(char))
    if han > MAX_HAN:
        return f"{han} Chinese characters (at most {MAX_HAN})"
    # A run of Han characters separates words as a space does (each one a space here:
    # the same words), without the pattern, which takes milliseconds to compile.
    spaced = "".join(" " if is_han(char) else char for char in text) if han else text
    words = len(spaced.split())
    if words > MAX_WORDS:
        return f"{words} words (at most {MAX_WORDS})"
    if not canonical_key(text):
        return "no letters or digits"
    return None


def door_issue(keyword: str) -> str | None:
    """:func:`keyword_issue` for a keyword being written: it must also be valid UTF-8
    and hold no control character.

    Reading is more lenient (a damaged byte on disk stays as it is, see
    :mod:`pi_memory.utf8`); only new text is held to this.
    """
    from pi_memory.control_chars import control_issue
    from pi_memory.utf8 import utf8_issue

    return utf8_issue(keyword) or keyword_issue(keyword) or control_issue(keyword)


def quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters with its full length said."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"


class KeywordPick(NamedTuple):
    """What a write keeps of the keywords it was given."""

    #: The keyword to store, ``None`` when no candidate was valid.
    keyword: str | None
    #: Candidates that were not stored (repeats of the kept keyword aside).
    dropped: int
    #: One ``'candidate': reason`` line per invalid candidate.
    issues: tuple[str, ...]


def _split_list(raw: Iterable[str]) -> list[str]:
    pieces: list[str] = []
    for item in raw:
        pieces.extend(piece.strip() for piece in _splitters()[1].split(item))
    return [piece for piece in pieces if piece]


def sanitize_keywords(raw: Sequence[str] | str) -> KeywordPick:
    """Keep the first valid keyword; count the rest, never reject for being many.

    A comma list inside one candidate counts as several candidates: the tags
    field is comma-separated, so that is what the writer meant; so does a
    ``#a #b #c`` blob, which is how the index writes keywords and how reading
    splits a stored one (:func:`split_stored_tags`). ``dropped``
    counts every candidate that is not stored (invalid ones too, each also
    explained in ``issues``), except other spellings of the kept keyword; it
    is 0 when nothing is kept.
    """
    candidates = [
        piece
        for item in ([raw] if isinstance(raw, str) else raw)
        for piece in split_stored_tags(item)
    ]
    if not candidates:
        return KeywordPick(keyword=None, dropped=0, issues=("no keyword given",))
    kept: str | None = None
    dropped = 0
    issues: list[str] = []
    for candidate in candidates:
        issue = door_issue(candidate)
        if issue is not None:
            issues.append(f"{quoted(candidate)}: {issue}")
            dropped += 1
        elif kept is None:
            kept = _display_form(candidate)
        elif canonical_key(candidate) != canonical_key(kept):
            dropped += 1
    return KeywordPick(keyword=kept, dropped=dropped if kept else 0, issues=tuple(issues))


def split_stored_tags(tags_field: str) -> list[str]:
    """A stored ``tags:`` value as candidates: commas, and legacy ``#a #b #c`` blobs."""
    candidates: list[str] = []
    for piece in _split_list([tags_field]):
        if piece.startswith("#"):
            candidates.extend(part for part in _splitters()[0].split(piece) if part.strip())
        else:
            candidates.append(piece)
    return candidates


def coerce_keywords(tags_field: str, body: str) -> tuple[str, int]:
    """The keyword an entry is read with, and how many other stored keywords it had.

    Never writes and never fails: the first valid candidate wins, and an entry
    with none gets :func:`derive_keyword`. The count is every stored candidate
    but one (a legacy blob of three counts as three), so ``> 0`` means the row
    still holds the old 1-3 contract and a rebuild would collapse it.
    """
    keyword, others = _stored_keyword(tags_field)
    return (keyword if keyword is not None else derive_keyword(body)), others


def _first_valid_keyword(tags_field: str) -> tuple[str | None, int]:
    """The first valid stored keyword and the count of the others."""
    candidates = split_stored_tags(tags_field)
    others = max(0, len(candidates) - 1)
    for candidate in candidates:
        if keyword_issue(candidate) is None:
            return _display_form(candidate), others
    return None, others


#: Each ``tags`` value's :func:`_first_valid_keyword`: a layer repeats few distinct
#: values, and every read of every row asks.
_stored_keyword: Final = Memo(_first_valid_keyword, 16384).__getitem__


def _first_sentence(body: str) -> str:
    text = body.strip()
    # A fenced block says nothing about the topic in its first line.
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    match = _deriving()[0].search(text)
    return text[: match.start()] if match else text


def _valid(keyword: str) -> bool:
    return keyword_issue(keyword) is None


def derive_keyword(body: str) -> str:
    """A deterministic keyword for a body that has none; never empty.

    In order: the first short code span of the first sentence, its first
    identifier (``src/store.ts``, ``node.js``, ``camelCase``), its first Han
    run (at most 8 characters), its first two content words; else ``note``.
    """
    sentence = _first_sentence(body)
    _, code_span, identifier_re, word_re = _deriving()
    for span in code_span.findall(sentence):
        candidate = " ".join(span.split())
        if len(candidate.split()) <= 3 and _valid(candidate):
            return candidate
    identifier = identifier_re.search(sentence)
    if identifier and _valid(identifier.group()):
        return identifier.group()
    han = _han_run_re().search(sentence)
    if han:
        return han.group()[:MAX_HAN]
    words = [
        word.lower().strip("'-")
        for word in word_re.findall(sentence)
        if word.lower() not in STOPWORDS and len(word) > 2
    ]
    candidate = " ".join(words[:2])
    if candidate and _valid(candidate):
        return candidate
    return FALLBACK_KEYWORD


class KeywordRow:
    """One line of the keyword table.

    A plain class rather than a NamedTuple (``count`` would shadow
    ``tuple.count``) or a dataclass (too slow to define on a hook's start-up path).
    """

    __slots__ = ("count", "keyword", "recalls")

    def __init__(self, keyword: str, count: int, recalls: int) -> None:
        self.keyword = keyword
        #: How many live memories carry the keyword.
        self.count = count
        #: How often a search credited it (``usage.json``).
        self.recalls = recalls

    def _key(self) -> tuple[str, int, int]:
        return (self.keyword, self.count, self.recalls)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeywordRow) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"KeywordRow(keyword={self.keyword!r}, count={self.count}, recalls={self.recalls})"


class Tally(NamedTuple):
    """What a keyword table is made of, without the recalls: a search changes none of it."""

    #: Every entry (``MEMORY.md``'s stats line counts them all).
    entries: int
    #: The live entries.
    live: int
    #: Per keyword: its canonical key (what recalls are counted by), how many live
    #: entries carry it, and the spelling it is shown in (its earliest written), as stored.
    groups: tuple[tuple[str, int, str], ...]


def grouped(
    entries: int,
    live: int,
    counts: Mapping[str, int],
    earliest: Callable[[str], object],
    keys: Mapping[str, str] | None = None,
) -> Tally:
    """The tally of live counts per spelling (``earliest``: the sort key of a spelling's
    earliest live entry, asked only of a keyword with several spellings; ``keys``:
    canonical keys already known)."""
    groups: dict[str, list[str]] = {}
    for spelling, count in counts.items():
        if count > 0:
            key = keys.get(spelling) if keys is not None else None
            if key is None:
                key = canonical_key(spelling)
            if key:
                groups.setdefault(key, []).append(spelling)
    rows = []
    for key, spellings in groups.items():
        if len(spellings) == 1:
            rows.append((key, counts[spellings[0]], spellings[0]))
        else:
            shown = min(spellings, key=earliest)  # type: ignore[arg-type]  # comparable keys
            rows.append((key, sum(counts[s] for s in spellings), shown))
    return Tally(entries, live, tuple(rows))


def tally_of(entries: Sequence[Entry]) -> Tally:
    """The tally of ``entries`` (a spelling's earliest: by time, then position)."""
    counts: dict[str, int] = {}
    live = 0
    for entry in entries:
        if not entry.superseded_by:
            live += 1
            counts[entry.keyword] = counts.get(entry.keyword, 0) + 1
    earliest: dict[str, tuple[str, int]] = {}
    rivals = _rival_spellings(counts)
    if rivals:
        from pi_memory.staleness import sortable_time  # the prompt hook reads no times

        for index, entry in enumerate(entries):
            if entry.keyword in rivals and not entry.superseded_by:
                written = (sortable_time(entry.time), index)
                if written < earliest.get(entry.keyword, written):
                    earliest[entry.keyword] = written
                earliest.setdefault(entry.keyword, written)
    return grouped(len(entries), live, counts, earliest.__getitem__)


def _rival_spellings(counts: Mapping[str, int]) -> set[str]:
    """The spellings that share their canonical key with another (their earliest matters)."""
    groups: dict[str, list[str]] = {}
    for spelling, count in counts.items():
        if count > 0:
            groups.setdefault(canonical_key(spelling), []).append(spelling)
    return {s for spellings in groups.values() if len(spellings) > 1 for s in spellings}


def collect_keywords(
    entries: Iterable[Entry], recalls: Mapping[str, int], cap: int = TABLE_CAP
) -> list[KeywordRow]:
    """The keyword table of a layer, best first, at most ``cap`` rows.

    Live entries only. Keywords are grouped by canonical key and shown in the
    spelling of the earliest-written memory. Ordered by shared count plus
    recalls (at most 4), then count, then alphabetically; the lowest-ranked
    rows beyond ``cap`` are left out (their memories stay searchable).
    """
    return rows_of(tally_of(list(entries)), recalls, cap)


def within_reach(tally: Tally, cap: int = TABLE_CAP) -> Tally:
    """``tally`` less the keywords that cannot make a table of ``cap`` rows whatever their
    recalls: a keyword's recalls add at most :data:`RECALL_BONUS_CAP` to its count, so
    one with that much fewer memories than the ``cap``-th most shared stays below at
    least ``cap`` others (the table's header counts the rows it shows, not these)."""
    if len(tally.groups) <= cap or cap <= 0:
        return tally
    counts = sorted((count for _, count, _ in tally.groups), reverse=True)
    floor = counts[cap - 1] - RECALL_BONUS_CAP
    return tally._replace(groups=tuple(g for g in tally.groups if g[1] >= floor))


def reach_after(
    before: Tally,
    entries: int,
    live: int,
    changed: Mapping[str, tuple[int, str] | None],
    cap: int = TABLE_CAP,
) -> Tally | None:
    """:func:`within_reach` of a tally whose :func:`within_reach` was ``before``, once the
    groups of ``changed``'s keys became what it maps them to (their live count and shown
    spelling; ``None``: no live entry left) and its totals ``entries`` and ``live``.
    ``None`` when a keyword left out of ``before`` may now be within reach: its count is
    not known here (the caller sums the layer).

    A keyword left out had fewer memories than the floor of ``before``; while the floor
    does not go down, it stays out.
    """
    groups = [group for group in before.groups if group[0] not in changed]
    groups += [(key, *found) for key, found in changed.items() if found is not None]
    after = Tally(entries, live, tuple(groups))
    if len(before.groups) < cap:
        return within_reach(after, cap)  # ``before`` held every keyword, so does this
    if len(groups) <= cap:
        return None
    floors = [
        sorted((count for _, count, _ in table), reverse=True)[cap - 1]
        for table in (before.groups, groups)
    ]
    return within_reach(after, cap) if floors[1] >= floors[0] else None


def rows_of(tally: Tally, recalls: Mapping[str, int], cap: int = TABLE_CAP) -> list[KeywordRow]:
    """:func:`collect_keywords` from a tally: only the rows that can make the cap are made."""
    scored = []
    for key, count, shown in within_reach(tally, cap).groups:
        recalled = recalls.get(key, 0) if recalls else 0
        recalled = recalled if recalled > 0 else 0
        bonus = recalled if recalled < RECALL_BONUS_CAP else RECALL_BONUS_CAP
        scored.append((count + bonus, count, recalled, shown))
    if len(scored) > cap > 0:
        # The cap-th largest (score, count), by a sort of what is within reach: heapq's
        # import would cost a write more than the sort does.
        last = sorted([(score, count) for score, count, _, _ in scored], reverse=True)[cap - 1]
        scored = [row for row in scored if (row[0], row[1]) >= last]
    rows = [
        KeywordRow(_display_form(shown), count, recalled) for _, count, recalled, shown in scored
    ]
    rows.sort(
        key=lambda row: (
            -(row.count + min(row.recalls, RECALL_BONUS_CAP)),
            -row.count,
            row.keyword.casefold(),
            row.keyword,
        )
    )
    return rows[: max(0, cap)]


#: The last table built, with the very objects it was built from. A session
#: start builds the same layer's table twice (``MEMORY.md``, then the injected
#: block) from one read; entries are immutable and a layer's list is never
#: mutated once read, so the same list object (or a tally of equal keyword groups:
#: its totals are not in the table) and equal recalls mean the same table.
_LAST_TABLE: list[tuple[Sequence[Entry] | Tally, dict[str, int], list[KeywordRow]]] = []


def keyword_rows(entries: Sequence[Entry] | Tally, recalls: Mapping[str, int]) -> list[KeywordRow]:
    """The keyword table of ``entries``, or of their tally."""
    for seen, seen_recalls, rows in _LAST_TABLE:
        if isinstance(entries, Tally) and isinstance(seen, Tally):
            same = seen.groups == entries.groups  # a table is of the keyword groups alone
        else:
            same = seen is entries
        if same and seen_recalls == recalls:
            return list(rows)
    if isinstance(entries, Tally):
        rows = rows_of(entries, recalls, cap=TABLE_CAP)
    else:
        rows = collect_keywords(entries, recalls, cap=TABLE_CAP)
    _LAST_TABLE[:] = [*_LAST_TABLE[-5:], (entries, dict(recalls), rows)]
    return list(rows)


def counted_line(row: KeywordRow) -> str:
    return f"#{row.keyword} ({row.count})" if row.count > 1 else f"#{row.keyword}"
