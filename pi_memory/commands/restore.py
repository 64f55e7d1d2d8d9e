"""``restore [--layer L] [NAME]``: what the memory tool removed or replaced, back.

A layout with the ``memory`` tool keeps a copy of every memory the tool
deletes or overwrites for ``keepRemovedDays`` days (see
:mod:`pi_memory.layouts.files.recovery`). Without a name this lists them,
newest first; with one it brings back the newest copy of that memory (by name
or file name), under the layer's lock, keeping whatever it replaces the same way.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Final

    from pi_memory.layouts.protocol import MemoryTool

NOTHING_DELETED: Final = (
    "restore is for a layout whose memory tool deletes: this store's layout never "
    "deletes a memory (an outdated one is superseded and stays, ranked last)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--layer", default="project", help="user|project (default: project)")
    parser.add_argument(
        "name", nargs="?", metavar="NAME", help="the memory's name or file; without it, list"
    )


def run(args: argparse.Namespace) -> int:
    from pi_memory.errors import UsageError
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer

    name: str | None = args.name
    store = open_store().store
    which = parse_layer(args.layer)
    try:
        tool = store.layer(which).memory_tool()
    except UsageError:
        raise UsageError(NOTHING_DELETED) from None
    if name is None:
        for line in kept_lines(tool, which):
            write_line(line)
        return 0
    with store.lock(which, "restore"):
        entry, kept, file = tool.restore(name)
    when = kept.when.strftime("%Y-%m-%d %H:%M:%S UTC")
    write_line(f'restored "{entry.name}" ({file}) as it was before it was {kept.action}d {when}')
    return 0


def kept_lines(tool: MemoryTool, layer: str) -> list[str]:
    """One line per kept copy, newest first, and how to restore one."""
    kept = tool.kept()
    if not kept:
        return [
            f"nothing the memory tool removed or replaced in the last {tool.keep_removed_days} days"
        ]
    lines = []
    for copy, entry in kept:
        when = copy.when.strftime("%Y-%m-%d %H:%M:%S")
        what = "(unreadable)" if entry is None else f"{entry.name} — {entry.description}"
        lines.append(f"{when} {copy.action + 'd':9} {what} [{copy.path.name}]")
    lines.append(f"restore one: python -m pi_memory restore --layer {layer} NAME")
    return lines
