"""Windows names: device names and the trailing dots and spaces Windows strips."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["escape_windows_trailing", "is_reserved_windows_name", "windows_safe_name"]

# The classic device names plus the console aliases. Judged on the part before
# the first ".", because Windows opens the device for ``NUL.txt`` and
# ``NUL.tar.gz`` alike.
_RESERVED_BASE: Final = re.compile(
    r"(?:con|prn|aux|nul|com[1-9]|lpt[1-9]|conin\$|conout\$)\Z", re.IGNORECASE
)


def is_reserved_windows_name(name: str) -> bool:
    """True when Windows would open a device instead of a file called ``name``."""
    return _RESERVED_BASE.match(name.split(".", 1)[0]) is not None


def escape_windows_trailing(name: str) -> str:
    """Escape one trailing ``.`` or space (``_2e`` / ``_20``): Windows strips them silently."""
    if name.endswith("."):
        return name[:-1] + "_2e"
    if name.endswith(" "):
        return name[:-1] + "_20"
    return name


def windows_safe_name(name: str) -> str:
    """A name Windows stores as written: trailing dot/space escaped, then device names prefixed."""
    escaped = escape_windows_trailing(name)
    return "_" + escaped if is_reserved_windows_name(escaped) else escaped
