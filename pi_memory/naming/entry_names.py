"""Entry file names: the ``files`` layout's file for a memory's ``name`` (pi-memory)."""

from __future__ import annotations

import re

from pi_memory.naming.dir_names import hash8
from pi_memory.naming.layer_files import INDEX_FILE
from pi_memory.naming.windows import is_reserved_windows_name
from pi_memory.text import JS_SPACE_CLASS, cut_utf8

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Final

__all__ = [
    "ENTRY_EXT",
    "STEM_MAX_BYTES",
    "entry_file_name",
    "resolve_unique_file_name",
    "unique_entry_file_name",
]

ENTRY_EXT: Final = ".md"
#: Entry file stems are capped at this many UTF-8 bytes (the ``.md`` comes on top).
STEM_MAX_BYTES: Final = 100


_UNSAFE_FILE_CHARS: Final = re.compile(r'[/\\:*?"<>|\x00-\x1f\x7f]')
# JavaScript's \s: the set the reference implementation trims and collapses.
_EDGE: Final = re.compile(f"^[{JS_SPACE_CLASS}.]+|[{JS_SPACE_CLASS}.]+$")
_WHITESPACE_RUN: Final = re.compile(f"[{JS_SPACE_CLASS}]+")


def _derived_file_name(name: str) -> str:
    cleaned = _EDGE.sub("", _UNSAFE_FILE_CHARS.sub("_", name))
    stem = cut_utf8(_WHITESPACE_RUN.sub("-", cleaned), STEM_MAX_BYTES)
    if not stem:
        stem = f"entry-{hash8(name)}"
    elif is_reserved_windows_name(stem):
        # On every platform: a files-layout directory under git/ is shared
        # between machines, so a name must be safe on Windows too.
        stem = "_" + stem
    return stem + ENTRY_EXT


def _is_index_name(file_name: str) -> bool:
    # Case-insensitive: on Windows and macOS "memory.md" *is* the index file.
    return file_name.lower() == INDEX_FILE.lower()


def resolve_unique_file_name(base: str, used: Collection[str]) -> str:
    """``base``, or ``<stem>-2.md``, ``<stem>-3.md``… — the first not in ``used`` (exact match)."""
    if base not in used:
        return base
    has_ext = base.endswith(ENTRY_EXT)
    stem = base[: -len(ENTRY_EXT)] if has_ext else base
    ext = ENTRY_EXT if has_ext else ""
    n = 2
    while f"{stem}-{n}{ext}" in used:
        n += 1
    return f"{stem}-{n}{ext}"


def entry_file_name(name: str) -> str:
    """The file name derived from a memory's ``name`` (pi-memory).

    Unsafe characters become ``_``, edge whitespace and dots are trimmed,
    whitespace runs become ``-``, the stem is capped at 100 UTF-8 bytes, a
    device-name stem gets a ``_`` prefix, and a name that leaves nothing gets
    ``entry-<hash8>``. ``MEMORY`` (or ``.MEMORY``) derives ``MEMORY.md``: keeping
    the index file out of reach is the store's business
    (:func:`unique_entry_file_name` counts it as always taken).
    """
    return _derived_file_name(name)


def unique_entry_file_name(
    name: str, taken: Collection[str], *, case_insensitive: bool = True
) -> str:
    """The derived file name for ``name``, with ``-2``/``-3``… if it clashes with ``taken``.

    ``taken`` is the set of file names already in the directory (leave out the
    entry's own current file when renaming it, so a rename onto its own name
    reuses the file). The check is case-insensitive by default, which is what
    Windows and macOS filesystems do and keeps a store shared across machines
    free of names that collide on one of them. The index file is always taken,
    in any case.
    """
    fold = str.lower if case_insensitive else str
    used = {fold(file) for file in taken}
    base = _derived_file_name(name)
    stem = base[: -len(ENTRY_EXT)]
    candidate, n = base, 1
    while fold(candidate) in used or _is_index_name(candidate):
        n += 1
        candidate = f"{stem}-{n}{ENTRY_EXT}"
    return candidate
