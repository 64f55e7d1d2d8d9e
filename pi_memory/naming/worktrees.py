"""Every worktree of a repository, read from git's files without a ``git`` process.

A repository's worktrees share its common directory (``.git`` of the main
checkout, or a bare repository). The main checkout is the directory whose
``.git`` is that common directory; each linked worktree has a folder under
``<common>/worktrees/`` whose ``gitdir`` file names its ``.git`` file. A
worktree whose directory was deleted (``git worktree list`` calls it
prunable) is left out, and so is a bare repository itself, which has no
files checked out. This is what ``git worktree list --porcelain`` reads.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.naming.git_repo import GitRepo, find_git_repo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["WORKTREES_DIR", "other_worktrees", "worktree_roots"]

#: The folder of the common directory that lists the linked worktrees.
WORKTREES_DIR: Final = "worktrees"

#: Per process: a hook asks once, a tool server may ask per call.
_CACHE: dict[Path, tuple[Path, ...]] = {}


def _linked_root(entry: Path) -> Path | None:
    """The top level of one linked worktree, if its checkout still exists."""
    try:
        text = (entry / "gitdir").read_text("utf-8", "surrogateescape").strip()
    except OSError:
        return None
    if not text:
        return None
    dot_git = Path(text) if os.path.isabs(text) else Path(os.path.normpath(entry / text))
    return dot_git.parent if dot_git.is_file() else None


def _main_root(common: Path) -> Path | None:
    """The main checkout: the parent of a common directory that is its ``.git``."""
    dot_git = common.parent / ".git"
    try:
        return common.parent if dot_git.is_dir() and os.path.samefile(dot_git, common) else None
    except OSError:
        return None


def worktree_roots(repo: GitRepo) -> tuple[Path, ...]:
    """The top level of every worktree of ``repo``'s repository that still exists,
    the main checkout first, then the linked ones by name (real paths)."""
    common = Path(os.path.realpath(repo.common_dir))
    if common in _CACHE:
        return _CACHE[common]
    roots: list[Path] = []
    main = _main_root(common)
    if main is not None:
        roots.append(main)
    try:
        names = sorted(os.listdir(common / WORKTREES_DIR))
    except OSError:
        names = []
    for name in names:
        root = _linked_root(common / WORKTREES_DIR / name)
        if root is not None:
            roots.append(Path(os.path.realpath(root)))
    found = tuple(dict.fromkeys(roots))
    _CACHE[common] = found
    return found


def other_worktrees(cwd: Path) -> tuple[Path, ...]:
    """The top levels of the other worktrees of the repository ``cwd`` is in (none
    outside a work tree)."""
    repo = find_git_repo(cwd)
    if repo is None:
        return ()
    here = Path(os.path.realpath(repo.toplevel))
    return tuple(root for root in worktree_roots(repo) if root != here)
