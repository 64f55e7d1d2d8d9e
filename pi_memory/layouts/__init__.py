"""How a layer's directory holds its memories.

A layout is a persistence adapter for one layer directory. It is the only code
that knows a file format; everything above it works on :class:`Entry` records.
The engine takes the store's write lock before calling any method that writes,
and every method that writes does so atomically.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pi_memory.config import defaults

if TYPE_CHECKING:
    from pi_memory.entry import Entry

CATEGORIES = "categories"
FILES = "files"


class LayerStore(Protocol):
    """One layer directory in one layout."""

    layer: str
    directory: Path

    def read(self) -> list[Entry]:
        """Every entry of the layer, superseded ones included, in file order.

        Never raises on damaged content: what cannot be read as an entry is
        left on disk untouched.
        """

    def append(self, entry: Entry) -> Entry:
        """Store a new entry; returns it as stored (with ``file`` filled in)."""

    def update(self, entries: Collection[Entry]) -> None:
        """Rewrite existing entries (matched by id) in place, every other byte kept."""

    def remove(self, ids: Collection[str]) -> None:
        """Delete entries by id (a validated merge or an explicit remove)."""

    def refresh_index(self, entries: list[Entry], recalls: Mapping[str, int]) -> None:
        """Bring the layer's ``MEMORY.md`` up to date with ``entries``."""

    def repair_keywords(self) -> tuple[int, int]:
        """Persist the read path's keyword repair; ``(collapsed, repaired)`` rows."""


def open_layer(
    layout: str,
    layer: str,
    directory: Path,
    *,
    index_max_lines: int = defaults.MEM_INDEX_MAX_LINES,
    index_max_bytes: int = defaults.MEM_INDEX_MAX_BYTES,
    lock_timeout_ms: int = defaults.LOCK_TIMEOUT_MS,
    snapshot_keep: int = defaults.SNAPSHOT_KEEP,
) -> LayerStore:
    if layout == CATEGORIES:
        from pi_memory.layouts.categories import CategoriesLayer

        return CategoriesLayer(layer, directory)
    if layout == FILES:
        from pi_memory.layouts.files import FilesLayer

        return FilesLayer(
            layer,
            directory,
            index_max_lines=index_max_lines,
            index_max_bytes=index_max_bytes,
            lock_timeout_ms=lock_timeout_ms,
            snapshot_keep=snapshot_keep,
        )
    raise ValueError(f"unknown layout {layout!r}")
