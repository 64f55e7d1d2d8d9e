"""Which projects may configure pi_memory: only those the user file lists in ``trustedProjects``.

A cloned repository must never be able to redirect ``memoryDir``, models or
providers on its own, so ``<project root>/.pi/memory.json`` is read only for a
root the user's own ``~/.pi/agent/memory.json`` names (and a project file can
never extend ``trustedProjects`` itself).
"""

from __future__ import annotations

import os

from pi_memory.config.reader import Reader, resolve_path


def trusted_projects(reader: Reader) -> tuple[str, ...]:
    """The user file's ``trustedProjects``, as written (a wrong type is an error)."""
    value = reader.get("trustedProjects")
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        reader.errors.append('"trustedProjects" must be a list of paths; ignored')
        return ()
    return tuple(value)


def _same_dir(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def is_trusted(project_root: str, trusted: tuple[str, ...], home: str, platform: str) -> bool:
    """Whether the user file lists ``project_root`` (tilde expanded, symlinks resolved)."""
    from pi_memory.naming.home import expand_tilde

    return any(
        _same_dir(project_root, resolve_path(entry, project_root, home, platform))
        for entry in trusted
        if os.path.isabs(expand_tilde(entry, home, platform))
    )
