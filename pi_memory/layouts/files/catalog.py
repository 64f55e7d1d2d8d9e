"""What a write of the ``files`` layout decides on, without reading every memory file.

A write repeats the live memory whose body normalises as its own does, retires
the memories it supersedes by id, gives a new memory a name no other memory
has and an id no other memory has. Reading every memory file to learn that
costs seconds at tens of thousands of memories. The catalog keeps, for each
memory file, the identity it was read at ``(mtime_ns, size, inode)``, its id,
its name and a checksum of its normalised body: a write stats every file,
parses only those whose identity changed since (the last write's own files, a
hand edit, a pull), drops the deleted ones, and then reads only the few files
whose body may repeat its own or whose id it supersedes. The memory tool finds
the memory it adds, replaces, renames or removes (by name or file name) the
same way, so the lock it is called under is not held while the layer is read.

The catalog lives in the user's cache directory (never in the layer, which may
be committed), beside the parse cache and as disposable as it: a missing,
damaged or foreign one is built again from the files. A file modified in the
last two seconds is not kept in it (:func:`~pi_memory.fs.parse_cache.racy`): a
same-size edit in the same timestamp tick could go unseen.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection
from pathlib import Path

from pi_memory.fs.parse_cache import Identity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Optional

#: What the cache file is called beside the parse cache's, and the rules its rows follow.
KIND: Final = "files-catalog"
RULES: Final = 1
#: Every catalog is kept under this identity: its rows carry their files' own.
_WHOLE: Final = (0, 0, 0)

#: What a memory file yields: its id, its name and :func:`body_key` of its body
#: (``None``: not a memory, as :meth:`FilesLayer.read` skips it).
if TYPE_CHECKING:
    Facts = Optional[tuple[str, str, int]]

#: One memory file as the catalog knows it: ``(file, mtime_ns, size, inode, id, name,
#: key)``, a plain tuple (tens of thousands are loaded per write); a file that holds no
#: memory (damaged, oversized) has ``""``, ``""``, -1.
Row = tuple[str, int, int, int, str, str, int]
_FILE: Final = 0
_MTIME: Final = 1
_SIZE: Final = 2
_INODE: Final = 3
_ID: Final = 4
_NAME: Final = 5
_KEY: Final = 6
_FIELDS: Final = 7


def body_key(body: str) -> int:
    """A checksum of ``body``'s de-duplication form (:func:`normalize_memory_text`): two
    bodies that normalise the same have the same key (the converse is checked by reading)."""
    import zlib

    from pi_memory.entry import normalize_memory_text

    return zlib.crc32(normalize_memory_text(body).encode("utf-8", "surrogatepass"))


class Catalog:
    """The memory files of one layer directory as they are now."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows

    def files_for(self, key: int, ids: Collection[str]) -> list[str]:
        """The files whose body may normalise to ``key``'s and those of the ids ``ids``."""
        return [row[_FILE] for row in self.rows if row[_KEY] == key or row[_ID] in ids]

    def files_of(self, refs: Collection[str], ids: Collection[str] = ()) -> list[str]:
        """The files that hold a memory whose file name or name is one of ``refs``, or
        whose id is one of ``ids``."""
        return [
            row[_FILE]
            for row in self.rows
            if row[_KEY] >= 0 and (row[_FILE] in refs or row[_NAME] in refs or row[_ID] in ids)
        ]

    @property
    def ids(self) -> set[str]:
        return {row[_ID] for row in self.rows if row[_KEY] >= 0}

    @property
    def names(self) -> set[str]:
        return {row[_NAME] for row in self.rows if row[_KEY] >= 0}

    @property
    def files(self) -> set[str]:
        """The files that hold a memory."""
        return {row[_FILE] for row in self.rows if row[_KEY] >= 0}


def current(
    directory: Path,
    wanted: Callable[[str], bool],
    read: Callable[[str], tuple[Identity | None, Facts]],
) -> Catalog:
    """The catalog of ``directory`` brought up to date: each file whose name is ``wanted``
    stat'ed, and ``read`` (its identity as read, and its facts) for each file the kept
    catalog does not know at that identity. The catalog is kept again when what it
    would keep changed (a file modified in the last two seconds is not kept)."""
    from pi_memory.fs import parse_cache

    old = {row[_FILE]: row for row in _kept(directory)}
    rows: list[Row] = []
    #: Rows read now of files modified in the last two seconds: not kept.
    racy: set[Row] = set()
    dirty = False
    try:
        with os.scandir(directory) as listing:
            for item in listing:
                name = item.name
                if not wanted(name):
                    continue
                try:
                    st = item.stat()
                except OSError:
                    continue  # gone, or not to be stat'ed: read() skips it too
                row = old.pop(name, None)
                if (
                    row is not None
                    and row[_MTIME] == st.st_mtime_ns
                    and row[_SIZE] == st.st_size
                    and row[_INODE] == st.st_ino
                ):
                    rows.append(row)
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                row = _read_row(name, read)
                if row is None:
                    continue
                rows.append(row)
                if parse_cache.racy(row[_MTIME]):
                    racy.add(row)
                else:
                    dirty = True
    except OSError:
        return Catalog([])
    if dirty or old:
        keep = [row for row in rows if row not in racy]
        parse_cache.keep(directory, _WHOLE, keep, KIND, RULES)
    return Catalog(rows)


def _kept(directory: Path) -> list[Row]:
    """The catalog kept for ``directory`` (empty when none, or not of these rules)."""
    from pi_memory.fs import parse_cache

    rows: list[Row] = parse_cache.lookup(directory, _WHOLE, tuple, KIND, RULES) or []
    return rows if all(len(row) == _FIELDS for row in rows) else []


def _read_row(name: str, read: Callable[[str], tuple[Identity | None, Facts]]) -> Row | None:
    identity, facts = read(name)
    if identity is None:
        return None
    memory_id, memory_name, key = facts if facts is not None else ("", "", -1)
    return (name, *identity, memory_id, memory_name, key)
