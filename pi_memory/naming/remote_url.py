"""Remote URLs: the ``host/owner/repo`` key of a git remote, or None for a local one."""

from __future__ import annotations

import re

from pi_memory.naming.platforms import WIN32
from pi_memory.naming.whatwg_url import parse_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["normalize_remote_url"]

_GIT_PROTOCOLS: Final = frozenset({"http", "https", "ssh", "git"})
_SCHEME_URL: Final = re.compile(r"[a-zA-Z][a-zA-Z0-9+.\-]*://")
# A drive-letter path: local on win32 (git clones Z:\some.git), scp on POSIX.
_WINDOWS_DRIVE_PATH: Final = re.compile(r"[a-zA-Z]:[\\/]")


def _normalize_host(host: str) -> str:
    """Lower-case and IDN-normalise a host the way an https URL would; else just lower-case."""
    parsed = parse_url("https://" + host)
    return parsed.hostname if parsed is not None else host.lower()


def _split_scp(raw: str) -> tuple[str, str] | None:
    """``[user@]host:path`` → (host, path); git's own syntax, so no stdlib parser."""
    # Split at the first ":" outside a bracketed IPv6 literal.
    open_at = raw.find("[")
    close_at = -1 if open_at < 0 else raw.find("]", open_at)
    if open_at >= 0 and close_at < 0:
        return None
    colon = raw.find(":", close_at + 1 if close_at >= 0 else 0)
    if colon < 0:
        return None
    authority = raw[:colon]
    if not authority or "/" in authority:
        return None
    return authority.rpartition("@")[2], raw[colon + 1 :]


def normalize_remote_url(url: str, platform: str) -> str | None:
    """The ``host/owner/repo`` key of a remote URL, or None when the remote is local.

    http(s), ssh, git, ``git+ssh`` / ``git+https`` and scp-style
    ``[user@]host:path`` remotes give a key; ``file://``, UNC, relative and
    local paths (and, on win32, drive-letter paths) give None. Scheme forms go
    through WHATWG normalisation (IDN → punycode, lower-case host, percent
    encoding, dot segments); scp paths are kept as written.
    """
    raw = url.strip()
    if not raw:
        return None
    if platform == WIN32 and _WINDOWS_DRIVE_PATH.match(raw):
        return None
    if _SCHEME_URL.match(raw):
        parsed = parse_url(raw)
        if parsed is None:
            return None
        scheme = parsed.scheme[4:] if parsed.scheme.startswith("git+") else parsed.scheme
        if scheme not in _GIT_PROTOCOLS:
            return None
        # ssh:// and git:// are not special schemes: their host stays opaque
        # until it is re-parsed as an https host.
        host = _normalize_host(parsed.hostname)
        path = parsed.pathname
    else:
        split = _split_scp(raw)
        if split is None:
            return None
        host, path = _normalize_host(split[0]), split[1]
    if not host:
        return None
    path = re.sub(r"\.git\Z", "", path.lstrip("/").rstrip("/"), flags=re.IGNORECASE)
    if not path:
        return None
    return f"{host}/{path}"
