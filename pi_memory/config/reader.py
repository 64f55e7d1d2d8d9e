"""Typed reading of one merged ``memory.json`` dictionary, collecting what is wrong.

A value of the wrong type becomes an *error* line and its default is used; an
out-of-range number is clamped and noted as a *warning*. Reading never raises.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def resolve_path(value: str, cwd: str, home: str, platform: str = sys.platform) -> str:
    """A configured path made absolute: tilde expanded, relative paths taken from ``cwd``."""
    from pi_memory.naming.home import expand_user_path

    return str(expand_user_path(value, Path(cwd), platform, home))


class Reader:
    """Typed access to the merged raw dictionary, collecting errors and warnings."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def get(self, path: str) -> Any:
        node: Any = self.raw
        for part in path.split("."):
            if not isinstance(node, Mapping):
                return None
            node = node.get(part)
        return node

    def section(self, path: str) -> Mapping[str, Any]:
        value = self.get(path)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.errors.append(f'"{path}" must be an object; using the defaults')
            return {}
        return value

    def integer(self, path: str, default: int, low: int = 0, high: int | None = None) -> int:
        value = self.get(path)
        if value is None:
            return default
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            self.errors.append(f'"{path}" must be an integer, got {value!r}; using {default}')
            return default
        clamped = clamp(value, low, high)
        if clamped != value:
            self.warnings.append(f'"{path}" {value} is out of range; using {clamped}')
        return clamped

    def number(self, path: str, default: float) -> float:
        value = self.get(path)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.errors.append(f'"{path}" must be a number, got {value!r}; using {default}')
            return default
        if value < 0:
            self.warnings.append(f'"{path}" {value} is out of range; using 0')
            return 0
        return value

    def boolean(self, path: str, default: bool) -> bool:
        value = self.get(path)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.errors.append(f'"{path}" must be true or false, got {value!r}; using {default}')
            return default
        return value

    def choice(self, path: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.get(path)
        if value is None:
            return default
        if value not in choices:
            allowed = " | ".join(choices)
            self.errors.append(f'"{path}" must be one of {allowed}, got {value!r}; using {default}')
            return default
        return str(value)

    def text(self, path: str) -> str | None:
        value = self.get(path)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            self.errors.append(f'"{path}" must be a string, got {value!r}; ignored')
            return None
        return value

    def directory(self, path: str, cwd: str, home: str, platform: str) -> str | None:
        """An absolute directory (``~`` expanded), or ``None`` with a warning for a
        relative one: relative to what? Each command's working directory would give
        another store, as with ``PI_MEMORY_AUTO_DIR``."""
        from pi_memory.naming.home import expand_tilde, is_absolute

        value = self.text(path)
        if value is None:
            return None
        if not is_absolute(expand_tilde(value, home, platform), platform):
            self.warnings.append(f'"{path}" {value!r} is not an absolute path; ignored')
            return None
        return resolve_path(value, cwd, home, platform)


def clamp(value: int, low: int, high: int | None) -> int:
    """``value`` within ``low`` and ``high`` (no upper bound when ``high`` is ``None``)."""
    value = max(value, low)
    return value if high is None else min(value, high)
