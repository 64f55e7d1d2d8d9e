"""What exists in the project: its files and their contents, through git or the disk.

Inside a git work tree with a commit, a path is a file of ``HEAD``'s tree and its
content is git's blob id there (so only a commit changes it, and a rebase that
keeps the file's content keeps the id); elsewhere (no git, no commit yet) it is
a regular file under the project root, its content the same blob id computed
from the bytes. Every git call is bounded in time and a failure is an answer
("cannot say"), never an error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from pi_memory.anchors.mentions import MAX_NAMES, MAX_PATHS, Mentions
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

GIT: Final = "git"
DISK: Final = "disk"
#: Seconds one git call may take before its answer counts as none.
GIT_SECONDS: Final = 2.0
#: Seconds the code-name lookup of one write may take (it reads the whole tree).
NAMES_SECONDS: Final = 0.5
#: A file larger than this is not hashed outside git.
MAX_FILE_BYTES: Final = 4 * 1024 * 1024
#: Paths per git command line.
CHUNK: Final = 200


class Found(NamedTuple):
    """What a memory is anchored to, as the project is now."""

    via: str
    #: The commit the blob ids are from ("" outside git).
    commit: str
    #: (path, blob id), at most :data:`MAX_PATHS`.
    paths: tuple[tuple[str, str], ...]
    #: (name, path of a file holding it, that file's blob id), at most :data:`MAX_NAMES`.
    names: tuple[tuple[str, str, str], ...]


def git(
    root: Path, args: Sequence[str], stdin: bytes = b"", seconds: float = GIT_SECONDS
) -> bytes | None:
    """``git -C root ARGS``'s output, ``None`` when git is missing, fails or is too slow."""
    import subprocess  # here: a turn's end reads this module, and seldom runs git

    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        done = subprocess.run(
            [GIT, "-C", str(root), *args],
            input=stdin,
            capture_output=True,
            timeout=seconds,
            env=env,
            check=False,
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def head(root: Path) -> str | None:
    """The commit ``HEAD`` names, ``None`` without git, a work tree or a commit."""
    out = git(root, ["rev-parse", "--verify", "-q", "HEAD^{commit}"])
    text = out.decode("ascii", "replace").strip() if out else ""
    return text if re.fullmatch(r"[0-9a-f]{40,64}", text) else None


def _head_read(root: Path) -> str | None:
    """``HEAD``'s commit as git keeps it in its files (no process); ``None`` when it
    cannot be read that way."""
    from pi_memory.naming.git_repo import find_git_repo, head_commit

    repo = find_git_repo(root)
    text = head_commit(repo) if repo is not None else ""
    return text if re.fullmatch(r"[0-9a-f]{40,64}", text) else None


def in_work_tree(root: Path) -> bool:
    from pi_memory.naming.git_repo import find_git_repo

    found = find_git_repo(root)
    return found is not None and Path(os.path.realpath(root)) == Path(found.toplevel)


def find(root: Path, wanted: Mentions, exclude: str = "") -> Found | None:
    """What of ``wanted`` exists in the project at ``root`` now; ``exclude`` is a
    directory relative to ``root`` (the memory layer's own) whose files never count.
    ``None`` when nothing does."""
    if not wanted.paths and not wanted.names:
        return None  # prose: no git to run
    commit = (_head_read(root) or head(root)) if in_work_tree(root) else None
    if commit is not None:
        found = _in_git(root, commit, wanted, exclude)
    else:
        found = _on_disk(root, wanted, exclude)
    return found if found is not None and (found.paths or found.names) else None


def _in_git(root: Path, commit: str, wanted: Mentions, exclude: str) -> Found | None:
    tracked = _tracked(root, wanted.paths, exclude)
    if tracked is None:
        return None
    names = _names_in_tree(root, commit, wanted.names, exclude)
    blobs = tree_blobs(root, commit, [*tracked, *(path for _, path in names)])
    if blobs is None:
        return None
    paths = tuple((p, blobs[p]) for p in tracked if p in blobs)[:MAX_PATHS]
    held = tuple((n, p, blobs[p]) for n, p in names if p in blobs)[:MAX_NAMES]
    return Found(GIT, commit, paths, held)


def _tracked(root: Path, candidates: Sequence[str], exclude: str) -> list[str] | None:
    """The tracked files the candidates name: a path exactly, a bare file name when
    exactly one tracked file has it."""
    if not candidates:
        return []
    specs = [f":(literal){c}" if "/" in c else f":(glob)**/{c}" for c in candidates]
    out = git(root, ["ls-files", "-z", "--full-name", "--", *specs])
    if out is None:
        return None
    listed = [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]
    listed = [p for p in listed if not _inside(p, exclude)]
    exact = set(listed)
    by_name: dict[str, list[str]] = {}
    for path in listed:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    chosen: list[str] = []
    for candidate in candidates:
        if "/" in candidate:
            hit = candidate if candidate in exact else None
        else:
            same = by_name.get(candidate, [])
            hit = same[0] if len(same) == 1 else None
        if hit is not None and hit not in chosen:
            chosen.append(hit)
    return chosen


def _inside(path: str, directory: str) -> bool:
    return bool(directory) and (path == directory or path.startswith(directory + "/"))


def tree_blobs(root: Path, commit: str, paths: Iterable[str]) -> dict[str, str] | None:
    """Each of ``paths`` that is a file of ``commit``'s tree → its blob id."""
    wanted = list(dict.fromkeys(paths))
    blobs: dict[str, str] = {}
    for start in range(0, len(wanted), CHUNK):
        chunk = wanted[start : start + CHUNK]
        args = ["ls-tree", "-r", "-z", "--full-tree", commit, "--", *chunk]
        out = git(root, args)
        if out is None:
            return None
        for line in out.decode("utf-8", "surrogateescape").split("\0"):
            meta, _, path = line.partition("\t")
            fields = meta.split()
            if len(fields) == 3 and fields[1] == "blob" and path in chunk:
                blobs[path] = fields[2]
    return blobs


def _names_in_tree(
    root: Path, commit: str, names: Sequence[str], exclude: str
) -> list[tuple[str, str]]:
    """(name, the first file of ``commit`` holding it as a word), within
    :data:`NAMES_SECONDS`; a name not found in time is not anchored."""
    if not names:
        return []
    args = [GIT, "-C", str(root), "grep", "-I", "-w", "-F", "-o", "-z", "--full-name"]
    for name in names:
        args += ["-e", name]
    args += [commit, "--", "."]
    if exclude:
        args.append(f":(exclude,literal){exclude}")
    import subprocess
    import threading

    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        proc = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return []
    timer = threading.Timer(NAMES_SECONDS, proc.kill)
    timer.start()
    found: dict[str, str] = {}
    try:
        for raw in proc.stdout or ():
            where, _, match = raw.rstrip(b"\n").partition(b"\0")
            name = match.decode("utf-8", "replace")
            path = where.decode("utf-8", "surrogateescape").partition(":")[2]
            if name in names and name not in found and path:
                found[name] = path
                if len(found) == len(names):
                    break
    finally:
        timer.cancel()
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    return [(n, found[n]) for n in names if n in found]


def _on_disk(root: Path, wanted: Mentions, exclude: str) -> Found:
    """Outside git: candidates that are regular files under ``root``, their names
    looked up only in those files."""
    paths: list[tuple[str, str]] = []
    contents: dict[str, bytes] = {}
    for candidate in wanted.paths:
        if len(paths) >= MAX_PATHS or _inside(candidate, exclude):
            continue
        data = read_file(root, candidate)
        if data is not None:
            paths.append((candidate, blob_id(data)))
            contents[candidate] = data
    names: list[tuple[str, str, str]] = []
    for name in wanted.names:
        holder = next((p for p, data in contents.items() if has_word(data, name)), None)
        if holder is not None and len(names) < MAX_NAMES:
            names.append((name, holder, blob_id(contents[holder])))
    return Found(DISK, "", tuple(paths), tuple(names))


def read_file(root: Path, relative: str) -> bytes | None:
    """The bytes of the regular file ``root/relative``, if it stays inside ``root``
    and is not too large to hash; else ``None``."""
    path = root / relative
    try:
        real = os.path.realpath(path)
        base = os.path.realpath(root)
        if not real.startswith(base.rstrip(os.sep) + os.sep) or not os.path.isfile(real):
            return None
        if os.path.getsize(real) > MAX_FILE_BYTES:
            return None
        with open(real, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def blob_id(data: bytes) -> str:
    """git's blob id of ``data``: the same id outside git as inside."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324 - git's id


def has_word(data: bytes, name: str) -> bool:
    """``name`` occurs in ``data`` as a whole word."""
    pattern = rb"(?<![A-Za-z0-9_])" + re.escape(name.encode()) + rb"(?![A-Za-z0-9_])"
    return re.search(pattern, data) is not None


def blob_contents(root: Path, blobs: Iterable[str]) -> dict[str, bytes]:
    """The contents of the blobs git has, by id (one ``cat-file`` for all)."""
    wanted = list(dict.fromkeys(blobs))
    if not wanted:
        return {}
    out = git(root, ["cat-file", "--batch"], stdin="".join(f"{b}\n" for b in wanted).encode())
    found: dict[str, bytes] = {}
    at = 0
    while out is not None and at < len(out):
        end = out.find(b"\n", at)
        header = out[at:end].split()
        if len(header) != 3:
            at = end + 1
            continue
        size = int(header[2])
        found[header[0].decode()] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return found
