"""The user's home directory and ``~`` in configured paths."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pi_memory.naming.platforms import WIN32, current_platform

if TYPE_CHECKING:
    from collections.abc import Mapping


def home_dir(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """The user's home: ``HOME`` (``USERPROFILE`` on Windows), else what Python finds."""
    env = os.environ if env is None else env
    platform = platform or current_platform()
    value = env.get("USERPROFILE" if platform == WIN32 else "HOME", "")
    return Path(value) if value else Path.home()


def expand_user_path(value: str, cwd: Path, platform: str, home: str) -> Path:
    """Expand ``~``, ``~/`` and (win32) ``~\\``, then make the path absolute against ``cwd``."""
    import ntpath
    import posixpath

    pathmod = ntpath if platform == WIN32 else posixpath
    if value == "~":
        value = home
    elif value.startswith("~/") or (platform == WIN32 and value.startswith("~\\")):
        value = pathmod.join(home, value[2:])
    return Path(pathmod.normpath(pathmod.join(str(cwd), value)))
