"""Replace a file so that a crash at any instant leaves the old or the new bytes, never a mix.

The new content goes to a uniquely named temp file next to the target (same
directory, so same filesystem, so ``os.replace`` is a rename), is flushed and
fsynced, then renamed over the target; on POSIX the directory is fsynced too so
the rename itself survives a power cut. A fixed temp name would let two writers
trample each other's half-written file, hence ``mkstemp``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from pi_memory.fs import fsretry
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Callable, Final

TEMP_SUFFIX: Final = ".tmp"
_umask_cache: int | None = None


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    """Write ``text`` as UTF-8 exactly as given: ``\\n`` stays ``\\n`` on every platform.

    A lone surrogate is written back as the byte it stands for: text read with
    ``surrogateescape`` (a damaged row's keyword) must never make a derived
    file unwritable. New text is checked for UTF-8 where it comes in.
    """
    atomic_write_bytes(path, text.encode("utf-8", "surrogateescape"), durable=durable)


def atomic_write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Atomically replace ``path`` with ``data``, keeping the permission bits it had.

    A symbolic link is written through (its target is replaced); a file with no
    write permission is refused (``PermissionError``), not silently replaced.

    ``durable=False`` skips the fsyncs: a crashed process still leaves the old
    or the new file, but a power cut may leave it empty. Only for disposable
    files (the parse cache, the recall log), which read a damaged copy as "no data".
    """
    put_in_place(stage_bytes(path, data, durable=durable))


class Staged(NamedTuple):
    """A file's new bytes, written (and flushed) beside it but not yet in its place."""

    #: The file the bytes are for (a symbolic link's target).
    path: Path
    #: The temp file holding them, in the same directory.
    temp: str
    durable: bool
    #: The temp file's ``(mtime_ns, size, inode)`` once written: what the file has once
    #: renamed into place, until anything changes it (``None``: not known).
    identity: tuple[int, int, int] | None = None


def stage_bytes(path: Path, data: bytes, *, durable: bool = True) -> Staged:
    """The first half of :func:`atomic_write_bytes`: ``data`` in a temp file beside
    ``path`` with the permission bits ``path`` has, fsynced; ``path`` is untouched
    until :func:`put_in_place` (or :func:`discard`)."""
    return stage_written(path, lambda handle: handle.write(data), durable=durable)


def stage_written(
    path: Path, write: Callable[[BinaryIO], object], *, durable: bool = True
) -> Staged:
    """:func:`stage_bytes` with the bytes written by ``write`` to the temp file's handle
    (a large file's new bytes made piece by piece, never whole in memory)."""
    path = _through_links(Path(path))
    mode = _target_mode(path)
    if mode is not None and os.name == "posix" and not mode & 0o222 and path.exists():
        raise PermissionError(
            errno.EACCES,
            "the file is read-only; pi_memory never replaces a file made read-only "
            "(make it writable to store memories in it)",
            str(path),
        )
    fd, tmp_name = _temp_file(path.parent, "." + path.name)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
            st = os.fstat(handle.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)  # the mode, not the time or the size
    except BaseException:
        _discard(tmp_name)
        raise
    return Staged(path, tmp_name, durable, (st.st_mtime_ns, st.st_size, st.st_ino))


def put_in_place(staged: Staged, *, sync: bool = True) -> None:
    """Rename the staged bytes over their file (the temp file is gone either way);
    ``sync=False`` leaves the directory's fsync to the caller."""
    try:
        fsretry.retry(os.replace, staged.temp, staged.path)
    except BaseException:
        _discard(staged.temp)
        raise
    if staged.durable and sync:
        fsync_directory(staged.path.parent)


def discard(staged: Staged) -> None:
    """Remove the staged bytes, never put in place."""
    _discard(staged.temp)


def _through_links(path: Path) -> Path:
    """The file a symbolic link at ``path`` names: the link is written through, never
    replaced by a regular file (a person's dotfiles link stays a link)."""
    if not path.is_symlink():
        return path
    return Path(os.path.realpath(path))


def _temp_file(directory: Path, prefix: str) -> tuple[int, str]:
    """``tempfile.mkstemp`` without importing tempfile (a hook pays for every import).

    O_EXCL with a random name: concurrent writers never share a temp file.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        name = os.path.join(directory, f"{prefix}.{os.urandom(6).hex()}{TEMP_SUFFIX}")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue


def _target_mode(path: Path) -> int | None:
    """The permission bits the replaced file should get.

    ``mkstemp`` creates 0600 files; a memory file people read and commit should
    look like any file they would have created themselves.
    """
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        pass
    if os.name != "posix":
        return None
    return 0o666 & ~_umask()


def _umask() -> int:
    global _umask_cache  # noqa: PLW0603 -- read once per process; it does not change under us
    if _umask_cache is None:
        _umask_cache = _read_umask()
    return _umask_cache


def _read_umask() -> int:
    # Linux reports it without changing it; elsewhere the set-and-restore is the only way.
    # Read as bytes: opening a text file looks its codec up, and on Python 3.13.0 the
    # first lookup of a codec from a deleted working directory fails (SystemError).
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def _discard(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


def fsync_directory(directory: Path) -> None:
    """Make a rename or unlink in ``directory`` survive a power cut (POSIX)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        # Some filesystems refuse fsync on a directory; the rename has happened.
        pass
    finally:
        os.close(fd)
