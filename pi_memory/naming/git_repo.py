"""Finding the git work tree of a directory by reading ``.git``, without a ``git`` process."""

from __future__ import annotations

import os
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

__all__ = ["GitRepo", "find_git_repo", "head_commit", "project_root", "remembered"]


class GitRepo(NamedTuple):
    """A work tree found by walking up from a directory."""

    #: The work tree's top level.
    toplevel: Path
    #: The repository directory of this work tree (``.git``, or a worktree's private one).
    git_dir: Path
    #: The directory shared by all worktrees, which holds ``config``.
    common_dir: Path


def _is_git_directory(path: Path) -> bool:
    return (path / "HEAD").is_file() and (
        (path / "objects").is_dir() or (path / "commondir").is_file()
    )


def _read_gitfile(path: Path) -> Path | None:
    """The ``gitdir:`` target of a ``.git`` file (worktrees, submodules)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("gitdir: "):
        return None
    target = Path(text[len("gitdir: ") :].strip())
    return target if target.is_absolute() else path.parent / target


def _common_dir(git_dir: Path) -> Path:
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return git_dir
    if not text:
        return git_dir
    common = Path(text)
    return common if common.is_absolute() else Path(os.path.normpath(git_dir / common))


#: The work trees found while :class:`remembered` is in force, by the directory asked
#: about (``None`` while it is not: every call walks up again).
_FOUND: dict[str, GitRepo | None] | None = None


class remembered:
    """``with remembered():`` each directory's work tree is looked up once inside the
    block (one write asks about the same directory about seven times: the configuration,
    the layer directories, the trust, the anchors, the note); nothing is kept after it.
    For one command's span, while nothing it looks at makes or moves a ``.git``."""

    def __enter__(self) -> None:
        global _FOUND  # noqa: PLW0603 - the block's own table, dropped on the way out
        self._outer = _FOUND
        if _FOUND is None:
            _FOUND = {}

    def __exit__(self, *exc: object) -> None:
        global _FOUND  # noqa: PLW0603
        _FOUND = self._outer


def find_git_repo(cwd: Path) -> GitRepo | None:
    """The work tree containing ``cwd``, like ``git rev-parse --show-toplevel``.

    None when ``cwd`` is not in a work tree: no ``.git`` above it, a broken
    ``.git`` file, or ``cwd`` inside a repository directory (a bare repository
    or ``.git`` itself), where git itself refuses to name a top level.
    """
    if _FOUND is None:
        return _walk_up(cwd)
    key = os.fspath(cwd)
    if key not in _FOUND:
        _FOUND[key] = _walk_up(cwd)
    return _FOUND[key]


def _walk_up(cwd: Path) -> GitRepo | None:
    start = Path(os.path.realpath(cwd))
    if not start.is_dir():
        return None
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if dot_git.is_file():
            git_dir = _read_gitfile(dot_git)
            if git_dir is None or not _is_git_directory(git_dir):
                return None
            return GitRepo(directory, git_dir, _common_dir(git_dir))
        if dot_git.is_dir() and _is_git_directory(dot_git):
            return GitRepo(directory, dot_git, _common_dir(dot_git))
        if _is_git_directory(directory):
            return None
    return None


def project_root(cwd: Path) -> Path:
    """The git top level of ``cwd``, else ``cwd`` itself (resolved)."""
    repo = find_git_repo(cwd)
    return repo.toplevel if repo is not None else Path(os.path.realpath(cwd))


def head_files(repo: GitRepo) -> list[Path]:
    """The files :func:`head_commit` reads, or would read had they been there: a change
    to ``HEAD`` changes one of them."""
    files = [repo.git_dir / "HEAD", repo.common_dir / "packed-refs"]
    try:
        text = (repo.git_dir / "HEAD").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return files
    if text.startswith("ref: "):
        ref = text[5:].strip()
        files += [repo.git_dir / ref, repo.common_dir / ref]
    return files


def head_commit(repo: GitRepo) -> str:
    """The commit ``HEAD`` names, read from the files git keeps it in (a detached id, a
    loose ref, or ``packed-refs``); "" when it cannot be read that way (no commit yet)."""
    try:
        text = (repo.git_dir / "HEAD").read_text("utf-8").strip()
        if not text.startswith("ref: "):
            return text
        ref = text[5:].strip()
        for base in (repo.git_dir, repo.common_dir):
            loose = base / ref
            if loose.is_file():
                return loose.read_text("utf-8").strip()
        packed = (repo.common_dir / "packed-refs").read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name.strip() == ref:
            return sha
    return ""
