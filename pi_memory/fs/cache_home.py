"""The user's cache directory for pi_memory: disposable, never inside a project.

``os.path`` only: ``__main__`` asks for it before any other import.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # collections costs a hook's start-up milliseconds
if TYPE_CHECKING:
    from collections.abc import Mapping


def cache_home(env: Mapping[str, str] = os.environ) -> str:
    """``$XDG_CACHE_HOME/pi_memory``, else ``~/.cache/pi_memory``."""
    base = env.get("XDG_CACHE_HOME", "").strip()
    root = base or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "pi_memory")
