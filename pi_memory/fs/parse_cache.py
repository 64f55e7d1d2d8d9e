"""A disposable cache of parsed entries, keyed by each source file's identity.

A hook is a new process on every event; re-parsing a large category file each
time would cost more than the interpreter's own start-up. The parsed entries
of a file are kept, with the file's ``(mtime_ns, size, inode)``, under the
user's cache directory (never inside a project layer, which is committed).
A file whose identity changed is parsed again; a missing, corrupt or foreign
cache is simply a miss. Deleting the cache costs one parse, never a memory.

The cache holds records as plain tuples and knows nothing of them: the
caller's ``make`` turns a stored tuple back into its record (a tuple of the
wrong shape fails ``make`` and is a miss).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, TypeVar

VERSION: Final = 3
#: A record the cache holds: a tuple (a NamedTuple such as ``Entry``).
if TYPE_CHECKING:
    R = TypeVar("R", bound=tuple[Any, ...])


#: What a cache entry is keyed by: a file's ``(mtime_ns, size, inode)``.
Identity = tuple[int, int, int]

#: The default kind of record: a file's parsed entries.
ENTRIES: Final = "entries"


def cache_dir() -> Path:
    from pi_memory.fs.cache_home import cache_home

    return Path(cache_home())


def _cache_file(path: Path, kind: str = ENTRIES) -> tuple[Path, str]:
    """The cache file of what ``path`` yields as ``kind``, and the full path stored in it
    to rule out a clash.

    crc32 and adler32 rather than hashlib: hashlib costs a hook more start-up
    time than the lookup it serves, and the stored path settles any collision.
    """
    import zlib

    name = str(path.resolve())
    raw = name.encode("utf-8", "surrogateescape")
    return cache_dir() / f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.{kind}", name


def identity_of(st: os.stat_result) -> tuple[int, int, int]:
    """What a cache entry is keyed by: the file's mtime (ns), size and inode."""
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def identity_at(path: Path | str) -> Identity | None:
    """The identity of the file at ``path`` now (``None``: none there, or not to be stat'ed)."""
    try:
        return identity_of(os.stat(path))
    except OSError:
        return None


def lookup(
    path: Path,
    identity: tuple[int, int, int],
    make: Callable[[Sequence[Any]], R],
    kind: str = ENTRIES,
    rules: int | None = None,
) -> list[R] | None:
    """The cached records of ``path`` if it still has ``identity`` (mtime_ns, size, inode).

    ``rules``: the version of the code that made the records from the file's
    bytes, when it is not the parser's own (records made by older rules are a miss).
    """
    import marshal

    target, name = _cache_file(path, kind)
    try:
        # One read, then loads() on slices: marshal.load() on a file reads in tiny pieces.
        data = memoryview(target.read_bytes())
        size = int.from_bytes(data[:4], "little")
        if marshal.loads(data[4 : 4 + size]) != _key(name, identity, rules):  # noqa: S302
            return None
        rows = marshal.loads(data[4 + size :])  # noqa: S302 - the user's own cache file
        return list(map(make, rows))
    except Exception:  # any unreadable cache is a miss
        return None


def cached_entries(
    path: Path,
    identity: tuple[int, int, int],
    parse: Callable[[], list[R]],
    make: Callable[[Sequence[Any]], R],
    kind: str = ENTRIES,
) -> list[R]:
    """``parse()`` of ``path``, or the cached result when the file is unchanged.

    ``kind`` names what is cached: the entries, or another fact parsed from the
    same bytes (each kind its own cache file).
    """
    entries = lookup(path, identity, make, kind)
    if entries is None:
        entries = parse()
        if not racy(identity[0]):
            keep(path, identity, entries, kind)
    return entries


def racy(mtime_ns: int) -> bool:
    """Modified in the last two seconds: another same-size edit could still land in
    the same timestamp tick unseen, so such a file is not cached (git's "racy clean")."""
    import time

    return time.time_ns() - mtime_ns < 2_000_000_000


def written(path: Path, data: bytes) -> Identity | None:
    """The identity of ``path`` if it holds ``data`` (read back and compared: only bytes
    seen on disk, with the identity of that very file, ever get a cache entry)."""
    try:
        with path.open("rb") as handle:
            st = os.fstat(handle.fileno())
            if handle.read() != data:
                return None
    except OSError:
        return None
    return identity_of(st)


def remember(
    path: Path, data: bytes, entries: Sequence[tuple[Any, ...]]
) -> tuple[int, int, int] | None:
    """Record what a writer knows ``path`` now holds, so the next reader need not parse it.

    The file is read back and compared first: only bytes seen on disk, with the
    identity of that very file, ever get a cache entry. Returns that identity
    (``None`` when the file no longer holds ``data``), for other caches of the
    same bytes.
    """
    identity = written(path, data)
    if identity is not None:
        keep(path, identity, entries)
    return identity


def keep(
    path: Path,
    identity: tuple[int, int, int],
    records: Sequence[tuple[Any, ...]],
    kind: str = ENTRIES,
    rules: int | None = None,
) -> None:
    """Keep ``records`` as what ``path`` yields as ``kind`` while it has ``identity``
    (``rules`` as :func:`lookup` has it); a failure only costs the work again later."""
    target, name = _cache_file(path, kind)
    _store(target, _key(name, identity, rules), records)


def rekeyed(
    path: Path,
    before: tuple[int, int, int],
    after: tuple[int, int, int],
    kind: str,
    rules: int | None = None,
) -> bool:
    """Keep what is cached of ``path`` at ``before`` as what it yields at ``after`` (a
    change that left these records as they were), copied without unpacking them;
    ``False`` when nothing was cached at ``before`` or it could not be kept."""
    import marshal

    from pi_memory.fs.atomic import atomic_write_bytes

    target, name = _cache_file(path, kind)
    try:
        data = memoryview(target.read_bytes())
        size = int.from_bytes(data[:4], "little")
        if marshal.loads(data[4 : 4 + size]) != _key(name, before, rules):  # noqa: S302
            return False
        head = marshal.dumps(_key(name, after, rules))
        atomic_write_bytes(
            target,
            b"".join([len(head).to_bytes(4, "little"), head, data[4 + size :]]),
            durable=False,
        )
    except Exception:  # any unreadable cache is a miss
        return False
    return True


def _key(name: str, identity: tuple[int, int, int], rules: int | None) -> tuple[Any, ...]:
    return (VERSION, name, *identity) if rules is None else (VERSION, name, *identity, rules)


def _store(target: Path, key: tuple[Any, ...], entries: Sequence[tuple[Any, ...]]) -> None:
    import marshal

    rows: list[Any] = [tuple(entry) for entry in entries]
    if len({len(row) for row in rows}) <= 1:  # records of one shape only
        try:
            from pi_memory.fs.atomic import atomic_write_bytes

            target.parent.mkdir(parents=True, exist_ok=True)
            # The key first, behind its length, so a lookup that misses never unpacks the rows.
            head = marshal.dumps(key)
            data = len(head).to_bytes(4, "little") + head + marshal.dumps(rows)
            atomic_write_bytes(target, data, durable=False)
        except OSError:
            pass
