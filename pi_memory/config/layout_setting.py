"""What the ``layout`` setting decides outside the layouts: where the layers live, what runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_memory.config.schema import CATEGORIES, Config

if TYPE_CHECKING:
    from pi_memory.naming.layer_dirs import LayerDirs


def layer_dirs(config: Config, cwd: Path) -> LayerDirs:
    """Where the user and project layers of the store for ``cwd`` live."""
    from pi_memory.naming.layer_dirs import categories_layer_dirs, files_layer_dirs

    if config.layout == CATEGORIES:
        return categories_layer_dirs(Path(config.auto_dir), cwd)
    return files_layer_dirs(Path(config.memory_dir), cwd)


def user_layer_dir(config: Config) -> Path:
    """The user layer's directory (it needs no working directory)."""
    if config.layout == CATEGORIES:
        return Path(config.auto_dir)
    return Path(config.memory_dir) / "user"


def extraction_enabled(config: Config) -> bool:
    """Whether extraction runs: always in the categories layout, when enabled in files."""
    return config.layout == CATEGORIES or config.extract_memories.enabled
