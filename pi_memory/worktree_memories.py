"""What a worktree reads of the project layers of its repository's other worktrees.

With ``worktrees: shared`` (the default) a project layer kept in the
repository is read together with the same layer of every other worktree of
that repository (:func:`pi_memory.config.layout_setting.worktree_layer_dirs`),
so a memory learned on one branch reaches the sessions of every checkout at
once, while it is written and later committed with the branch it was learned
on. Those layers are sources, never targets: nothing here writes.

Of a layer in the repository, a worktree reads only the memories this user's
pi_memory wrote there (its trust record, :mod:`pi_memory.provenance`): what
others committed reaches a worktree the way it always did, through git and
``trust``. A layer kept outside the repository (a path-named one of the
files layout) is this user's, and is read whole. An id the project layer
already holds, or an earlier worktree gave, is read once.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from pi_memory.errors import PiMemoryError
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.config.schema import Config
    from pi_memory.entry import Entry
    from pi_memory.layouts.protocol import LayerStore

__all__ = ["WorktreeSource", "read_worktrees", "worktrees_line"]


class WorktreeSource(NamedTuple):
    """One other worktree's project layer as this worktree reads it."""

    layer: LayerStore
    #: The memories read from it, in its order.
    entries: list[Entry]

    @property
    def directory(self) -> Path:
        return self.layer.directory


def read_worktrees(
    layers: Sequence[LayerStore], own: Collection[str], home: Path | None
) -> list[WorktreeSource]:
    """Each of ``layers`` that exists, with the memories this worktree reads from it.

    ``own``: the ids of this worktree's project layer. ``home``: where this user's
    trust records are, for layers in the repository (``None``: every memory is read).
    An unreadable layer is skipped: another checkout never fails this one.
    """
    from pi_memory.provenance import read_record

    seen = set(own)
    sources: list[WorktreeSource] = []
    for layer in layers:
        if not layer.directory.is_dir():
            continue
        try:
            entries = layer.read()
        except (OSError, PiMemoryError):
            continue
        mine = read_record(home, layer.directory).own if home is not None else None
        kept = [e for e in entries if e.id not in seen and (mine is None or e.id in mine)]
        seen.update(e.id for e in kept)
        sources.append(WorktreeSource(layer, kept))
    return sources


def worktrees_line(config: Config, project: Path, read: int, cwd: Path) -> str:
    """What ``show`` and ``doctor`` say of the repository's worktrees ("" outside git or
    with one worktree): one store for all, shared, or separate. ``project``: this
    worktree's project layer; ``read``: how many other worktrees' layers it reads."""
    from pi_memory.config.layout_setting import layer_dirs
    from pi_memory.config.schema import SHARED
    from pi_memory.naming.worktrees import other_worktrees

    others = other_worktrees(cwd) if cwd.is_dir() else ()
    if not others:
        return ""
    try:
        same = all(layer_dirs(config, root).project == project for root in others)
    except PiMemoryError:
        same = False
    n = len(others) + 1
    if same:
        return (
            f"worktrees: the project layer lies outside the repository, named after it: "
            f"one store for every worktree ({n})"
        )
    if config.worktrees != SHARED:
        return f"worktrees: separate: each of the {n} worktrees reads only its own project layer"
    return (
        f"worktrees: shared: the project layer also reads what you wrote in the "
        f"{read} other worktree(s) of this repository (read only)"
    )
