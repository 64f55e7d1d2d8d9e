"""Open the store a process works on: its configuration, then its layers' directories.

:func:`open_store` is the one door every adapter (commands, hooks, the tool
server, the background jobs) opens a store through; it returns the
configuration, the store and the settings it could not use as given. The
configuration comes from :func:`pi_memory.config.load.load_for` and the
directories from :mod:`pi_memory.naming.layer_dirs`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from pi_memory.entry import PROJECT, USER
from pi_memory.store import Settings, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.config.schema import Config, LoadedConfig

    _Opened = tuple[Config, Store, tuple[str, ...], LoadedConfig]
else:
    _Opened = tuple

__all__ = [
    "Opened",
    "misconfiguration",
    "open_store",
    "setting_warnings",
    "settings_from",
    "warn_once",
]


#: Problems already said by this process (a tool server opens the store per call).
_SAID: set[str] = set()


def setting_warnings(loaded: LoadedConfig) -> list[str]:
    """One line per setting that could not be used as given, saying what is used instead.

    One rule everywhere: a wrong value in memory.json or the environment falls
    back to its default (the reader already did that) and the work goes on.
    """
    return [
        f"memory.json: {problem}" if problem.startswith('"') else problem
        for problem in loaded.problems
    ]


def warn_once(loaded: LoadedConfig) -> None:
    """Say each of :func:`setting_warnings` on stderr, once per process."""
    from pi_memory.output import error_line

    for line in setting_warnings(loaded):
        if line not in _SAID:
            _SAID.add(line)
            error_line(f"pi_memory: warning: {line}")


def settings_from(cfg: Config, cwd: Path, env: Mapping[str, str] | None = None) -> Settings:
    from pi_memory.config.layout_setting import layer_dirs, worktree_layer_dirs

    where = layer_dirs(cfg, cwd)
    worktree_dirs, worktrees_refused = worktree_layer_dirs(cfg, cwd, where.project)
    repository, home, trusted = _repository(cfg, cwd, where.project, env or os.environ)
    return Settings(
        layout=cfg.layout,
        dirs={USER: where.user, PROJECT: where.project},
        project_name=where.project_name,
        lock_timeout_ms=cfg.lock.timeout_ms,
        snapshot_keep=cfg.lock.snapshot_keep,
        keep_removed_days=cfg.keep_removed_days,
        max_body_bytes=cfg.memory_max_bytes,
        review_months=cfg.review_months,
        index_budget=cfg.index_budget,
        inject_max_lines=cfg.mem_index_inject_max_lines,
        inject_max_bytes=cfg.mem_index_inject_max_bytes,
        index_max_lines=cfg.mem_index_max_lines,
        index_max_bytes=cfg.mem_index_max_bytes,
        redact_patterns=cfg.redact_patterns,
        unavailable=_unavailable(cwd, where.project),
        repository=repository,
        home=home,
        trusted_project=trusted,
        project_root=_project_root(cwd),
        worktree_dirs=worktree_dirs,
        worktrees_refused=worktrees_refused,
    )


def _project_root(cwd: Path) -> Path | None:
    """What project memories are anchored to: git's top level, else ``cwd``."""
    from pi_memory.naming.git_repo import project_root

    return project_root(cwd) if cwd.is_dir() else None


def _repository(
    cfg: Config, cwd: Path, project: Path, env: Mapping[str, str]
) -> tuple[Path | None, Path | None, bool]:
    """The git repository the project layer lies in (``None``: the layer is the user's
    own, as the files layout's below memoryDir), this user's home, and whether the
    root is in ``trustedProjects``."""
    from pi_memory.naming.home import home_dir

    home = home_dir(env)
    if not cwd.is_dir():
        return None, home, False
    from pi_memory.naming.git_repo import project_root

    root = project_root(cwd)
    if root not in project.parents or not (root / ".git").exists():
        return None, home, False
    from pi_memory.config.trust import is_trusted

    return root, home, is_trusted(str(root), cfg.trusted_projects, str(home), sys.platform)


def _unavailable(cwd: Path, project: Path) -> dict[str, str]:
    """The project layer is out of reach from a working directory that was deleted, and
    refused when it lies in the repository but a link leads it outside."""
    from pi_memory.naming.workdir import GONE

    if not cwd.is_dir():
        return {PROJECT: GONE.format(path=cwd)}
    from pi_memory.naming.git_repo import project_root

    root = project_root(cwd)
    if root not in project.parents:
        return {}  # a layer kept outside the repository (the files layout's memoryDir)
    from pi_memory.fs.containment import escape_problem

    problem = escape_problem(root, project)
    return {PROJECT: problem} if problem else {}


#: Where a person reads a misconfigured store's details (pi's ``/memory``).
SHOW_COMMAND = "python -m pi_memory show"


def misconfiguration(config: Config, store: Store, env: Mapping[str, str]) -> list[str]:
    """pi-memory: the required models that are missing or do not resolve, one line each.

    While any is listed, a store of a layout that reports it (``status_block``)
    initialises nothing: no index is injected, nothing is surfaced or
    extracted, and the memory tool refuses (``show`` says why).
    """
    from pi_memory.config.models import model_config_errors
    from pi_memory.entry import PROJECT

    if not store.layer(PROJECT).status_block:
        return []
    return model_config_errors(config, env)


def _here() -> Path:
    from pi_memory.naming.workdir import working_dir

    return working_dir()


class Opened(_Opened):
    """A store opened for one process, and what its configuration said:
    ``config, store, warnings, loaded = open_store()``.

    A tuple with named fields, not a named tuple: building a named tuple's class
    costs a hook that opens a store about half a millisecond.
    """

    __slots__ = ()

    def __new__(
        cls, config: Config, store: Store, warnings: tuple[str, ...], loaded: LoadedConfig
    ) -> Opened:
        return super().__new__(cls, (config, store, warnings, loaded))

    @property
    def config(self) -> Config:
        return self[0]

    @property
    def store(self) -> Store:
        return self[1]

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line per setting that could not be used as given (it has its default)."""
        return self[2]

    @property
    def loaded(self) -> LoadedConfig:
        """The configuration as read: its files, its errors and warnings."""
        return self[3]


def open_store(
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    *,
    other_layout: str | None = None,
    warn: bool = True,
) -> Opened:
    """The configuration and the store of ``cwd`` (default: the working directory).

    An unusable setting has its default. ``warn`` says each such setting on stderr,
    once per process; an adapter that reports them its own way passes ``False``.
    ``other_layout`` opens the same directories in that layout (``import``).
    """
    from pi_memory.config.load import load_for

    here = cwd or _here()
    env = os.environ if env is None else env
    loaded = load_for(here, env)
    if warn:
        warn_once(loaded)
    config = loaded.config if not other_layout else loaded.config._replace(layout=other_layout)
    store = Store(settings_from(config, here, env))
    return Opened(config, store, tuple(setting_warnings(loaded)), loaded)
