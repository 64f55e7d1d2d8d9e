"""The user's state directory for pi_memory: kept between runs, never inside a project.

What pi_memory did for the user (the receipts log) and the backups ``install``
keeps live here: worth keeping, unlike the cache, but not memories. ``os.path``
only, like :mod:`pi_memory.fs.cache_home`: a hook asks for it on every event.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # collections costs a hook's start-up milliseconds
if TYPE_CHECKING:
    from collections.abc import Mapping


def state_home(env: Mapping[str, str] = os.environ) -> str:
    """``$XDG_STATE_HOME/pi_memory`` (when absolute), else ``~/.local/state/pi_memory``."""
    base = env.get("XDG_STATE_HOME", "").strip()
    if not os.path.isabs(base):
        home = env.get("HOME", "").strip() or os.path.expanduser("~")
        base = os.path.join(home, ".local", "state")
    return os.path.join(base, "pi_memory")
