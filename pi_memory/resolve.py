"""Where things live: the engine's settings from ``memory.json``, the environment and ``cwd``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pi_memory.entry import PROJECT, USER
from pi_memory.store import Settings, Store

if TYPE_CHECKING:
    from pi_memory.config.config import Config, LoadedConfig


def load(cwd: Path, env: Mapping[str, str]) -> LoadedConfig:
    from pi_memory.config.config import load_config
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.home import home_dir

    root = project_root(cwd)
    return load_config(cwd, env, home=home_dir(env), project_root=root)


def load_settings(cwd: Path, env: Mapping[str, str]) -> Settings:
    from pi_memory.errors import ConfigError

    loaded = load(cwd, env)
    if loaded.errors:
        raise ConfigError("memory.json: " + "; ".join(loaded.errors))
    return settings_from(loaded.config, cwd)


def settings_from(cfg: Config, cwd: Path) -> Settings:
    from pi_memory.config.config import CATEGORIES
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.project_key import project_memory_dir

    root = project_root(cwd)
    if cfg.layout == CATEGORIES:
        dirs = {USER: Path(cfg.auto_dir), PROJECT: root / ".pi" / "agent" / "memory-auto"}
        name = root.name or str(root)
    else:
        memory_dir = Path(cfg.memory_dir)
        dirs = {USER: memory_dir / "user", PROJECT: project_memory_dir(memory_dir, cwd)}
        name = dirs[PROJECT].name
    return Settings(
        layout=cfg.layout,
        dirs=dirs,
        project_name=name,
        lock_timeout_ms=cfg.lock.timeout_ms,
        snapshot_keep=cfg.lock.snapshot_keep,
        review_months=cfg.review_months,
        index_budget=cfg.index_budget,
        inject_max_lines=cfg.mem_index_inject_max_lines,
        inject_max_bytes=cfg.mem_index_inject_max_bytes,
        index_max_lines=cfg.mem_index_max_lines,
        index_max_bytes=cfg.mem_index_max_bytes,
        redact_patterns=cfg.redact_patterns,
    )


def open_store(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Store:
    return Store(load_settings(cwd or Path(os.getcwd()), os.environ if env is None else env))


def load_for_show() -> tuple[LoadedConfig, Store | None]:
    """The configuration and, unless it is unusable, the store (``show`` reports both)."""
    cwd = Path(os.getcwd())
    loaded = load(cwd, os.environ)
    if loaded.errors:
        return loaded, None
    return loaded, Store(settings_from(loaded.config, cwd))


def open_job(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> tuple[Store, Config]:
    """The store and the configuration a model job needs (its models and providers)."""
    from pi_memory.errors import ConfigError

    here = cwd or Path(os.getcwd())
    loaded = load(here, os.environ if env is None else env)
    if loaded.errors:
        raise ConfigError("memory.json: " + "; ".join(loaded.errors))
    return Store(settings_from(loaded.config, here)), loaded.config
