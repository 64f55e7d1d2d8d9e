"""The search index: an inverted index of one memory file, so a search reads only what it scores.

``search`` in its default mode scores only the entries that contain a query
token in the body (as a substring of the lowercased text) or in the keyword.
At 100,000 memories, loading every entry to find those costs more than the
rest of the command. The search index answers "which entries could match"
from a file's *chunks*: the distinct whitespace-separated pieces of each lowercased
body. A query token never holds whitespace, so it occurs in a body exactly
when it occurs inside one of the body's chunks, and the entries found through
the chunks are exactly the entries the scorer would keep. Only those rows are
decoded.

One search index per source file, kept in the user's cache directory beside
the parse cache and keyed, like it, by the file's ``(mtime_ns, size, inode)``:
a write changes one file, so the next search rebuilds that file's search index
alone. It is disposable: a stale, foreign or damaged one is rebuilt, never
believed; deleting it costs one rebuild, never a memory.

A write does not rewrite it. What a write changed (entries appended, rows
rewritten in place with the same body and keyword) is kept beside it as a
*delta*: a small file naming the identity of the bytes the tables were built
from and the identity of the bytes it brings them to, with the entries that
changed (:func:`follow`). A search maps the tables and lays the delta over
them; the delta is believed only when both identities hold, so a delta of
other tables, or of bytes the file no longer has, is a miss like any stale
index. Past :data:`TAIL_MAX` changed entries the index is built again whole.
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from pi_memory.entry import Entry
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

VERSION: Final = 6
_FIELDS: Final = len(Entry._fields)
#: Positions are stored as unsigned 32-bit integers.
_TYPECODE: Final = "I"


class Brief(NamedTuple):
    """What ranking reads of an entry besides its body's hits (an :class:`Entry`'s fields
    of the same names, and two it works out): scored without decoding the row."""

    id: str
    keyword: str
    #: ``canonical_key(keyword)``, worked out once, when the index is built.
    key: str
    time: str
    last: str
    superseded_by: str
    type: str
    file: str
    #: ``len(body.lower())``.
    length: int


def brief_of(entry: Entry) -> Brief:
    from pi_memory.keywords import canonical_key

    return Brief(
        entry.id,
        entry.keyword,
        canonical_key(entry.keyword),
        entry.time,
        entry.last,
        entry.superseded_by,
        entry.type,
        entry.file,
        len(entry.body.lower()),
    )


def ranked_time(entry: Entry) -> str:
    """The time ranking sorts ``entry`` by: ``last`` or ``time`` in the sortable form."""
    from pi_memory.staleness import sortable_time

    when = entry.last or entry.time
    return when if len(when) == 19 and when[10] == " " else sortable_time(when)


def _moment(entry: Entry) -> int:
    """The entry's :func:`ranked_time` counted by :func:`pi_memory.staleness.seconds`
    (``SECONDS_END`` when it has no count)."""
    from pi_memory.staleness import SECONDS_END, seconds

    count = seconds(ranked_time(entry))
    return SECONDS_END if count is None else count


class _Column:
    """Strings one after the other, UTF-8, with where each starts (built, then packed)."""

    def __init__(self) -> None:
        from array import array

        self.text = bytearray()
        self.starts = array(_TYPECODE, [0])

    def append(self, value: str) -> None:
        self.text += _utf8(value)
        self.starts.append(len(self.text))

    def packed(self) -> tuple[bytes, bytes]:
        return bytes(self.text), self.starts.tobytes()


class Signals(NamedTuple):
    """What a query finds in one file without decoding a row (see :func:`signals`)."""

    #: Positions, ascending, of the entries that match (as :func:`matching`).
    positions: list[int]
    #: Per position: the hits of each pattern in its lowercased body.
    counts: list[list[int]]
    #: Per position: which of the tokens its lowercased keyword holds (``None``: none).
    in_keyword: list[tuple[bool, ...] | None]
    #: Per position: ``len(body.lower())``.
    lengths: list[int]
    #: Per position: its confirmed time as ranking sorts it (:func:`ranked_time`) counted by
    #: :func:`pi_memory.staleness.seconds` (``SECONDS_END``: no count, read its brief).
    moments: list[int]
    #: Per position: its keyword's canonical key.
    keys: list[str]
    #: Per position: how many of the phrases its body may hold (at least those it holds).
    possible: list[int]


class SearchIndex(NamedTuple):
    """The searchable facts of one memory file.

    Two tables of the same shape: the *chunks* (the distinct whitespace-separated
    pieces of the lowercased bodies) and the lowercased *keywords*. Each is a
    text of its terms, sorted, UTF-8, each ended by a newline, so a pattern is
    looked for in all of them at once by ``bytes.find`` (UTF-8 finds a piece of
    text exactly where the text holds it), with the byte where each term starts
    and, per term, the positions of the entries holding it.
    """

    #: Entries in the file, in file order.
    size: int
    #: The sum of ``len(body.lower())`` over its entries (length normalisation needs it).
    total_length: int
    vocabulary: bytes | memoryview
    #: Where each chunk starts in ``vocabulary``; one more offset marks the end.
    chunk_starts: bytes | memoryview
    #: Per chunk, the positions of the entries holding it, one list after the other.
    postings: bytes | memoryview
    #: Where each chunk's positions start in ``postings`` (counted in positions).
    posting_starts: bytes | memoryview
    #: Per posting: how often its chunk occurs in that entry's body.
    frequencies: bytes | memoryview
    keyword_text: bytes | memoryview
    keyword_starts: bytes | memoryview
    keyword_postings: bytes | memoryview
    keyword_posting_starts: bytes | memoryview
    #: Each entry's :class:`Brief`, marshalled, one after the other.
    briefs: bytes | memoryview
    #: Where each entry's brief starts in ``briefs`` (one more offset marks the end).
    brief_offsets: bytes | memoryview
    #: Each entry's ``len(body.lower())``.
    lengths: bytes | memoryview
    #: Each entry's confirmed time as ranking sorts it (:func:`ranked_time`), counted by
    #: :func:`pi_memory.staleness.seconds` (``SECONDS_END`` for a time it does not count).
    moments: bytes | memoryview
    #: The distinct canonical keys of the keywords, UTF-8, one after the other, with
    #: where each starts, and each entry's key by its number.
    keys: bytes | memoryview
    key_starts: bytes | memoryview
    key_numbers: bytes | memoryview
    #: Where each entry's row starts in ``rows`` (one more offset marks the end).
    offsets: bytes | memoryview
    #: How many entries, from the first, the tables cover; the others were appended
    #: since (by a write) and are looked through one by one (see :func:`appended`).
    indexed: int
    #: The lowercased bodies of the entries after ``indexed``.
    tail: tuple[str, ...]
    #: The lowercased keywords of the entries after ``indexed``.
    tail_keywords: tuple[str, ...]
    #: The entries, each a marshalled tuple, one after the other.
    rows: bytes | memoryview
    #: The entries after ``indexed`` (appended since the tables were built), in file order.
    added: tuple[Entry, ...] = ()
    #: Position (below ``indexed``) -> the entry rewritten there since the tables were
    #: built: the same body, keyword and key; its row, brief and time are these.
    changed: Mapping[int, Entry] = MappingProxyType({})
    #: The identity of the bytes the tables were built from, when they are kept on disk
    #: (a delta names it).
    base: tuple[int, int, int] | None = None


class _Table:
    """One table of a :class:`SearchIndex`, as it is read. The terms holding each needle
    are kept: a needle holding one looked for before (``stag`` in ``staging``, ``deploy``
    in ``deploy`` and a newline) is looked for among that one's terms, not in the whole
    table again."""

    __slots__ = ("_seen", "posting_starts", "postings", "starts", "text")

    def __init__(
        self, text: bytes, starts: memoryview, postings: memoryview, posting_starts: memoryview
    ) -> None:
        self.text = text
        self.starts = starts
        self.postings = postings
        self.posting_starts = posting_starts
        self._seen: dict[bytes, dict[int, int]] = {}

    def holding(self, needle: str, *, at_start: bool = False) -> dict[int, int]:
        """The terms holding ``needle`` -> where it is first found in each; ``at_start``:
        only the terms it starts (a needle ending in a newline ends its terms)."""
        wanted = _utf8(needle)
        found = self._seen.get(wanted)
        if found is None:
            found = self._seen[wanted] = self._holding(wanted)
        if at_start:
            starts = self.starts
            return {term: at for term, at in found.items() if at == starts[term]}
        return found

    def _holding(self, wanted: bytes) -> dict[int, int]:
        found: dict[int, int] = {}
        text, starts = self.text, self.starts
        known = [seen for seen in self._seen if seen in wanted]
        if known:  # among the terms of the longest needle it holds
            for term in self._seen[max(known, key=len)]:
                at = text.find(wanted, starts[term], starts[term + 1])
                if at != -1:
                    found[term] = at
            return found
        at = text.find(wanted)
        while at != -1:
            term = bisect_right(starts, at) - 1
            found[term] = at
            at = text.find(wanted, starts[term + 1])
        return found

    def entries(self, terms: Iterable[int]) -> set[int]:
        """The positions of the entries holding any of ``terms``."""
        found: set[int] = set()
        postings, starts = self.postings, self.posting_starts
        for term in terms:
            found.update(postings[starts[term] : starts[term + 1]])
        return found


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _chunks(index: SearchIndex) -> _Table:
    return _Table(
        bytes(index.vocabulary),
        _ints(index.chunk_starts),
        _ints(index.postings),
        _ints(index.posting_starts),
    )


def _keywords(index: SearchIndex) -> _Table:
    return _Table(
        bytes(index.keyword_text),
        _ints(index.keyword_starts),
        _ints(index.keyword_postings),
        _ints(index.keyword_posting_starts),
    )


def _packed_table(terms: Mapping[str, Sequence[int]]) -> tuple[bytes, bytes, bytes, bytes]:
    """(text, starts, postings, posting starts) of ``terms``, sorted."""
    from array import array

    text = bytearray()
    starts = array(_TYPECODE, [0])
    postings = array(_TYPECODE)
    posting_starts = array(_TYPECODE, [0])
    for term in sorted(terms):
        text += _utf8(term) + b"\n"
        starts.append(len(text))
        postings.extend(terms[term])
        posting_starts.append(len(postings))
    return bytes(text), starts.tobytes(), postings.tobytes(), posting_starts.tobytes()


def build(entries: Sequence[Entry]) -> SearchIndex:
    """The search index of one file's ``entries`` (``array`` is imported here: a search
    that reads a kept index needs none of it)."""
    from array import array

    chunks: dict[str, list[int]] = {}
    times: dict[str, list[int]] = {}
    keywords: dict[str, list[int]] = {}
    total_length = 0
    offsets = array(_TYPECODE, [0])
    rows = bytearray()
    brief_offsets = array(_TYPECODE, [0])
    briefs = bytearray()
    lengths = array(_TYPECODE)
    moments = array(_TYPECODE)
    keys = _Column()
    key_numbers = array(_TYPECODE)
    numbered: dict[str, int] = {}
    for position, entry in enumerate(entries):
        body = entry.body.lower()
        total_length += len(body)
        lengths.append(len(body))
        moments.append(_moment(entry))
        key = brief_of(entry).key
        if key not in numbered:
            numbered[key] = len(numbered)
            keys.append(key)
        key_numbers.append(numbered[key])
        for chunk, count in Counter(body.split()).items():
            chunks.setdefault(chunk, []).append(position)
            times.setdefault(chunk, []).append(count)
        keywords.setdefault(entry.keyword.lower(), []).append(position)
        rows += marshal.dumps(tuple(entry))
        offsets.append(len(rows))
        briefs += marshal.dumps(tuple(brief_of(entry)))
        brief_offsets.append(len(briefs))
    vocabulary, chunk_starts, postings, posting_starts = _packed_table(chunks)
    frequencies = array(_TYPECODE)
    for chunk in sorted(times):
        frequencies.extend(times[chunk])
    keyword_text, keyword_starts, keyword_postings, keyword_posting_starts = _packed_table(keywords)
    return SearchIndex(
        size=len(entries),
        total_length=total_length,
        vocabulary=vocabulary,
        chunk_starts=chunk_starts,
        postings=postings,
        posting_starts=posting_starts,
        frequencies=frequencies.tobytes(),
        keyword_text=keyword_text,
        keyword_starts=keyword_starts,
        keyword_postings=keyword_postings,
        keyword_posting_starts=keyword_posting_starts,
        briefs=bytes(briefs),
        brief_offsets=brief_offsets.tobytes(),
        lengths=lengths.tobytes(),
        moments=moments.tobytes(),
        keys=keys.packed()[0],
        key_starts=keys.packed()[1],
        key_numbers=key_numbers.tobytes(),
        offsets=offsets.tobytes(),
        indexed=len(entries),
        tail=(),
        tail_keywords=(),
        rows=bytes(rows),
    )


def _ints(data: bytes | memoryview) -> memoryview:
    """Packed positions read in place: a mapped index's are never copied."""
    return memoryview(data).cast(_TYPECODE)


def matching(index: SearchIndex, patterns: Iterable[str], tokens: Iterable[str]) -> list[int]:
    """Positions, ascending, of the entries whose body holds a pattern or keyword a token."""
    wanted = [pattern for pattern in patterns if pattern]
    chunks = _chunks(index)
    found: set[int] = set()
    for pattern in wanted:
        found.update(chunks.entries(chunks.holding(pattern)))
    for n, body in enumerate(index.tail, start=index.indexed):
        if any(pattern in body for pattern in wanted):
            found.add(n)
    found.update(_keyword_matches(index, tokens))
    return sorted(found)


def _keyword_matches(index: SearchIndex, tokens: Iterable[str]) -> set[int]:
    """Positions of the entries whose lowercased keyword holds one of ``tokens``."""
    found: set[int] = set()
    for holding in _keywords_holding(index, tokens):
        found.update(holding)
    return found


def _keywords_holding(index: SearchIndex, tokens: Iterable[str]) -> list[set[int]]:
    """Per token: the positions of the entries whose lowercased keyword holds it."""
    table = _keywords(index)
    holding: list[set[int]] = []
    for token in tokens:
        found = table.entries(table.holding(token)) if token else set()
        found.update(
            n
            for n, keyword in enumerate(index.tail_keywords, start=index.indexed)
            if token and token in keyword
        )
        holding.append(found)
    return holding


def signals(
    index: SearchIndex, patterns: Sequence[str], tokens: Sequence[str], phrases: Sequence[str]
) -> Signals:
    """The entries that match (as :func:`matching`), each with its hits of every pattern,
    which tokens its keyword holds, its length, time and key, and how many ``phrases``
    (two words and a space) its body may hold: from the postings and columns alone.
    Patterns are never empty and never hold whitespace."""
    chunks = _chunks(index)
    counts = _hits(index, chunks, patterns)
    holding = _keywords_holding(index, tokens)
    named_at: set[int] = set()
    for found in holding:
        named_at.update(found)
        for n in found:
            counts.setdefault(n, [0] * len(patterns))
    positions = sorted(counts)
    named: list[tuple[bool, ...] | None] = [None] * len(positions)
    for n in named_at:
        named[bisect_right(positions, n) - 1] = tuple(n in found for found in holding)
    lengths, moments, keys = _columns(index, positions)
    possible = _possible(index, chunks, phrases, positions)
    return Signals(
        positions,
        [counts[n] for n in positions],
        named,
        lengths,
        moments,
        keys,
        [possible[n] for n in positions],
    )


def _columns(index: SearchIndex, positions: list[int]) -> tuple[list[int], list[int], list[str]]:
    """The length, time and key of the entries at ``positions`` (ascending): from the
    columns for those the tables cover, from the entry for those a write added or
    rewrote since."""
    from bisect import bisect_left

    covered = positions[: bisect_left(positions, index.indexed)]
    lengths = _ints(index.lengths)
    key_numbers = _ints(index.key_numbers)
    numbers = [key_numbers[n] for n in covered]
    distinct = sorted(set(numbers))
    known = dict(zip(distinct, _strings_at(index.keys, _ints(index.key_starts), distinct)))
    counted = _ints(index.moments)
    moments = [counted[n] for n in covered]
    if index.changed:
        for at, n in enumerate(covered):
            entry = index.changed.get(n)
            if entry is not None:
                moments[at] = _moment(entry)
    added = [index.added[n - index.indexed] for n in positions[len(covered) :]]
    return (
        [lengths[n] for n in covered] + [len(entry.body.lower()) for entry in added],
        moments + [_moment(entry) for entry in added],
        [known[number] for number in numbers] + [brief_of(entry).key for entry in added],
    )


def _hits(index: SearchIndex, chunks: _Table, patterns: Sequence[str]) -> dict[int, list[int]]:
    """Position -> the hits of each pattern in its body, for the bodies holding one: over
    the chunks holding a pattern, the chunk's own count times how often the body has
    the chunk."""
    counts: dict[int, list[int]] = {}
    width = len(patterns)
    text, starts = chunks.text, chunks.starts
    postings, posting_starts = chunks.postings, chunks.posting_starts
    frequencies = _ints(index.frequencies)
    for column, pattern in enumerate(patterns):
        wanted = _utf8(pattern)
        for chunk in chunks.holding(pattern):
            times = text.count(wanted, starts[chunk], starts[chunk + 1] - 1)
            low, high = posting_starts[chunk], posting_starts[chunk + 1]
            for n, often in zip(postings[low:high].tolist(), frequencies[low:high].tolist()):
                row = counts.get(n)
                if row is None:
                    row = counts[n] = [0] * width
                row[column] += times * often
    for n, body in enumerate(index.tail, start=index.indexed):
        row = list(map(body.count, patterns))
        if any(row):
            counts[n] = row
    return counts


def _possible(
    index: SearchIndex, chunks: _Table, phrases: Sequence[str], positions: list[int]
) -> dict[int, int]:
    """Position -> how many of ``phrases`` its body may hold: a body holds ``a b`` only
    where a chunk ends in ``a`` and one starts with ``b``."""
    possible = dict.fromkeys(positions, 0)
    if not phrases:
        return possible
    for phrase in phrases:
        first, _, second = phrase.partition(" ")
        ending = chunks.entries(chunks.holding(f"{first}\n"))
        found = ending & chunks.entries(chunks.holding(second, at_start=True))
        found.update(n for n, body in enumerate(index.tail, start=index.indexed) if phrase in body)
        for n in found & possible.keys():
            possible[n] += 1
    return possible


def _strings_at(text: bytes | memoryview, starts: Sequence[int], numbers: list[int]) -> list[str]:
    """The strings at ``numbers`` of a column (see :class:`_Column`): each decoded alone
    when they are few for the column's size, else sliced from one decoding of it."""
    view = memoryview(text)
    if len(numbers) * 256 < len(view):  # not worth copying the whole column
        return [str(view[starts[n] : starts[n + 1]], "utf-8", "surrogatepass") for n in numbers]
    raw = bytes(view)
    if raw.isascii():
        whole = raw.decode("ascii")
        return [whole[starts[n] : starts[n + 1]] for n in numbers]
    return [raw[starts[n] : starts[n + 1]].decode("utf-8", "surrogatepass") for n in numbers]


def entries_at(index: SearchIndex, positions: Iterable[int]) -> list[Entry]:
    """The entries at ``positions``, decoded from their rows alone (or as a write left
    them since the tables were built)."""
    offsets = _ints(index.offsets)
    rows, indexed, changed = index.rows, index.indexed, index.changed
    found: list[Entry] = []
    for i in positions:
        if i >= indexed:
            found.append(index.added[i - indexed])
        elif changed and i in changed:
            found.append(changed[i])
        else:
            row = marshal.loads(rows[offsets[i] : offsets[i + 1]])  # noqa: S302 - our cache
            found.append(Entry._make(row))
    return found


def briefs_at(index: SearchIndex, positions: Iterable[int]) -> list[Brief]:
    """The briefs of the entries at ``positions``; no row is decoded."""
    offsets = _ints(index.brief_offsets)
    briefs, indexed, changed = index.briefs, index.indexed, index.changed
    found: list[Brief] = []
    for i in positions:
        if i >= indexed:
            found.append(brief_of(index.added[i - indexed]))
        elif changed and i in changed:
            found.append(brief_of(changed[i]))
        else:
            brief = marshal.loads(briefs[offsets[i] : offsets[i + 1]])  # noqa: S302 - our cache
            found.append(Brief._make(brief))
    return found


#: Entries a write added or rewrote, looked through one by one, before the index is
#: built again whole (each search reads them, each write writes them).
TAIL_MAX: Final = 1000


def appended(index: SearchIndex, entries: Sequence[Entry]) -> SearchIndex:
    """``index`` with ``entries`` appended to its file (a write's new row): added to what
    changed since the tables were built; no row is decoded, no table copied."""
    if len(index.added) + len(index.changed) + len(entries) > TAIL_MAX:
        return build([*entries_at(index, range(index.size)), *entries])
    bodies = tuple(entry.body.lower() for entry in entries)
    return index._replace(
        size=index.size + len(entries),
        total_length=index.total_length + sum(map(len, bodies)),
        tail=(*index.tail, *bodies),
        tail_keywords=(*index.tail_keywords, *(entry.keyword.lower() for entry in entries)),
        added=(*index.added, *entries),
    )


def replaced(index: SearchIndex, changes: Mapping[int, Entry]) -> SearchIndex | None:
    """``index`` with the entries at these positions rewritten in place (a repeat's
    ``seen``, a superseded mark); ``None`` when one's body or keyword changed (the index
    is built again then)."""
    changed = dict(index.changed)
    added = list(index.added)
    for position in sorted(changes):
        if not 0 <= position < index.size:
            return None
        entry = changes[position]
        old = entries_at(index, [position])[0]
        if old.body != entry.body or old.keyword.lower() != entry.keyword.lower():
            return None  # the tables hold them
        if brief_of(old).key != brief_of(entry).key:
            return None
        if position >= index.indexed:
            added[position - index.indexed] = entry
        else:
            changed[position] = entry
    index = index._replace(added=tuple(added), changed=changed)
    if len(added) + len(changed) > TAIL_MAX:
        return build(entries_at(index, range(index.size)))
    return index


# -- the cache file ------------------------------------------------------------


def _cache_file(path: Path) -> tuple[Path, str]:
    import zlib

    from pi_memory.fs.parse_cache import cache_dir

    name = str(path.resolve())
    raw = name.encode("utf-8", "surrogateescape")
    return cache_dir() / f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.search", name


#: The fields kept in the file's mapped part, each read in place (the others are marshalled).
_MAPPED: Final = (
    "vocabulary",
    "chunk_starts",
    "postings",
    "posting_starts",
    "frequencies",
    "keyword_text",
    "keyword_starts",
    "keyword_postings",
    "keyword_posting_starts",
    "briefs",
    "brief_offsets",
    "lengths",
    "moments",
    "keys",
    "key_starts",
    "key_numbers",
    "offsets",
    "rows",
)
#: What a kept base holds besides its mapped fields.
_FACTS: Final = ("size", "total_length")


def load(path: Path, identity: tuple[int, int, int]) -> SearchIndex | None:
    """The stored search index of ``path`` if it was built from the file as it is now,
    or from the bytes a kept delta brings to the file as it is now.

    The arrays and rows stay in the mapped file: a search reads the pages of the
    postings and briefs it looks at, not the whole index."""
    target, name = _cache_file(path)
    try:
        data = _mapped(target)
        head = int.from_bytes(data[:4], "little")
        key = marshal.loads(data[4 : 4 + head])  # noqa: S302 - our cache
        if key[:2] != (VERSION, name):
            return None
        base = (key[2], key[3], key[4])
        delta = None if base == identity else _delta(target, name, base, identity)
        if base != identity and delta is None:
            return None
        index = _tables(data, 4 + head, base)
        if index is None or delta is None:
            return index
        return _overlaid(index, *delta)
    except Exception:  # a damaged or foreign index is a miss
        return None


def _tables(data: memoryview, start: int, base: tuple[int, int, int]) -> SearchIndex | None:
    """The tables kept after the key, built from the bytes of identity ``base``."""
    size = int.from_bytes(data[start : start + 4], "little")
    facts, lengths = marshal.loads(data[start + 4 : start + 4 + size])  # noqa: S302
    fields: dict[str, Any] = dict(zip(_FACTS, facts))
    at = _aligned(start + 4 + size)
    for field, length in zip(_MAPPED, lengths):
        fields[field] = data[at : at + length]
        at = _aligned(at + length)
    index = SearchIndex(**fields, indexed=fields["size"], tail=(), tail_keywords=(), base=base)
    if at < len(data) or len(_ints(index.offsets)) != index.size + 1:
        return None
    return index


def _delta_file(target: Path) -> Path:
    return target.with_name(f"{target.name}-delta")


def _delta(
    target: Path, name: str, base: tuple[int, int, int], identity: tuple[int, int, int]
) -> tuple[list[Entry], dict[int, Entry]] | None:
    """What the kept delta added and rewrote, if it brings the tables of ``base`` to the
    bytes of ``identity``."""
    kept = marshal.loads(_delta_file(target).read_bytes())  # noqa: S302 - our cache
    version, named, since, until, added, changed = kept
    if (version, named, tuple(since), tuple(until)) != (VERSION, name, base, identity):
        return None
    return [Entry._make(row) for row in added], {
        int(n): Entry._make(row) for n, row in changed.items()
    }


def _overlaid(
    index: SearchIndex, added: list[Entry], changed: dict[int, Entry]
) -> SearchIndex | None:
    """``index`` with what a delta added and rewrote laid over its tables."""
    if any(not 0 <= n < index.indexed for n in changed):
        return None
    bodies = tuple(entry.body.lower() for entry in added)
    return index._replace(
        size=index.indexed + len(added),
        total_length=index.total_length + sum(map(len, bodies)),
        tail=bodies,
        tail_keywords=tuple(entry.keyword.lower() for entry in added),
        added=tuple(added),
        changed=changed,
    )


def _aligned(at: int) -> int:
    """``at`` rounded up to a whole position (packed positions are read in place)."""
    return -(-at // 4) * 4


def _mapped(target: Path) -> memoryview:
    """The bytes of ``target``, mapped rather than read: a search decodes only the rows it
    needs, so the rest of them are never copied. A writer replaces the file (a new
    inode), so the mapping stays the bytes it was."""
    import mmap

    with target.open("rb") as handle:
        return memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))


def store(path: Path, identity: tuple[int, int, int], index: SearchIndex) -> None:
    """Keep ``index`` for ``path`` as it is now; a failure only costs a rebuild later.

    An index with changes laid over kept tables is kept as a delta to those tables:
    the cost follows what changed, not the index (an overlay on tables never kept is
    not kept at all)."""
    from pi_memory.fs.atomic import atomic_write_bytes

    target, name = _cache_file(path)
    if index.added or index.changed:
        if index.base is None:
            return
        added = [tuple(entry) for entry in index.added]
        changed = {n: tuple(entry) for n, entry in index.changed.items()}
        kept = marshal.dumps((VERSION, name, index.base, tuple(identity), added, changed))
        _write(atomic_write_bytes, _delta_file(target), kept)
        return
    head = marshal.dumps((VERSION, name, *identity))
    mapped = [bytes(getattr(index, field)) for field in _MAPPED]
    facts: tuple[Any, ...] = tuple(getattr(index, field) for field in _FACTS)
    body = marshal.dumps((facts, [len(part) for part in mapped]))
    data = bytearray()
    for part in [len(head).to_bytes(4, "little"), head, len(body).to_bytes(4, "little"), body]:
        data += part
    for part in mapped:
        data += bytes(_aligned(len(data)) - len(data))
        data += part
    data += bytes(_aligned(len(data)) - len(data))
    _write(atomic_write_bytes, target, bytes(data))


def _write(write: Callable[..., None], target: Path, data: bytes) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write(target, data, durable=False)
    except OSError:
        pass


def remember(path: Path, identity: tuple[int, int, int], entries: Sequence[Entry]) -> None:
    """After a write: index what ``path`` now holds, so the next search need not.

    Only for a file already indexed (a store that is searched); ``identity`` is
    the one the parse cache's ``remember`` saw the written bytes under.
    """
    target, _ = _cache_file(path)
    if not target.exists() or any(len(entry) != _FIELDS for entry in entries):
        return
    store(path, identity, build(entries))


def follow(
    path: Path,
    before: tuple[int, int, int],
    identity: tuple[int, int, int],
    change: Callable[[SearchIndex], SearchIndex | None],
    known: SearchIndex | None = None,
) -> None:
    """After a write changed ``path`` from identity ``before`` to ``identity``: the index
    stored for ``before`` (``known``: as the writer already loaded it), changed as the
    file was (:func:`appended`, :func:`replaced`), is kept for the new bytes, so the next
    search need not build it. Nothing when none was stored (a store never searched) or
    the change cannot be followed."""
    index = known if known is not None else load(path, before)
    if index is None:
        return
    changed = change(index)
    if changed is not None:
        store(path, identity, changed)


def for_file(path: Path, entries_of: Callable[[], list[Entry] | None]) -> SearchIndex | None:
    """The search index of ``path``: the stored one while the file is unchanged, else built anew.

    ``None`` when the file does not exist or could not be read (``entries_of``
    answers ``None``: nothing is stored, so the next search tries, and says, again).
    A file modified in the last two seconds is indexed but not stored (see the
    parse cache's racy rule).
    """
    import os

    from pi_memory.fs.parse_cache import identity_of, racy

    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    identity = identity_of(st)
    index = load(path, identity)
    if index is not None:
        return index
    entries = entries_of()
    if entries is None or any(len(entry) != _FIELDS for entry in entries):
        return None
    index = build(entries)
    try:
        after = os.stat(path)
    except FileNotFoundError:
        return index
    # Stored only when the file did not change while it was read.
    if (after.st_mtime_ns, after.st_size, after.st_ino) == identity and not racy(identity[0]):
        store(path, identity, index)
        return index._replace(base=identity)  # a write may keep its change as a delta
    return index
