"""The configuration files, found, read and merged: the effective settings of a process.

Sources, later ones winning:

1. the built-in defaults (pi-memory's configuration table plus ours);
2. the user file ``~/.pi/agent/memory.json``;
3. ``<project root>/.pi/memory.json``, only for a trusted project
   (:mod:`pi_memory.config.trust`);
4. pi-memory-auto's ``PI_MEMORY_AUTO_*`` environment variables
   (:mod:`pi_memory.config.env_overlay`).

A broken file counts as absent, with one warning line (``show`` then reports it).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from pi_memory.config.parse import parse_config
from pi_memory.config.reader import Reader
from pi_memory.config.schema import LoadedConfig
from pi_memory.config.trust import is_trusted, trusted_projects

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

USER_CONFIG: Final = Path(".pi", "agent", "memory.json")
PROJECT_CONFIG: Final = Path(".pi", "memory.json")


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``; objects merge key by key, anything else replaces."""
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        if isinstance(below, Mapping) and isinstance(value, Mapping):
            merged[key] = deep_merge(below, value)
        else:
            merged[key] = value
    return merged


def read_json_object(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    """The JSON object in ``path``; ``None`` when absent or unusable.

    A file that cannot be read, is not JSON or holds no object counts as ``{}``
    (pi-memory): the defaults apply, with one warning line.
    """
    import json

    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        warnings.append(f"{path}: cannot be read ({err}); using the defaults")
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        warnings.append(
            f"{path}: invalid JSON at line {err.lineno} column {err.colno} ({err.msg}); "
            "using the defaults"
        )
        return None
    if not isinstance(data, dict):
        warnings.append(f"{path}: must hold a JSON object; using the defaults")
        return None
    return data


def load_for(cwd: Path, env: Mapping[str, str]) -> LoadedConfig:
    """:func:`load_config` for a process started in ``cwd``: ``env``'s home, the git top level."""
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.home import home_dir

    return load_config(cwd, env, home=home_dir(env), project_root=project_root(cwd))


def load_config(
    cwd: Path,
    env: Mapping[str, str],
    *,
    home: Path | None = None,
    platform: str = sys.platform,
    project_root: Path | None = None,
) -> LoadedConfig:
    """The effective configuration for a process started in ``cwd``.

    ``project_root`` (default ``cwd``) is where ``.pi/memory.json`` is looked for;
    it is read only when the user file's ``trustedProjects`` lists that root, and
    a project file can never extend ``trustedProjects`` itself.
    """
    home_dir = str(home if home is not None else Path.home())
    root = str(project_root if project_root is not None else cwd)
    errors: list[str] = []
    warnings: list[str] = []
    sources: list[str] = []

    user_path = Path(home_dir) / USER_CONFIG
    user = read_json_object(user_path, warnings) or {}
    if user_path.is_file():
        sources.append(str(user_path))
    trusted_roots = trusted_projects(Reader(user))
    merged: dict[str, Any] = user

    project_path = Path(root) / PROJECT_CONFIG
    if project_path.is_file():
        if is_trusted(root, trusted_roots, home_dir, platform):
            project = read_json_object(project_path, warnings) or {}
            project.pop("trustedProjects", None)
            merged = deep_merge(user, project)
            sources.append(str(project_path))
        else:
            warnings.append(
                f'{project_path} ignored: add {root!r} to "trustedProjects" in {user_path} '
                "to use it"
            )

    loaded = parse_config(merged, cwd=str(cwd), home=home_dir, platform=platform, env=env)
    return LoadedConfig(
        loaded.config,
        tuple(errors) + loaded.errors,
        tuple(warnings) + loaded.warnings,
        tuple(sources),
    )
