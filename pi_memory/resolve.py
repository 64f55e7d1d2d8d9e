"""Where things live: the engine's settings from ``memory.json``, the environment and ``cwd``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pi_memory.entry import PROJECT, USER
from pi_memory.store import Settings, Store


def load_settings(cwd: Path, env: Mapping[str, str]) -> Settings:
    from pi_memory.config import CATEGORIES, load_config
    from pi_memory.errors import ConfigError
    from pi_memory import paths

    root = paths.project_root(cwd)
    loaded = load_config(cwd, env, home=paths.home_dir(env), project_root=root)
    if loaded.errors:
        raise ConfigError("memory.json: " + "; ".join(loaded.errors))
    cfg = loaded.config
    if cfg.layout == CATEGORIES:
        dirs = {USER: Path(cfg.auto_dir), PROJECT: root / ".pi" / "agent" / "memory-auto"}
        name = root.name or str(root)
    else:
        memory_dir = Path(cfg.memory_dir)
        dirs = {USER: memory_dir / "user", PROJECT: paths.project_memory_dir(memory_dir, cwd)}
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
    )


def open_store(cwd: Path | None = None, env: Mapping[str, str] | None = None) -> Store:
    return Store(load_settings(cwd or Path(os.getcwd()), os.environ if env is None else env))
