"""A project layer stays inside its repository, whatever links a clone carries.

A repository can commit symbolic links: ``.pi/agent/memory-auto`` pointing at
``~/.ssh``, or ``CONVENTIONS.md`` at a private key. Followed, the next write
would copy that file's content into the repository (ready to be committed),
and a read would hand it to a model. So the project layer is refused when its
directory, or any link inside it, resolves outside the repository; links that
stay inside are fine. The links looked for are those a reader could follow:
the layer's own files, and the review's proposals in ``.inbox/`` (a repository
can commit that directory too, its ``.gitignore`` notwithstanding).
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.naming.layer_files import INBOX_DIR


def _inside(path: Path, real_root: str) -> bool:
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def escape_problem(root: Path, directory: Path) -> str | None:
    """Why ``directory`` (a project layer of repository ``root``) may not be used, or None."""
    real_root = os.path.realpath(root)
    why = (
        "a cloned repository must not reach outside itself; "
        "the project layer is refused until the link is removed"
    )
    if not _inside(directory, real_root):
        target = os.path.realpath(directory)
        return f"{directory} leads to {target}, outside the repository {root} ({why})"
    for path in (*_links(directory), *_links(directory / INBOX_DIR)):
        if not _inside(path, real_root):
            target = os.path.realpath(path)
            return f"{path} is a link to {target}, outside the repository {root} ({why})"
    return None


def _links(directory: Path) -> list[Path]:
    """The symbolic links directly in ``directory`` (a link to a directory is one too)."""
    try:
        with os.scandir(directory) as entries:
            return sorted(directory / entry.name for entry in entries if entry.is_symlink())
    except OSError:
        return []
