"""One ``sync`` of a layer: fetch, merge under the layer's lock, push, then change the layer.

The layer directory is the work tree of its own git repository (made by the
first ``sync --remote URL``, which remembers the remote as ``origin``; a layer
that already holds memories keeps them and adds them to the remote's). One
branch, ``main``, on both sides.

Nothing the layer's users read changes until the remote took the result:

1. fetch the remote's ``main`` (a remote that cannot be reached fails here);
2. under the layer's lock, commit what the layer holds now, without touching
   its files or branch (a commit of its own, through a scratch index), and
   merge the remote's into it (:mod:`pi_memory.sync.merge`), in a scratch
   worktree;
3. push the merge (a rejected push fails here: the layer is as it was);
4. under the lock again, move the layer's files and branch to the merge, if
   nothing was written meanwhile (else the merge comes with the next sync).
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

from pi_memory.errors import UsageError
from pi_memory.named_tuple import NamedTuple
from pi_memory.sync.git import Git, GitFailed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.store import Store

__all__ = ["BRANCH", "SyncReport", "sync_layer"]

BRANCH: Final = "main"
REMOTE: Final = "origin"
_TRACKING: Final = f"refs/remotes/{REMOTE}/{BRANCH}"
_SCRATCH_INDEX: Final = "pi-memory-sync.index"


class SyncReport(NamedTuple):
    remote: str
    #: Memories that arrived from the remote.
    arrived: int
    #: The remote got this layer's new memories.
    pushed: bool
    #: One line for each conflict settled by keeping both versions.
    kept_both: tuple[str, ...] = ()
    #: What did not happen although the remote is up to date ("" when everything did).
    note: str = ""


def sync_layer(store: Store, layer: str, remote: str | None) -> SyncReport:
    """Sync ``layer`` of ``store`` with ``remote`` (the first time) or the remembered one."""
    directory = store.directory(layer)
    fresh = not (directory / ".git").exists()
    if fresh and not remote:
        raise UsageError("this layer has no remote yet: run sync --remote URL once")
    made_directory = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    git = Git(directory, _isolated(directory))
    url = remote or _remembered(git)
    if fresh:
        git.run("init", "-q")
        git.run("symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
    try:
        _fetch(git, url)
    except GitFailed:
        if fresh:
            shutil.rmtree(directory / ".git", ignore_errors=True)
        if made_directory:
            _remove_if_empty(directory)
        raise
    _remember(git, url)
    _exclude(git)
    before = {entry.id for entry in store.layer(layer).read()}
    with store.lock(layer, "sync"):
        local = _snapshot(git, store, layer)
        merged, kept = _merged(git, store, layer, local)
    theirs = _rev(git, _TRACKING)
    if merged != theirs:
        _push(git, url, merged)
        git.run("update-ref", _TRACKING, merged)
    with store.lock(layer, "sync"):
        note = _apply(git, store, layer, local, merged)
    after = {entry.id for entry in store.layer(layer).read()}
    return SyncReport(url, len(after - before), merged != theirs, kept, note)


def _isolated(directory: Path) -> dict[str, str]:
    """The environment for the layer's repository: git looks no higher than the layer
    (a home kept in git is another repository)."""
    return {**os.environ, "GIT_CEILING_DIRECTORIES": str(directory.parent)}


def _remove_if_empty(directory: Path) -> None:
    try:
        directory.rmdir()
    except OSError:
        pass


def _remembered(git: Git) -> str:
    done = git.run("config", "--get", f"remote.{REMOTE}.url", check=False)
    url = done.stdout.strip()
    if done.returncode != 0 or not url:
        raise UsageError("this layer has no remote yet: run sync --remote URL once")
    return url


def _remember(git: Git, url: str) -> None:
    if git.ok("config", "--get", f"remote.{REMOTE}.url"):
        git.run("remote", "set-url", REMOTE, url)
    else:
        git.run("remote", "add", REMOTE, url)


def _fetch(git: Git, url: str) -> None:
    """The remote's ``main`` as ``origin/main`` (an empty remote has none yet)."""
    refspec = f"+refs/heads/*:refs/remotes/{REMOTE}/*"
    git.run("fetch", "-q", "--prune", "--no-tags", url, refspec, network=True)


def _exclude(git: Git) -> None:
    """What never travels, whatever the layer's own ``.gitignore`` says or lacks."""
    from pi_memory.fs.layer_gitignore import NEVER_COMMITTED, SYNC_TEXT

    info = Path(git.out("rev-parse", "--git-dir"))
    path = (git.directory / info if not info.is_absolute() else info) / "info" / "exclude"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = NEVER_COMMITTED + SYNC_TEXT
    if not path.exists() or path.read_text("utf-8", "replace") != text:
        path.write_text(text, "utf-8")


def _rev(git: Git, ref: str) -> str | None:
    done = git.run("rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
    return done.stdout.strip() if done.returncode == 0 else None


def _identity(git: Git) -> dict[str, str]:
    """Who the sync's commits are by: the user's git identity, or this machine's name."""
    if git.ok("var", "GIT_AUTHOR_IDENT") and git.ok("var", "GIT_COMMITTER_IDENT"):
        return {}
    host = socket.gethostname() or "localhost"
    name, email = f"pi_memory on {host}", f"pi_memory@{host}"
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }


def _tree_now(git: Git, store: Store, layer: str) -> str:
    """The tree of what the layer holds now (its rules files added when it has none),
    written through a scratch index: the layer's own index and branch stay as they are."""
    from pi_memory.fs.layer_gitignore import NAME, SYNC_TEXT

    index = Path(git.out("rev-parse", "--absolute-git-dir")) / _SCRATCH_INDEX
    scratch = {"GIT_INDEX_FILE": str(index)}
    try:
        git.run("read-tree", _rev(git, "HEAD") or "--empty", extra=scratch)
        git.run("add", "-A", extra=scratch)
        rules = {NAME: SYNC_TEXT, ".gitattributes": store.layer(layer).merge_rules}
        for name, text in rules.items():
            if not (git.directory / name).exists():
                blob = git.run("hash-object", "-w", "--stdin", stdin=text).stdout.strip()
                entry = f"100644,{blob},{name}"
                git.run("update-index", "--add", "--cacheinfo", entry, extra=scratch)
        return git.out("write-tree", extra=scratch)
    finally:
        index.unlink(missing_ok=True)


def _snapshot(git: Git, store: Store, layer: str) -> str:
    """A commit of what the layer holds now, on top of its branch (the branch itself if
    nothing changed); the branch is not moved."""
    tree = _tree_now(git, store, layer)
    head = _rev(git, "HEAD")
    if head is not None and git.out("rev-parse", f"{head}^{{tree}}") == tree:
        return head
    parents = ["-p", head] if head else []
    message = f"pi_memory sync from {socket.gethostname() or 'this machine'}"
    return git.out("commit-tree", tree, *parents, "-m", message, extra=_identity(git))


def _merged(git: Git, store: Store, layer: str, local: str) -> tuple[str, tuple[str, ...]]:
    """``local`` with the remote's branch merged in, and the conflicts kept both ways."""
    theirs = _rev(git, _TRACKING)
    if theirs is None or git.ok("merge-base", "--is-ancestor", theirs, local):
        return local, ()
    if git.ok("merge-base", "--is-ancestor", local, theirs):
        return theirs, ()
    from pi_memory.sync.merge import merge_commits

    done = merge_commits(
        git,
        local,
        theirs,
        layout=store.settings.layout,
        layer=layer,
        identity=_identity(git),
        message=f"pi_memory sync: merge on {socket.gethostname() or 'this machine'}",
    )
    return done.commit, done.kept_both


def _push(git: Git, url: str, commit: str) -> None:
    refspec = f"{commit}:refs/heads/{BRANCH}"
    done = git.run("push", "-q", "--no-verify", url, refspec, network=True, check=False)
    if done.returncode == 0:
        return
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    reason = next((line for line in lines if "rejected" in line), lines[-1] if lines else "")
    raise GitFailed(f"the remote refused the push, nothing was changed here: {reason}")


def _apply(git: Git, store: Store, layer: str, local: str, merged: str) -> str:
    """Move the layer's branch and files to ``merged``. When the layer changed since
    ``local`` was taken (a write while the push ran), the branch moves to ``local`` only
    and the files stay: the next sync merges the rest."""
    tree = _tree_now(git, store, layer)
    unchanged = tree == git.out("rev-parse", f"{local}^{{tree}}")
    target = merged if unchanged else local
    git.run("symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
    git.run("update-ref", f"refs/heads/{BRANCH}", target)
    git.run("read-tree", local)
    if not unchanged:
        return "the layer changed while syncing: what arrived is merged by the next sync"
    git.run("read-tree", "--reset", "-u", target)
    git.run("checkout-index", "-a", "-q")  # the rules files the layer lacked
    return ""
