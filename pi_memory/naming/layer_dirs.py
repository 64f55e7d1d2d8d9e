"""Where each layer of a store lives, per layout.

- ``categories`` (pi-memory-auto): ``$PI_MEMORY_AUTO_DIR`` or ``~/.pi/agent/memory-auto/``
  for the user layer and ``<project root>/.pi/agent/memory-auto/`` for the project;
- ``files`` (pi-memory): ``<memoryDir>/user/`` and ``<memoryDir>/git/<name>/`` or
  ``<memoryDir>/local/<name>/`` (:mod:`pi_memory.naming.project_key`).
"""

from __future__ import annotations

from pathlib import Path

from pi_memory import env_names
from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.git_repo import project_root
from pi_memory.naming.home import expand_tilde, expand_user_path, home_dir, is_absolute
from pi_memory.naming.platforms import current_platform

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

__all__ = [
    "AUTO_DIR",
    "LayerDirs",
    "categories_layer_dirs",
    "categories_project_dir",
    "categories_user_dir",
    "files_layer_dirs",
]

#: The categories layout's layer directory, below the home or the project root.
AUTO_DIR: Final = Path(".pi", "agent", "memory-auto")


class LayerDirs(NamedTuple):
    user: Path
    project: Path
    #: The project's name as its entries record it.
    project_name: str


def categories_user_dir(env: Mapping[str, str]) -> Path:
    """The categories layout's user layer: ``$PI_MEMORY_AUTO_DIR`` or ``~/.pi/agent/memory-auto``.

    A relative override is ignored, as the configuration ignores it (with a warning).
    """
    platform = current_platform()
    home = str(home_dir(env, platform))
    override = env.get(env_names.AUTO_DIR, "").strip()
    if override and is_absolute(expand_tilde(override, home, platform), platform):
        return expand_user_path(override, Path(home), platform, home)
    return Path(home) / AUTO_DIR


def categories_project_dir(cwd: Path) -> Path:
    """The categories layout's project layer: ``<project root>/.pi/agent/memory-auto``."""
    return project_root(cwd) / AUTO_DIR


def categories_layer_dirs(auto_dir: Path, cwd: Path) -> LayerDirs:
    """The configured user directory and the project root's; named after the root."""
    root = project_root(cwd)
    return LayerDirs(auto_dir, root / AUTO_DIR, root.name or str(root))


def files_layer_dirs(memory_dir: Path, cwd: Path) -> LayerDirs:
    """``<memoryDir>/user`` and the project's directory; named after that directory.

    Raises :class:`~pi_memory.errors.ConfigError` for a project directory that
    would not lie strictly inside ``memory_dir``.
    """
    from pi_memory.naming.project_key import project_memory_dir

    project = project_memory_dir(memory_dir, cwd)
    return LayerDirs(memory_dir / "user", project, project.name)
