"""How a layer's directory holds its memories: the layouts, and the one place they are named.

A layout is a persistence adapter for one layer directory. It is the only code
that knows a file format; everything above it works on
:class:`~pi_memory.entry.Entry` records through the protocol in
:mod:`pi_memory.layouts.protocol`. :func:`open_layer` is the one place a
layout's name (the ``layout`` setting) is turned into code.
"""

from __future__ import annotations

from pi_memory.config import defaults

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from pi_memory.layouts.protocol import LayerStore


def open_layer(
    layout: str,
    layer: str,
    directory: Path,
    *,
    index_max_lines: int = defaults.MEM_INDEX_MAX_LINES,
    index_max_bytes: int = defaults.MEM_INDEX_MAX_BYTES,
    index_budget: int = defaults.INDEX_BUDGET,
    inject_max_lines: int = defaults.MEM_INDEX_INJECT_MAX_LINES,
    inject_max_bytes: int = defaults.MEM_INDEX_INJECT_MAX_BYTES,
    keep_removed_days: int = defaults.KEEP_REMOVED_DAYS,
    max_body_bytes: int = defaults.MEMORY_MAX_BYTES,
) -> LayerStore:
    if layout == "categories":
        from pi_memory.layouts.categories.layer import CategoriesLayer

        return CategoriesLayer(layer, directory, index_budget=index_budget)
    if layout == "files":
        from pi_memory.layouts.files.layer import FilesLayer

        return FilesLayer(
            layer,
            directory,
            index_max_lines=index_max_lines,
            index_max_bytes=index_max_bytes,
            inject_max_lines=inject_max_lines,
            inject_max_bytes=inject_max_bytes,
            keep_removed_days=keep_removed_days,
            max_body_bytes=max_body_bytes,
        )
    raise ValueError(f"unknown layout {layout!r}")
