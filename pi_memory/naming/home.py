"""The user's home directory and ``~`` in configured paths."""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.naming.platforms import WIN32, current_platform

TYPE_CHECKING = False
if TYPE_CHECKING:
    import types
    from collections.abc import Mapping

__all__ = ["expand_tilde", "expand_user_path", "home_dir", "is_absolute"]


def home_dir(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """The user's home: ``HOME`` (``USERPROFILE`` on Windows), else the account's home
    directory (an empty ``HOME`` counts as unset)."""
    env = os.environ if env is None else env
    platform = platform or current_platform()
    value = env.get("USERPROFILE" if platform == WIN32 else "HOME")
    if value and value.strip():
        return Path(value)
    if value is not None and platform != WIN32:
        # An empty HOME is no home: Path.home() would answer "/" for it.
        try:
            import pwd

            return Path(pwd.getpwuid(os.getuid()).pw_dir)
        except (ImportError, KeyError, AttributeError):
            pass
    return Path.home()


def _pathmod(platform: str) -> types.ModuleType:
    import ntpath
    import posixpath

    return ntpath if platform == WIN32 else posixpath


def expand_tilde(value: str, home: str, platform: str) -> str:
    """``~``, ``~/…`` and, on Windows only, ``~\\…`` under ``home``; anything else unchanged.

    On POSIX ``~\\`` is a legal file name and stays literal.
    """
    if value == "~":
        return home
    if value.startswith("~/") or (platform == WIN32 and value.startswith("~\\")):
        pathmod = _pathmod(platform)
        rest = value[2:]
        return str(pathmod.normpath(pathmod.join(home, rest))) if rest else home
    return value


def is_absolute(path: str, platform: str) -> bool:
    """Whether ``path`` is absolute on ``platform`` (``C:\\x`` is not, on POSIX)."""
    return bool(_pathmod(platform).isabs(path))


def expand_user_path(value: str, cwd: Path, platform: str, home: str) -> Path:
    """Expand ``~`` (:func:`expand_tilde`), then make the path absolute against ``cwd``."""
    pathmod = _pathmod(platform)
    return Path(pathmod.normpath(pathmod.join(str(cwd), expand_tilde(value, home, platform))))
