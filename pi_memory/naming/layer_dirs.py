"""Where each layer of a store lives, per layout."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_memory.naming.git_repo import project_root
from pi_memory.naming.home import expand_user_path, home_dir
from pi_memory.naming.platforms import current_platform

if TYPE_CHECKING:
    from collections.abc import Mapping


def categories_user_dir(env: Mapping[str, str]) -> Path:
    """The categories layout's user layer: ``$PI_MEMORY_AUTO_DIR`` or ``~/.pi/agent/memory-auto``.

    A relative override resolves against the working directory.
    """
    platform = current_platform()
    home = str(home_dir(env, platform))
    override = env.get("PI_MEMORY_AUTO_DIR", "").strip()
    if override:
        return expand_user_path(override, Path.cwd(), platform, home)
    return Path(home) / ".pi" / "agent" / "memory-auto"


def categories_project_dir(cwd: Path) -> Path:
    """The categories layout's project layer: ``<project root>/.pi/agent/memory-auto``."""
    return project_root(cwd) / ".pi" / "agent" / "memory-auto"
