"""What the ``layout`` setting decides outside the layouts: where the layers live, what runs."""

from __future__ import annotations

from pathlib import Path

from pi_memory.config.schema import CATEGORIES, Config

TYPE_CHECKING = False
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


def worktree_layer_dirs(
    config: Config, cwd: Path, project: Path
) -> tuple[tuple[Path, ...], tuple[tuple[Path, str], ...]]:
    """The project layers of the other worktrees of ``cwd``'s repository, read beside
    ``project`` (this worktree's) when ``worktrees`` is ``shared``, and the worktrees
    whose layer is refused, with why.

    Each directory once, this worktree's left out: a layer kept outside the
    repository and named after its remote is one directory for every worktree,
    so it adds nothing. A layer a link leads out of its worktree is refused.
    """
    from pi_memory.config.schema import SHARED

    if config.worktrees != SHARED or not cwd.is_dir():
        return (), ()
    from pi_memory.errors import ConfigError
    from pi_memory.fs.containment import escape_problem
    from pi_memory.naming.worktrees import other_worktrees

    found: list[Path] = []
    refused: list[tuple[Path, str]] = []
    for root in other_worktrees(cwd):
        try:
            directory = layer_dirs(config, root).project
        except ConfigError:
            continue
        if directory == project or directory in found:
            continue
        problem = escape_problem(root, directory) if root in directory.parents else None
        if problem:
            refused.append((root, problem))
            continue
        found.append(directory)
    return tuple(found), tuple(refused)
