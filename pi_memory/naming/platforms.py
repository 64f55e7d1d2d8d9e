"""The naming platform: the file-name rules differ on ``win32``, ``darwin`` and ``linux``.

Every naming rule takes the platform as an argument, so the Windows rules are
tested on any machine; :func:`current_platform` is the one place that asks
the interpreter.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["DARWIN", "LINUX", "WIN32", "current_platform"]

LINUX: Final = "linux"
DARWIN: Final = "darwin"
WIN32: Final = "win32"


def current_platform() -> str:
    """The naming platform of this interpreter: ``win32``, ``darwin`` or ``linux``."""
    if sys.platform == "win32":
        return WIN32
    if sys.platform == "darwin":
        return DARWIN
    return LINUX
