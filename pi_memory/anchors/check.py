"""Suspect, not stale: whether the code a memory is anchored to changed since.

:func:`judge` is the rule, a pure function over one anchor and the project as
it is now; :func:`check` gathers the project's state once for a whole layer
(one ``ls-tree`` for every anchored path, one ``cat-file`` for the files that
changed and hold an anchored name) and judges each memory.

Verdicts: ``fresh`` (every anchored file as it was, every anchored name still
in its file), ``suspect`` (with what changed, in a few words), and ``unknown``
when the project cannot answer (no git where the anchor came from git, no
commit, a file unreadable): an unknown memory is judged by time alone, as a
memory without anchors is.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pi_memory.anchors.project import GIT
from pi_memory.anchors.record import Anchor
from pi_memory.anchors.verdict import FRESH, SUSPECT, UNKNOWN, Verdict
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["FRESH", "SUSPECT", "UNKNOWN", "Now", "Verdict", "check", "judge"]

#: What one verdict says at most: the first reasons, then how many more.
MAX_REASONS: Final = 2


class Now(NamedTuple):
    """The project as the check found it."""

    #: ``HEAD``'s commit, "" outside git (or without a commit).
    head: str
    #: Path → blob id now (missing: not a file now); ``None``: could not be read at all.
    blobs: Mapping[str, str] | None
    #: Blob id → content, for the changed files that hold an anchored name.
    contents: Mapping[str, bytes]
    #: Why the project could not answer ("" when it could).
    problem: str = ""


def judge(anchor: Anchor, now: Now) -> Verdict:
    """The verdict on one anchored memory."""
    from pi_memory.anchors.project import has_word

    if now.blobs is None:
        return Verdict(UNKNOWN, now.problem or "the project's files could not be read")
    reasons: list[str] = []
    for path, blob in anchor.found.paths:
        current = now.blobs.get(path)
        if current is None:
            reasons.append(f"{path} deleted or renamed since")
        elif current != blob:
            reasons.append(f"{path} changed since")
    anchored = {path for path, _ in anchor.found.paths}
    for name, path, blob in anchor.found.names:
        current = now.blobs.get(path)
        if current == blob:
            continue
        if current is None:
            if path not in anchored:
                reasons.append(f"{name}: {path} deleted or renamed since")
            continue
        content = now.contents.get(current)
        if content is None:
            continue  # not read: the name cannot be judged
        if not has_word(content, name):
            reasons.append(f"{name} no longer in {path}")
    if not reasons:
        return Verdict(FRESH)
    more = len(reasons) - MAX_REASONS
    said = "; ".join(reasons[:MAX_REASONS]) + (f"; {more} more" if more > 0 else "")
    return Verdict(SUSPECT, said)


def check(root: Path, anchors: Mapping[str, Anchor]) -> tuple[str, dict[str, Verdict]]:
    """``HEAD`` (or "") and the verdict on every anchored memory of a layer."""
    by_git = {k: a for k, a in anchors.items() if a.found.via == GIT}
    on_disk = {k: a for k, a in anchors.items() if a.found.via != GIT}
    verdicts: dict[str, Verdict] = {}
    head = ""
    if by_git:
        now = _git_now(root, by_git)
        head = now.head
        verdicts.update((k, judge(a, now)) for k, a in by_git.items())
    if on_disk:
        now = _disk_now(root, on_disk)
        verdicts.update((k, judge(a, now)) for k, a in on_disk.items())
    return head, verdicts


def _files(anchors: Mapping[str, Anchor]) -> list[str]:
    found = [p for a in anchors.values() for p, _ in a.found.paths]
    found += [p for a in anchors.values() for _, p, _ in a.found.names]
    return list(dict.fromkeys(found))


def _git_now(root: Path, anchors: Mapping[str, Anchor]) -> Now:
    from pi_memory.anchors.project import blob_contents, head, in_work_tree, tree_blobs

    if not in_work_tree(root):
        return Now("", None, {}, "anchored in git, and this is no git work tree now")
    commit = head(root)
    if commit is None:
        return Now("", None, {}, "git cannot name the current commit")
    blobs = tree_blobs(root, commit, _files(anchors))
    if blobs is None:
        return Now(commit, None, {}, "git could not list the anchored files")
    changed = {
        blobs[p]
        for a in anchors.values()
        for _, p, b in a.found.names
        if p in blobs and blobs[p] != b
    }
    return Now(commit, blobs, blob_contents(root, changed))


def _disk_now(root: Path, anchors: Mapping[str, Anchor]) -> Now:
    from pi_memory.anchors.project import blob_id, read_file

    blobs: dict[str, str] = {}
    contents: dict[str, bytes] = {}
    for path in _files(anchors):
        data = read_file(root, path)
        if data is not None:
            blobs[path] = blob_id(data)
            contents[blobs[path]] = data
    return Now("", blobs, contents)
