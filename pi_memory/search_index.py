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
"""

from __future__ import annotations

import marshal
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any, Final, NamedTuple

from pi_memory.entry import Entry

VERSION: Final = 3
_FIELDS: Final = len(Entry._fields)
#: Positions are stored as unsigned 32-bit integers.
_TYPECODE: Final = "I"


class SearchIndex(NamedTuple):
    """The searchable facts of one memory file."""

    #: Entries in the file, in file order.
    size: int
    #: The sum of ``len(body.lower())`` over its entries (length normalisation needs it).
    total_length: int
    #: The distinct chunks of the lowercased bodies, sorted, one per line: a pattern is
    #: looked for in all of them at once, by ``str.find``.
    vocabulary: str
    #: Where each chunk starts in ``vocabulary``; one more offset marks the end.
    chunk_starts: bytes
    #: Per chunk, the positions of the entries holding it, one list after the other.
    postings: bytes
    #: Where each chunk's positions start in ``postings`` (counted in positions).
    posting_starts: bytes
    #: lowercased keyword -> positions of the entries carrying it.
    keywords: dict[str, bytes]
    #: Where each entry's row starts in ``rows`` (one more offset marks the end).
    offsets: bytes
    #: How many entries, from the first, the chunks cover; the others were appended
    #: since (by a write) and are looked through one by one (see :func:`appended`).
    indexed: int
    #: The lowercased bodies of the entries after ``indexed``.
    tail: tuple[str, ...]
    #: The entries, each a marshalled tuple, one after the other.
    rows: bytes | memoryview


def build(entries: Sequence[Entry]) -> SearchIndex:
    """The search index of one file's ``entries``."""
    chunks: dict[str, list[int]] = {}
    keywords: dict[str, list[int]] = {}
    total_length = 0
    offsets = array(_TYPECODE, [0])
    rows = bytearray()
    for position, entry in enumerate(entries):
        body = entry.body.lower()
        total_length += len(body)
        for chunk in set(body.split()):
            chunks.setdefault(chunk, []).append(position)
        keywords.setdefault(entry.keyword.lower(), []).append(position)
        rows += marshal.dumps(tuple(entry))
        offsets.append(len(rows))
    vocabulary = sorted(chunks)
    chunk_starts = array(_TYPECODE, [0])
    postings = array(_TYPECODE)
    posting_starts = array(_TYPECODE, [0])
    for chunk in vocabulary:
        chunk_starts.append(chunk_starts[-1] + len(chunk) + 1)
        postings.extend(chunks[chunk])
        posting_starts.append(len(postings))
    return SearchIndex(
        size=len(entries),
        total_length=total_length,
        vocabulary="\n".join(vocabulary),
        chunk_starts=chunk_starts.tobytes(),
        postings=postings.tobytes(),
        posting_starts=posting_starts.tobytes(),
        keywords={keyword: _packed(found) for keyword, found in keywords.items()},
        offsets=offsets.tobytes(),
        indexed=len(entries),
        tail=(),
        rows=bytes(rows),
    )


def _packed(positions: list[int]) -> bytes:
    return array(_TYPECODE, positions).tobytes()


def _unpacked(data: bytes) -> array[int]:
    found = array(_TYPECODE)
    found.frombytes(data)
    return found


def matching(index: SearchIndex, patterns: Iterable[str], tokens: Iterable[str]) -> list[int]:
    """Positions, ascending, of the entries whose body holds a pattern or keyword a token."""
    found: set[int] = set()
    wanted = [pattern for pattern in patterns if pattern]
    if wanted and index.vocabulary:
        vocabulary = index.vocabulary
        starts = _unpacked(index.chunk_starts)
        postings = _unpacked(index.postings)
        posting_starts = _unpacked(index.posting_starts)
        hit: set[int] = set()
        for pattern in wanted:
            at = vocabulary.find(pattern)
            while at != -1:
                chunk = bisect_right(starts, at) - 1
                hit.add(chunk)
                at = vocabulary.find(pattern, starts[chunk + 1])
        for chunk in hit:
            found.update(postings[posting_starts[chunk] : posting_starts[chunk + 1]])
    for n, body in enumerate(index.tail):
        if any(pattern in body for pattern in wanted):
            found.add(index.indexed + n)
    named = [token for token in tokens if token]
    if named and index.keywords:
        # Every keyword in one text, looked through by str.find (as the chunks are).
        keywords = list(index.keywords)
        text = "\n".join(keywords)
        ends = list(accumulate(len(keyword) + 1 for keyword in keywords))
        hit = set()
        for token in named:
            at = text.find(token)
            while at != -1:
                n = bisect_right(ends, at)
                hit.add(n)
                at = text.find(token, ends[n])
        for n in hit:
            found.update(_unpacked(index.keywords[keywords[n]]))
    return sorted(found)


def entries_at(index: SearchIndex, positions: Iterable[int]) -> list[Entry]:
    """The entries at ``positions``, decoded from their rows alone."""
    offsets = _unpacked(index.offsets)
    rows = index.rows
    return [
        Entry._make(marshal.loads(rows[offsets[i] : offsets[i + 1]]))  # noqa: S302 - our cache
        for i in positions
    ]


#: Appended entries looked through one by one before the index is built again.
TAIL_MAX: Final = 1000


def appended(index: SearchIndex, entries: Sequence[Entry]) -> SearchIndex:
    """``index`` with ``entries`` appended to its file (a write's new row): their rows,
    keywords and lowercased bodies are added; no other row is decoded."""
    if len(index.tail) + len(entries) > TAIL_MAX:
        return build([*entries_at(index, range(index.size)), *entries])
    offsets = _unpacked(index.offsets)
    rows = [bytes(index.rows)]
    keywords = dict(index.keywords)
    end = offsets[-1]
    for n, entry in enumerate(entries, start=index.size):
        row = marshal.dumps(tuple(entry))
        rows.append(row)
        end += len(row)
        offsets.append(end)
        keyword = entry.keyword.lower()
        keywords[keyword] = keywords.get(keyword, b"") + _packed([n])
    bodies = tuple(entry.body.lower() for entry in entries)
    return index._replace(
        size=index.size + len(entries),
        total_length=index.total_length + sum(map(len, bodies)),
        keywords=keywords,
        offsets=offsets.tobytes(),
        tail=(*index.tail, *bodies),
        rows=b"".join(rows),
    )


def replaced(index: SearchIndex, changes: Mapping[int, Entry]) -> SearchIndex | None:
    """``index`` with the entries at these positions rewritten in place (a repeat's
    ``seen``, a superseded mark); ``None`` when one's body or keyword changed (the index
    is built again then)."""
    offsets = _unpacked(index.offsets)
    rows = bytes(index.rows)
    for position in sorted(changes, reverse=True):
        if not 0 <= position < index.size:
            return None
        entry = changes[position]
        old = entries_at(index, [position])[0]
        if old.body != entry.body or old.keyword.lower() != entry.keyword.lower():
            return None
        start, end = offsets[position], offsets[position + 1]
        row = marshal.dumps(tuple(entry))
        rows = rows[:start] + row + rows[end:]
        shift = len(row) - (end - start)
        if shift:
            after = offsets[position + 1 :]
            offsets = offsets[: position + 1]
            offsets.extend(at + shift for at in after)
        index = index._replace(offsets=offsets.tobytes(), rows=rows)
    return index


# -- the cache file ------------------------------------------------------------


def _cache_file(path: Path) -> tuple[Path, str]:
    import zlib

    from pi_memory.fs.parse_cache import cache_dir

    name = str(path.resolve())
    raw = name.encode("utf-8", "surrogateescape")
    return cache_dir() / f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.search", name


def load(path: Path, identity: tuple[int, int, int]) -> SearchIndex | None:
    """The stored search index of ``path`` if it was built from the file as it is now."""
    target, name = _cache_file(path)
    try:
        data = _mapped(target)
        head = int.from_bytes(data[:4], "little")
        if marshal.loads(data[4 : 4 + head]) != (VERSION, name, *identity):  # noqa: S302
            return None
        start = 4 + head
        size = int.from_bytes(data[start : start + 4], "little")
        facts = marshal.loads(data[start + 4 : start + 4 + size])  # noqa: S302 - our cache
        index = SearchIndex._make((*facts, data[start + 4 + size :]))
        if len(_unpacked(index.offsets)) != index.size + 1:
            return None
        if index.indexed + len(index.tail) != index.size:
            return None
        return index
    except Exception:  # a damaged or foreign index is a miss
        return None


def _mapped(target: Path) -> memoryview:
    """The bytes of ``target``, mapped rather than read: a search decodes only the rows it
    needs, so the rest of them are never copied. A writer replaces the file (a new
    inode), so the mapping stays the bytes it was."""
    import mmap

    with target.open("rb") as handle:
        return memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))


def store(path: Path, identity: tuple[int, int, int], index: SearchIndex) -> None:
    """Keep ``index`` for ``path`` as it is now; a failure only costs a rebuild later."""
    from pi_memory.fs.atomic import atomic_write_bytes

    target, name = _cache_file(path)
    head = marshal.dumps((VERSION, name, *identity))
    facts: tuple[Any, ...] = tuple(index)[:-1]
    body = marshal.dumps(facts)
    data = b"".join(
        [
            len(head).to_bytes(4, "little"),
            head,
            len(body).to_bytes(4, "little"),
            body,
            bytes(index.rows),
        ]
    )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, data, durable=False)
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
) -> None:
    """After a write changed ``path`` from identity ``before`` to ``identity``: the index
    stored for ``before``, changed as the file was (:func:`appended`, :func:`replaced`),
    is kept for the new bytes, so the next search need not build it. Nothing when none
    was stored (a store never searched) or the change cannot be followed."""
    index = load(path, before)
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
    return index
