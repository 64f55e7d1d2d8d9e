"""Project directory names: a project key as one readable, bounded directory name."""

from __future__ import annotations

import re

from pi_memory.naming.graphemes import truncate_graphemes
from pi_memory.naming.platforms import WIN32
from pi_memory.naming.windows import windows_safe_name
from pi_memory.text import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["DIR_NAME_KEEP_BYTES", "DIR_NAME_MAX_BYTES", "HASH_LENGTH", "hash8", "project_dir_name"]

#: A directory name longer than this many UTF-8 bytes is cut and hashed.
DIR_NAME_MAX_BYTES: Final = 120
#: How much of a cut directory name is kept before ``__<hash8>``.
DIR_NAME_KEEP_BYTES: Final = 100
HASH_LENGTH: Final = 8


def hash8(text: str) -> str:
    """First 8 hex digits of the SHA-256 of ``text`` (UTF-8): the suffix of cut names."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_LENGTH]


_ILLEGAL_SEGMENT_CHARS: Final = re.compile(r'[<>:"|?*\x00-\x1f]')
_POSIX_SEPARATORS: Final = re.compile(r"/")
_WIN32_SEPARATORS: Final = re.compile(r"[/\\]")


def _escape_segment(segment: str) -> str:
    return _ILLEGAL_SEGMENT_CHARS.sub(lambda m: f"_{ord(m.group()):02x}", segment)


def project_dir_name(key: str, platform: str) -> str:
    """Encode a project key as one readable directory name.

    ``github.com/owner/repo`` becomes ``github.com__owner__repo`` and
    ``/home/you/proj`` becomes ``home__you__proj``. Empty, ``.`` and ``..``
    segments vanish, so no key can climb out of the memory directory. On win32
    a backslash separates segments too and the result is made Windows-safe; on
    POSIX a backslash is an ordinary character. The mapping is not injective:
    ``/a__b`` and ``/a/b`` share a directory, as in pi-memory.
    """
    separators = _WIN32_SEPARATORS if platform == WIN32 else _POSIX_SEPARATORS
    segments = [
        _escape_segment(segment)
        for segment in separators.split(key)
        if segment not in ("", ".", "..")
    ]
    if not segments:
        return "root"
    joined = "__".join(segments)
    if utf8_len(joined) > DIR_NAME_MAX_BYTES:
        # Filesystems cap a name at 255 bytes; cut on a grapheme boundary so a
        # ZWJ sequence or a combining mark is never split, and keep the key
        # distinct with a hash of the whole raw key.
        joined = f"{truncate_graphemes(joined, DIR_NAME_KEEP_BYTES)}__{hash8(key)}"
    return windows_safe_name(joined) if platform == WIN32 else joined
