"""Project identity: which memory directory a working directory belongs to.

The ``files`` layout (pi-memory) keeps a project's memories in
``<memoryDir>/git/<host__owner__repo>/`` for a git repository with a usable
remote and ``<memoryDir>/local/<path key>/`` otherwise. The remote comes from
the raw git config: ``origin`` first, then the other remotes in code-unit
order, first usable wins.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.dir_names import project_dir_name
from pi_memory.naming.git_config import read_remotes
from pi_memory.naming.git_repo import find_git_repo
from pi_memory.naming.platforms import WIN32, current_platform
from pi_memory.naming.remote_url import normalize_remote_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final

__all__ = [
    "GIT",
    "LOCAL",
    "ProjectKey",
    "assert_inside_root",
    "identify_project",
    "memory_dir_relative",
    "order_remotes",
    "project_key",
    "project_memory_dir",
    "resolve_memory_dir",
]

GIT: Final = "git"
LOCAL: Final = "local"


class ProjectKey(NamedTuple):
    """Which memory directory a working directory belongs to."""

    #: ``git`` (named after the remote) or ``local`` (named after a path).
    kind: str
    #: ``host/owner/repo`` for git, the absolute project root for local.
    key: str
    #: The git top level, or the working directory when it is not in a work tree.
    root: Path


def _utf16_order(name: str) -> bytes:
    # JavaScript compares strings by UTF-16 code units; big-endian UTF-16 bytes sort the same.
    return name.encode("utf-16-be", "surrogatepass")


def order_remotes(remotes: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """One URL per remote (the first), ``origin`` first, then the rest in code-unit order."""
    first: dict[str, str] = {}
    for name, raw_url in remotes:
        url = raw_url.strip()
        if name and url and name not in first:
            first[name] = url
    return sorted(first.items(), key=lambda item: (item[0] != "origin", _utf16_order(item[0])))


def identify_project(
    cwd: str, toplevel: str | None, remotes: Sequence[tuple[str, str]], platform: str
) -> ProjectKey:
    """The project identity from what git knows: its top level (None outside a work tree)."""
    if toplevel is None:
        return ProjectKey(LOCAL, cwd, Path(cwd))
    for _name, url in order_remotes(remotes):
        key = normalize_remote_url(url, platform)
        if key is not None:
            return ProjectKey(GIT, key, Path(toplevel))
    return ProjectKey(LOCAL, toplevel, Path(toplevel))


def memory_dir_relative(identity: ProjectKey, platform: str) -> str:
    """``git/<name>`` or ``local/<name>``: the project's directory below memoryDir."""
    return f"{identity.kind}/{project_dir_name(identity.key, platform)}"


def _path_parts(path: str, platform: str) -> list[str]:
    import ntpath
    import posixpath

    if platform == WIN32:
        drive, rest = ntpath.splitdrive(ntpath.normpath(path))
        parts = [drive.replace("/", "\\").lower()]
        parts += [p.lower() for p in re.split(r"[\\/]", rest) if p]
        return parts
    return [p for p in posixpath.normpath(path).split("/") if p]


def assert_inside_root(base: str, directory: str, platform: str) -> None:
    """Refuse a project directory that is not strictly below the memory directory.

    A derived name that held a separator would become several path levels,
    and a ``..`` among them could leave memoryDir; fail closed instead of
    writing somewhere else. On win32 the comparison ignores case, as Windows does.
    """
    from pi_memory.errors import ConfigError

    base_parts = _path_parts(base, platform)
    dir_parts = _path_parts(directory, platform)
    if len(dir_parts) <= len(base_parts) or dir_parts[: len(base_parts)] != base_parts:
        raise ConfigError(f"Refusing to use memory directory {directory}: it escapes {base}")


def resolve_memory_dir(memory_dir: str, identity: ProjectKey, platform: str) -> str:
    """``<memoryDir>/<kind>/<name>``, checked to stay inside memoryDir (pure)."""
    import ntpath
    import posixpath

    pathmod = ntpath if platform == WIN32 else posixpath
    base = str(pathmod.normpath(memory_dir))
    directory = str(pathmod.join(base, identity.kind, project_dir_name(identity.key, platform)))
    assert_inside_root(base, directory, platform)
    return directory


def project_key(cwd: Path, platform: str | None = None) -> ProjectKey:
    """The identity of the project ``cwd`` belongs to (reads ``.git`` and its config)."""
    platform = platform or current_platform()
    repo = find_git_repo(cwd)
    if repo is None:
        return identify_project(str(Path(os.path.realpath(cwd))), None, (), platform)
    return identify_project(str(repo.toplevel), str(repo.toplevel), read_remotes(repo), platform)


def project_memory_dir(memory_dir: Path, cwd: Path) -> Path:
    """``<memoryDir>/git/<name>`` or ``<memoryDir>/local/<name>`` for the project at ``cwd``.

    Raises :class:`~pi_memory.errors.ConfigError` for a directory that would
    not lie strictly inside ``memory_dir``.
    """
    platform = current_platform()
    base = os.path.abspath(memory_dir)
    return Path(resolve_memory_dir(base, project_key(cwd, platform), platform))
