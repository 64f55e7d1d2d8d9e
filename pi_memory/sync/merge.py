"""Merging two copies of a layer, by the layout's own rules, in a scratch worktree.

git merges the two commits with the rules the layout declares in the layer's
``.gitattributes`` (:attr:`~pi_memory.layouts.protocol.LayerStore.merge_rules`):
the categories layout's rows by union (a row twice folds into one on read), the
files layout's memories file by file and its index lines by union. What git
still cannot merge is settled here so that no memory is lost:

- a memory changed on both machines (a conflict in the files layout; in the
  categories layout, a text the union ran together from both versions): this
  machine's version stays where it was and the other one is added beside it as
  a memory of its own, with a new id (the files layout names it after the
  memory, with the id appended);
- changed on one machine and deleted on the other: the changed one stays.

Each such memory is named in :attr:`Merged.kept_both`, to be said. The scratch
worktree lives in a temporary directory and is removed whatever happens; the
layer itself is not touched here.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import datetime
from pathlib import Path

from pi_memory.named_tuple import NamedTuple
from pi_memory.sync.git import Git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from pi_memory.entry import Entry
    from pi_memory.layouts.protocol import LayerStore

__all__ = ["Merged", "merge_commits"]


class Merged(NamedTuple):
    #: The merge commit.
    commit: str
    #: One line per conflict settled by keeping both versions (or the changed one).
    kept_both: tuple[str, ...]


class _Layer(NamedTuple):
    """How to open the layer's layout over a directory."""

    layout: str
    layer: str

    def open(self, directory: Path) -> LayerStore:
        from pi_memory.layouts import open_layer

        return open_layer(self.layout, self.layer, directory)


def merge_commits(
    git: Git,
    ours: str,
    theirs: str,
    *,
    layout: str,
    layer: str,
    identity: Mapping[str, str],
    message: str,
) -> Merged:
    """The commit that merges ``theirs`` into ``ours``, made in a scratch worktree."""
    scratch = Path(tempfile.mkdtemp(prefix="pi-memory-sync-"))
    work = scratch / "merge"
    git.run("worktree", "add", "-q", "--detach", str(work), ours)
    try:
        here = Git(work, git.env)
        merged = here.run(
            "merge",
            "-q",
            "--no-commit",
            "--no-ff",
            "--allow-unrelated-histories",
            theirs,
            check=False,
            extra=identity,
        )
        kinds = _Layer(layout, layer)
        kept = _settle(here, kinds) if merged.returncode != 0 else []
        kept += _run_together(here, kinds, ours, theirs)
        opened = kinds.open(work)
        kept += _twice(opened.read())
        if kept:
            # Both sides' lines of one memory met in the index: it is written afresh.
            opened.rebuild_index(opened.read(), {})
        else:
            opened.refresh_index(opened.read(), {})  # a derived index follows the rows
        here.run("add", "-A")
        here.run("commit", "-q", "--no-verify", "-m", message, extra=identity)
        return Merged(here.out("rev-parse", "HEAD"), tuple(kept))
    finally:
        git.run("worktree", "remove", "--force", str(work), check=False)
        shutil.rmtree(scratch, ignore_errors=True)
        git.run("worktree", "prune", check=False)


def _entries_at(git: Git, commit: str, layer: _Layer) -> dict[str, Entry]:
    """The memories of the layer as ``commit`` has it, by id (read from a scratch copy)."""
    scratch = Path(tempfile.mkdtemp(prefix="pi-memory-sync-"))
    try:
        index = {"GIT_INDEX_FILE": str(scratch / "index")}
        git.run("read-tree", commit, extra=index)
        git.run("checkout-index", "-a", f"--prefix={scratch / 'tree'}/", extra=index)
        return {entry.id: entry for entry in layer.open(scratch / "tree").read()}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_together(git: Git, layer: _Layer, ours: str, theirs: str) -> list[str]:
    """Memories whose text both machines changed, which a union merge ran together into
    one text: this machine's text is put back, the other's added as a memory beside it."""
    mine, other = _entries_at(git, ours, layer), _entries_at(git, theirs, layer)
    target = layer.open(git.directory)
    mixed = [
        entry
        for entry in target.read()
        if entry.id in mine
        and entry.id in other
        and entry.body not in (mine[entry.id].body, other[entry.id].body)
    ]
    if not mixed:
        return []
    target.update([entry._replace(body=mine[entry.id].body) for entry in mixed])
    git.run("add", "-A")
    return _add_entries(target, [other[entry.id] for entry in mixed])


def _twice(entries: list[Entry]) -> list[str]:
    """The ids a union merge left with two different versions (both are kept as rows)."""
    seen: dict[str, int] = {}
    for entry in entries:
        seen[entry.id] = seen.get(entry.id, 0) + 1
    return [
        f"[{memory}] was changed on both machines: both versions are kept, under one id"
        for memory, count in seen.items()
        if count > 1
    ]


def _stage(git: Git, number: int, path: str) -> str | None:
    """The text of ``path`` in one side of the merge (2: ours, 3: theirs), or None."""
    done = git.run("show", f":{number}:{path}", check=False)
    return done.stdout if done.returncode == 0 else None


def _settle(git: Git, layer: _Layer) -> list[str]:
    """Settle every path git left unmerged; one line for each memory kept twice."""
    listed = git.out("diff", "--name-only", "--diff-filter=U", "-z")
    paths = [p for p in listed.split("\0") if p]
    lines: list[str] = []
    theirs_only: list[tuple[str, str]] = []
    for path in paths:
        ours, theirs = _stage(git, 2, path), _stage(git, 3, path)
        kept = ours if ours is not None else theirs
        target = git.directory / path
        if kept is None:
            git.run("rm", "-q", "--cached", "--ignore-unmatch", "--", path)
            target.unlink(missing_ok=True)
            continue
        target.write_text(kept, "utf-8", "surrogateescape")
        git.run("add", "--", path)
        if ours is None or theirs is None:
            lines.append(f"{path}: changed on one machine, deleted on the other: kept")
        elif ours != theirs:
            theirs_only.append((path, theirs))
    lines += _add_theirs(git.directory, layer, theirs_only)
    return lines


def _entries_of(layer: _Layer, path: str, text: str) -> list[Entry]:
    """The memories one file's text holds, read by the layout from a scratch copy."""
    scratch = Path(tempfile.mkdtemp(prefix="pi-memory-sync-"))
    try:
        (scratch / Path(path).name).write_text(text, "utf-8", "surrogateescape")
        return layer.open(scratch).read()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _add_theirs(work: Path, layer: _Layer, files: list[tuple[str, str]]) -> list[str]:
    """Add the other machine's version of each memory both changed, as a memory of its own."""
    if not files:
        return []
    target = layer.open(work)
    mine = {(e.id, e.body) for e in target.read()}
    theirs = [e for path, text in files for e in _entries_of(layer, path, text)]
    return _add_entries(target, [e for e in theirs if (e.id, e.body) not in mine])


def _add_entries(target: LayerStore, entries: list[Entry]) -> list[str]:
    """Store each of ``entries`` as a new memory (a new id); one line each."""
    from pi_memory.entry import new_id

    taken = {e.id for e in target.read()}
    lines: list[str] = []
    for entry in entries:
        fresh = new_id(datetime.now(), taken)
        taken.add(fresh)
        stored = target.append(entry._replace(id=fresh))
        lines.append(
            f"[{entry.id}] was changed on both machines: both versions are kept, "
            f"the other machine's as [{stored.id}] in {stored.file}"
        )
    return lines
