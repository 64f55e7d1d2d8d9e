"""What an install is planned from and made of: the launcher, the places, each file's edit.

Plain records, below both the host records (each host's ``install`` takes a
:class:`Plan` and gives its :class:`Edit` list) and :mod:`pi_memory.hosts.install`,
which plans with them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from pi_memory.launcher import Launcher
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Edit", "Launcher", "Locations", "Plan"]


class Locations(NamedTuple):
    home: Path
    #: The project root (git top level, else the current directory).
    root: Path
    env: Mapping[str, str]


class Edit(NamedTuple):
    path: Path
    #: ``json`` | ``jsonc`` (JSON that may hold comments, kept as they are) | ``toml`` | ``file``.
    kind: str
    install: Callable[[Any], Any]
    uninstall: Callable[[Any], Any]


class Plan(NamedTuple):
    """What a host's edits are made for."""

    scope: str
    launcher: Launcher
    loc: Locations
    #: The host's configuration directory, where the environment puts it.
    config_dir: Path

    @property
    def user(self) -> bool:
        return self.scope == "user"
