"""The process's working directory, which may have been deleted under it.

A shell left standing in a removed directory still runs commands; ``getcwd``
then fails. The user layer does not depend on it, so such a process gets the
path it was in (from ``PWD`` when that is gone too) and is told the project
layer is out of reach, rather than failing every command.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["GONE", "UNKNOWN", "working_dir"]

GONE: Final = (
    "the working directory {path} no longer exists, so there is no project layer here: "
    "cd into the project (the user layer works from anywhere)"
)


#: Where a deleted directory was when nobody can say: a path that names no directory.
UNKNOWN: Final = Path(os.sep, "(deleted working directory)")


def working_dir() -> Path:
    """``os.getcwd()``, or for a deleted one a path that is not a directory (``PWD`` if it
    says where it was, and is gone too): callers test ``is_dir()`` before using it."""
    try:
        return Path(os.getcwd())
    except FileNotFoundError:
        where = os.environ.get("PWD", "")
        if os.path.isabs(where) and not os.path.isdir(where):
            return Path(where)
        return UNKNOWN
