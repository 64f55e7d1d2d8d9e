"""Anchors: the code a memory describes, and whether it changed since (suspect memories).

When a project memory is written, the repository paths and code names it
mentions that exist in the project are recorded beside the layer
(:mod:`~pi_memory.anchors.record`) with git's blob ids (or the same ids
computed from the bytes outside git). A background check
(:func:`~pi_memory.anchors.cache.refresh`) compares them with the project now
and caches a verdict per memory (:mod:`~pi_memory.anchors.check`); what the
model reads, ``show`` and ``search`` say a suspect memory's few words of why,
and ranking puts it below fresh ones. ``verify ID`` anchors it again once
someone confirmed it. A memory without anchors is judged by time alone.

The public reading functions are here, each importing what it needs only
when called (a hook pays for none it does not use).
"""

from __future__ import annotations

from pathlib import Path

from pi_memory.anchors.verdict import Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.anchors.project import Found

__all__ = ["Verdict", "find", "keep", "suspects", "verdicts"]


def verdicts(directory: Path) -> dict[str, Verdict]:
    """The last check's verdict on each anchored memory of the layer at ``directory``
    (cached; no git runs). A memory missing here has no anchors: judged by time alone."""
    from pi_memory.anchors.cache import read

    return read(directory)


def suspects(directory: Path) -> dict[str, str]:
    """The suspect memories of the layer at ``directory``: id → what changed."""
    from pi_memory.anchors.verdict import SUSPECT

    return {k: v.reason for k, v in verdicts(directory).items() if v.state == SUSPECT}


def find(root: Path, body: str, layer_directory: Path) -> Found | None:
    """What ``body`` mentions that exists in the project at ``root`` now (no lock
    needed; bounded in time; ``None`` when nothing, or when the project cannot say)."""
    import os

    from pi_memory.anchors.mentions import mentions

    try:
        base = os.path.realpath(root)
        wanted = mentions(body, base)
        if not wanted.paths and not wanted.names:
            return None  # prose: nothing to look up in the project
        from pi_memory.anchors.project import find as find_in

        inside = os.path.relpath(os.path.realpath(layer_directory), base)
        exclude = "" if inside.startswith("..") else inside.replace(os.sep, "/")
        return find_in(Path(base), wanted, exclude)
    except (OSError, ValueError):
        return None


def keep(layer_directory: Path, memory_id: str, found: Found | None, at: str) -> bool:
    """Record what :func:`find` found as the anchors of ``memory_id`` (``None``: it has
    none now, and loses old ones). Call under the layer's write lock. The memory is
    stored whatever happens here: a failure returns False."""
    from pi_memory.anchors.record import Anchor, store

    try:
        store(layer_directory, {memory_id: Anchor(memory_id, at, found) if found else None})
    except OSError:
        return False
    return True
