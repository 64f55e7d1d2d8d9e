"""Where memories live: project identity, directory names and entry file names.

Two layouts place their layers differently:

- ``files`` (seed 004): ``<memoryDir>/git/<host__owner__repo>/`` for a git
  repository with a usable remote, ``<memoryDir>/local/<path key>/`` otherwise.
  The remote comes from the raw git config (``origin`` first, then the other
  remotes in code-unit order, first usable wins), so ``url.*.insteadOf``
  rewrites never move a project's memories.
- ``categories`` (seed 000): ``$PI_MEMORY_AUTO_DIR`` or
  ``~/.pi/agent/memory-auto/`` for the user layer and
  ``<project root>/.pi/agent/memory-auto/`` for the project layer.

Every naming rule is a pure function that takes the platform (``"linux"``,
``"darwin"`` or ``"win32"``) as an argument, so the Windows rules are tested
on any machine. Only :func:`project_key` and its callers touch the disk: they
read ``.git`` and the config file directly, because a hook runs on every
prompt and cannot afford a ``git`` subprocess.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Mapping, Sequence

LINUX: Final = "linux"
DARWIN: Final = "darwin"
WIN32: Final = "win32"

GIT: Final = "git"
LOCAL: Final = "local"

INDEX_FILE: Final = "MEMORY.md"
ENTRY_EXT: Final = ".md"

#: A directory name longer than this many UTF-8 bytes is cut and hashed.
DIR_NAME_MAX_BYTES: Final = 120
#: How much of a cut directory name is kept before ``__<hash8>``.
DIR_NAME_KEEP_BYTES: Final = 100
#: Entry file stems are capped at this many UTF-8 bytes (the ``.md`` comes on top).
STEM_MAX_BYTES: Final = 100
HASH_LENGTH: Final = 8


def current_platform() -> str:
    """The naming platform of this interpreter: ``win32``, ``darwin`` or ``linux``."""
    if sys.platform == "win32":
        return WIN32
    if sys.platform == "darwin":
        return DARWIN
    return LINUX


def hash8(text: str) -> str:
    """First 8 hex digits of the SHA-256 of ``text`` (UTF-8): the suffix of cut names."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_LENGTH]


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


# --------------------------------------------------------------------------
# Windows names
# --------------------------------------------------------------------------

# The classic device names plus the console aliases. Judged on the part before
# the first ".", because Windows opens the device for ``NUL.txt`` and
# ``NUL.tar.gz`` alike.
_RESERVED_BASE: Final = re.compile(
    r"(?:con|prn|aux|nul|com[1-9]|lpt[1-9]|conin\$|conout\$)\Z", re.IGNORECASE
)


def is_reserved_windows_name(name: str) -> bool:
    """True when Windows would open a device instead of a file called ``name``."""
    return _RESERVED_BASE.match(name.split(".", 1)[0]) is not None


def escape_windows_trailing(name: str) -> str:
    """Escape one trailing ``.`` or space (``_2e`` / ``_20``): Windows strips them silently."""
    if name.endswith("."):
        return name[:-1] + "_2e"
    if name.endswith(" "):
        return name[:-1] + "_20"
    return name


def windows_safe_name(name: str) -> str:
    """A name Windows stores as written: trailing dot/space escaped, then device names prefixed."""
    escaped = escape_windows_trailing(name)
    return "_" + escaped if is_reserved_windows_name(escaped) else escaped


# --------------------------------------------------------------------------
# Grapheme clusters (an approximation of UAX #29 built on unicodedata)
# --------------------------------------------------------------------------

_ZWJ: Final = 0x200D
_CR: Final = 0x0D
_LF: Final = 0x0A

# Grapheme break classes.
_OTHER: Final = 0
_CONTROL: Final = 1
_EXTEND: Final = 2
_SPACING: Final = 3
_RI: Final = 4
_L: Final = 5
_V: Final = 6
_T: Final = 7
_LV: Final = 8
_LVT: Final = 9
_ZWJ_CLASS: Final = 10
_PREPEND: Final = 11


def _break_class(cp: int) -> int:
    import unicodedata

    if cp == _ZWJ:
        return _ZWJ_CLASS
    if 0x1F1E6 <= cp <= 0x1F1FF:
        return _RI
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97C:
        return _L
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return _V
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return _T
    if 0xAC00 <= cp <= 0xD7A3:
        return _LV if (cp - 0xAC00) % 28 == 0 else _LVT
    if (
        cp == 0x200C
        or 0xFE00 <= cp <= 0xFE0F
        or 0xE0100 <= cp <= 0xE01EF
        or 0x1F3FB <= cp <= 0x1F3FF
        or 0xE0020 <= cp <= 0xE007F
    ):
        return _EXTEND
    if cp in (0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x110BD):
        return _PREPEND
    category = unicodedata.category(chr(cp))
    if category in ("Mn", "Me"):
        return _EXTEND
    if category == "Mc":
        return _SPACING
    if category in ("Cc", "Zl", "Zp") or (category == "Cf" and cp not in (0x200C, _ZWJ)):
        return _CONTROL
    return _OTHER


def _is_pictographic(cp: int) -> bool:
    """Extended_Pictographic, approximated by the emoji blocks and symbol ranges."""
    return (
        0x1F000 <= cp <= 0x1FAFF
        or 0x2600 <= cp <= 0x27BF
        or 0x2300 <= cp <= 0x23FF
        or 0x2B00 <= cp <= 0x2BFF
        or 0x2190 <= cp <= 0x21FF
        or cp in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D, 0x3297, 0x3299)
    )


def _no_break(prev: int, cur: int, cp: int, state: tuple[bool, int]) -> bool:
    """Whether UAX #29 joins the previous code point (class ``prev``) to ``cur``."""
    emoji_zwj, ri_run = state
    if _CONTROL in (prev, cur):
        return False
    if prev == _L and cur in (_L, _V, _LV, _LVT):
        return True
    if prev in (_LV, _V) and cur in (_V, _T):
        return True
    if prev in (_LVT, _T) and cur == _T:
        return True
    if cur in (_EXTEND, _ZWJ_CLASS, _SPACING) or prev == _PREPEND:
        return True
    if prev == _ZWJ_CLASS and emoji_zwj and _is_pictographic(cp):
        return True
    return prev == _RI and cur == _RI and ri_run % 2 == 1


def grapheme_clusters(text: str) -> Iterator[str]:
    """Split ``text`` into (approximate) extended grapheme clusters."""
    start = 0
    prev_cp = -1
    prev = _OTHER
    # (an emoji, then Extend*, then ZWJ came last; length of the regional-indicator run)
    emoji_zwj = False
    in_emoji = False
    ri_run = 0
    for i, ch in enumerate(text):
        cp = ord(ch)
        cur = _break_class(cp)
        if i > 0:
            joined = (prev_cp == _CR and cp == _LF) or (
                prev_cp not in (_CR, _LF) and _no_break(prev, cur, cp, (emoji_zwj, ri_run))
            )
            if not joined:
                yield text[start:i]
                start = i
        if _is_pictographic(cp):
            in_emoji = True
        elif cur != _EXTEND:
            in_emoji = in_emoji and cur == _ZWJ_CLASS
        emoji_zwj = in_emoji and cur == _ZWJ_CLASS
        ri_run = ri_run + 1 if cur == _RI else 0
        prev, prev_cp = cur, cp
    if start < len(text):
        yield text[start:]


def truncate_graphemes(text: str, max_bytes: int) -> str:
    """The longest prefix of whole grapheme clusters that fits in ``max_bytes`` UTF-8 bytes."""
    kept: list[str] = []
    size = 0
    for cluster in grapheme_clusters(text):
        size += _utf8_len(cluster)
        if size > max_bytes:
            break
        kept.append(cluster)
    return "".join(kept)


def truncate_code_points(text: str, max_bytes: int) -> str:
    """The longest prefix of whole code points that fits in ``max_bytes`` UTF-8 bytes."""
    size = 0
    for i, ch in enumerate(text):
        size += _utf8_len(ch)
        if size > max_bytes:
            return text[:i]
    return text


# --------------------------------------------------------------------------
# Project directory names
# --------------------------------------------------------------------------

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
    ``/a__b`` and ``/a/b`` share a directory, as in seed 004.
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
    if _utf8_len(joined) > DIR_NAME_MAX_BYTES:
        # Filesystems cap a name at 255 bytes; cut on a grapheme boundary so a
        # ZWJ sequence or a combining mark is never split, and keep the key
        # distinct with a hash of the whole raw key.
        joined = f"{truncate_graphemes(joined, DIR_NAME_KEEP_BYTES)}__{hash8(key)}"
    return windows_safe_name(joined) if platform == WIN32 else joined


# --------------------------------------------------------------------------
# Entry file names
# --------------------------------------------------------------------------

_UNSAFE_FILE_CHARS: Final = re.compile(r'[/\\:*?"<>|\x00-\x1f\x7f]')
# JavaScript's \s: the set the reference implementation trims and collapses.
# Python's own \s differs (it has U+001C-U+001F and U+0085, lacks U+FEFF).
_JS_SPACE: Final = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_EDGE: Final = re.compile(f"^[{_JS_SPACE}.]+|[{_JS_SPACE}.]+$")
_WHITESPACE_RUN: Final = re.compile(f"[{_JS_SPACE}]+")


def _derived_file_name(name: str) -> str:
    cleaned = _EDGE.sub("", _UNSAFE_FILE_CHARS.sub("_", name))
    stem = truncate_code_points(_WHITESPACE_RUN.sub("-", cleaned), STEM_MAX_BYTES)
    if not stem:
        stem = f"entry-{hash8(name)}"
    elif is_reserved_windows_name(stem):
        # On every platform: a files-layout directory under git/ is shared
        # between machines, so a name must be safe on Windows too.
        stem = "_" + stem
    return stem + ENTRY_EXT


def _is_index_name(file_name: str) -> bool:
    # Case-insensitive: on Windows and macOS "memory.md" *is* the index file.
    return file_name.lower() == INDEX_FILE.lower()


def resolve_unique_file_name(base: str, used: Collection[str]) -> str:
    """``base``, or ``<stem>-2.md``, ``<stem>-3.md``… — the first not in ``used`` (exact match)."""
    if base not in used:
        return base
    has_ext = base.endswith(ENTRY_EXT)
    stem = base[: -len(ENTRY_EXT)] if has_ext else base
    ext = ENTRY_EXT if has_ext else ""
    n = 2
    while f"{stem}-{n}{ext}" in used:
        n += 1
    return f"{stem}-{n}{ext}"


def entry_file_name(name: str) -> str:
    """The file name derived from a memory's ``name`` (seed 004).

    Unsafe characters become ``_``, edge whitespace and dots are trimmed,
    whitespace runs become ``-``, the stem is capped at 100 UTF-8 bytes, a
    device-name stem gets a ``_`` prefix, and a name that leaves nothing gets
    ``entry-<hash8>``. No name ever derives the index file: ``MEMORY`` (in any
    case) takes the first clash suffix, ``MEMORY-2.md``.
    """
    derived = _derived_file_name(name)
    if _is_index_name(derived):
        return resolve_unique_file_name(derived, (derived,))
    return derived


def unique_entry_file_name(
    name: str, taken: Collection[str], *, case_insensitive: bool = True
) -> str:
    """The derived file name for ``name``, with ``-2``/``-3``… if it clashes with ``taken``.

    ``taken`` is the set of file names already in the directory (leave out the
    entry's own current file when renaming it, so a rename onto its own name
    reuses the file). The check is case-insensitive by default, which is what
    Windows and macOS filesystems do and keeps a store shared across machines
    free of names that collide on one of them. The index file is always taken,
    in any case.
    """
    fold = str.lower if case_insensitive else str
    used = {fold(file) for file in taken}
    base = _derived_file_name(name)
    stem = base[: -len(ENTRY_EXT)]
    candidate, n = base, 1
    while fold(candidate) in used or _is_index_name(candidate):
        n += 1
        candidate = f"{stem}-{n}{ENTRY_EXT}"
    return candidate


# --------------------------------------------------------------------------
# Remote URLs
# --------------------------------------------------------------------------

_GIT_PROTOCOLS: Final = frozenset({"http", "https", "ssh", "git"})
_SCHEME_URL: Final = re.compile(r"[a-zA-Z][a-zA-Z0-9+.\-]*://")
# A drive-letter path: local on win32 (git clones Z:\some.git), scp on POSIX.
_WINDOWS_DRIVE_PATH: Final = re.compile(r"[a-zA-Z]:[\\/]")
_SPECIAL_SCHEMES: Final = frozenset({"http", "https", "ws", "wss", "ftp", "file"})
# WHATWG forbidden host code points (an opaque host may still hold "%").
_FORBIDDEN_HOST: Final = frozenset("\x00\t\n\r #/:<>?@[\\]^|")
# The path percent-encode set, beyond C0 controls and non-ASCII.
_PATH_ENCODE: Final = frozenset(' "#<>?`{}')
_SINGLE_DOTS: Final = frozenset({".", "%2e"})
_DOUBLE_DOTS: Final = frozenset({"..", ".%2e", "%2e.", "%2e%2e"})
# UTS 46 keeps these (nontransitional processing); IDNA 2003 nameprep would map them.
_IDNA_DEVIATIONS: Final = frozenset("ßς")
_LABEL_SEPARATORS: Final = re.compile("[.\u3002\uff0e\uff61]")


class _Url(NamedTuple):
    scheme: str
    hostname: str
    pathname: str


def _percent_encode(text: str, extra: frozenset[str]) -> str:
    out: list[str] = []
    for ch in text:
        if ord(ch) < 0x20 or ord(ch) > 0x7E or ch in extra:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append(ch)
    return "".join(out)


def _percent_decode(text: str) -> bytes:
    raw = text.encode("utf-8", "surrogatepass")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x25 and re.fullmatch(rb"[0-9A-Fa-f]{2}", raw[i + 1 : i + 3]):
            out.append(int(raw[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def _domain_label_to_ascii(label: str) -> str | None:
    import unicodedata
    from encodings import idna

    if label.isascii():
        return label.lower()
    try:
        if any(ch in _IDNA_DEVIATIONS for ch in label):
            mapped = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", label).lower())
            return "xn--" + mapped.encode("punycode").decode("ascii")
        return idna.ToASCII(label).decode("ascii").lower()
    except UnicodeError:
        return None


def _parse_ipv4_number(part: str) -> int | None:
    if re.fullmatch(r"0[xX][0-9a-fA-F]*", part):
        return int(part[2:] or "0", 16)
    if re.fullmatch(r"0[0-7]+", part):
        return int(part, 8)
    if re.fullmatch(r"[0-9]+", part):
        return int(part)
    return None


def _parse_ipv4(host: str) -> str | None:
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4 or "" in parts:
        return None
    numbers = [_parse_ipv4_number(part) for part in parts]
    if any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    address = values[-1]
    for i, n in enumerate(values[:-1]):
        address += n * 256 ** (3 - i)
    return ".".join(str((address >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def _ends_in_number(host: str) -> bool:
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    return bool(re.fullmatch(r"[0-9]+|0[xX][0-9a-fA-F]*", last))


def _parse_ipv6(inner: str) -> str | None:
    import ipaddress

    if "%" in inner:
        return None
    try:
        packed = ipaddress.IPv6Address(inner).packed
    except ValueError:
        return None
    pieces = [int.from_bytes(packed[i : i + 2], "big") for i in range(0, 16, 2)]
    # Compress the first longest run of two or more zero pieces, as WHATWG does.
    best_start, best_len, i = -1, 1, 0
    while i < 8:
        j = i
        while j < 8 and pieces[j] == 0:
            j += 1
        if j - i > best_len:
            best_start, best_len = i, j - i
        i = j + 1 if j == i else j
    if best_start < 0:
        return "[" + ":".join(f"{p:x}" for p in pieces) + "]"
    head = ":".join(f"{p:x}" for p in pieces[:best_start])
    tail = ":".join(f"{p:x}" for p in pieces[best_start + best_len :])
    return f"[{head}::{tail}]"


def _parse_host(host: str, special: bool) -> str | None:
    """The WHATWG host parser: a serialised host, or None on failure."""
    if host.startswith("["):
        return _parse_ipv6(host[1:-1]) if host.endswith("]") else None
    if not special:
        if any(ch in _FORBIDDEN_HOST for ch in host):
            return None
        return _percent_encode(host, frozenset())
    domain = _percent_decode(host).decode("utf-8", "replace")
    labels = _LABEL_SEPARATORS.split(domain)
    ascii_labels = [_domain_label_to_ascii(label) for label in labels]
    if any(label is None for label in ascii_labels):
        return None
    ascii_domain = ".".join(label for label in ascii_labels if label is not None)
    if not ascii_domain or any(
        ch in _FORBIDDEN_HOST or ch == "%" or ord(ch) <= 0x1F or ord(ch) == 0x7F
        for ch in ascii_domain
    ):
        return None
    if _ends_in_number(ascii_domain):
        return _parse_ipv4(ascii_domain)
    return ascii_domain


def _parse_path(text: str, special: bool) -> str:
    separators = r"[/\\]" if special else "/"
    segments: list[str] = []
    raw_segments = re.split(separators, text[1:]) if text else []
    for index, raw in enumerate(raw_segments):
        last = index == len(raw_segments) - 1
        segment = _percent_encode(raw, _PATH_ENCODE)
        if segment.lower() in _DOUBLE_DOTS:
            if segments:
                segments.pop()
            if last:
                segments.append("")
        elif segment.lower() in _SINGLE_DOTS:
            if last:
                segments.append("")
        else:
            segments.append(segment)
    if special and not segments:
        segments.append("")
    return "".join("/" + segment for segment in segments)


def _parse_url(raw: str) -> _Url | None:
    """The parts of a ``scheme://`` URL that WHATWG's URL parser would report.

    Only what a remote key needs: scheme, serialised host and path. Credentials,
    port, query and fragment are validated the way the parser does and dropped.
    """
    text = re.sub(r"[\t\n\r]", "", raw.strip("".join(chr(c) for c in range(0x21))))
    scheme, _, rest = text.partition(":")
    scheme = scheme.lower()
    special = scheme in _SPECIAL_SCHEMES
    rest = rest.lstrip("/\\") if special else rest[2:]
    end = re.search(r"[/?#\\]" if special else "[/?#]", rest)
    authority = rest[: end.start()] if end else rest
    after = rest[end.start() :] if end else ""
    host_port = authority.rpartition("@")[2]
    bracket = host_port.rfind("]")
    colon = host_port.find(":", bracket + 1)
    host = host_port if colon < 0 else host_port[:colon]
    port = "" if colon < 0 else host_port[colon + 1 :]
    if not re.fullmatch(r"[0-9]*", port) or (port and int(port) > 65535):
        return None
    if special and not host:
        return None
    hostname = _parse_host(host, special) if host else ""
    if hostname is None:
        return None
    path_end = re.search("[?#]", after)
    path = after[: path_end.start()] if path_end else after
    return _Url(scheme, hostname, _parse_path(path, special))


def _normalize_host(host: str) -> str:
    """Lower-case and IDN-normalise a host the way an https URL would; else just lower-case."""
    parsed = _parse_url("https://" + host)
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
        parsed = _parse_url(raw)
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


# --------------------------------------------------------------------------
# Project identity
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# Reading git: .git discovery and the raw config file
# --------------------------------------------------------------------------


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


def find_git_repo(cwd: Path) -> GitRepo | None:
    """The work tree containing ``cwd``, like ``git rev-parse --show-toplevel``.

    None when ``cwd`` is not in a work tree: no ``.git`` above it, a broken
    ``.git`` file, or ``cwd`` inside a repository directory (a bare repository
    or ``.git`` itself), where git itself refuses to name a top level.
    """
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


class ConfigEntry(NamedTuple):
    """One ``section[.subsection].key`` assignment of a git config file."""

    #: Lower-cased section name.
    section: str
    #: Subsection exactly as written (``None`` when absent).
    subsection: str | None
    #: Lower-cased variable name.
    key: str
    #: The value; ``None`` for a bare ``key`` (boolean true).
    value: str | None


_VALUE_ESCAPES: Final = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}
_GIT_SPACE: Final = " \t\n\v\f\r"
_SECTION_NAME: Final = re.compile(r"[A-Za-z0-9.\-]+")
_VARIABLE_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")


class ConfigSyntaxError(ValueError):
    """A config file git itself would refuse to read."""


class _ConfigParser:
    """git-config syntax, following git's own ``config.c`` rules.

    Section and variable names are case-insensitive; a quoted subsection keeps
    its case and its backslash escapes; values may mix quoted and unquoted
    parts, ``#``/``;`` start a comment outside quotes, whitespace runs inside
    a value become single spaces per character and trailing whitespace drops.
    """

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n")
        self.pos = 1 if self.text.startswith("\ufeff") else 0
        self.section = ""
        self.subsection: str | None = None
        self.entries: list[ConfigEntry] = []

    def next_char(self) -> str:
        """The next character, ``"\\n"`` at the end (as git's reader does)."""
        if self.pos >= len(self.text):
            self.pos += 1
            return "\n"
        ch = self.text[self.pos]
        self.pos += 1
        return ch

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def parse(self) -> list[ConfigEntry]:
        while not self.at_end():
            ch = self.next_char()
            if ch in _GIT_SPACE:
                continue
            if ch in "#;":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end + 1
            elif ch == "[":
                self.parse_section()
            elif ch.isascii() and ch.isalpha():
                self.pos -= 1
                self.parse_variable()
            else:
                raise ConfigSyntaxError(f"unexpected {ch!r} at offset {self.pos - 1}")
        return self.entries

    def parse_section(self) -> None:
        match = _SECTION_NAME.match(self.text, self.pos)
        if match is None:
            raise ConfigSyntaxError("bad section header")
        name = match.group()
        self.pos = match.end()
        ch = self.next_char()
        if ch == "]":
            # The deprecated [section.subsection] form: the subsection ignores case too.
            section, dot, sub = name.partition(".")
            self.section, self.subsection = section.lower(), (sub.lower() if dot else None)
            return
        while ch in " \t":
            ch = self.next_char()
        if ch != '"' or "." in name:
            raise ConfigSyntaxError("bad section header")
        sub_chars: list[str] = []
        while True:
            ch = self.next_char()
            if ch == "\n":
                raise ConfigSyntaxError("unterminated subsection")
            if ch == '"':
                break
            if ch == "\\":
                ch = self.next_char()
                if ch == "\n":
                    raise ConfigSyntaxError("unterminated subsection")
            sub_chars.append(ch)
        if self.next_char() != "]":
            raise ConfigSyntaxError("bad section header")
        self.section, self.subsection = name.lower(), "".join(sub_chars)

    def parse_variable(self) -> None:
        # git accepts a variable before any section header (section "").
        match = _VARIABLE_NAME.match(self.text, self.pos)
        if match is None:
            raise ConfigSyntaxError("bad variable name")
        key = match.group().lower()
        self.pos = match.end()
        ch = self.next_char()
        while ch in " \t":
            ch = self.next_char()
        value: str | None = None
        if ch != "\n":
            if ch != "=":
                raise ConfigSyntaxError(f"bad line for {key!r}")
            value = self.parse_value()
        self.entries.append(ConfigEntry(self.section, self.subsection, key, value))

    def parse_value(self) -> str:
        out: list[str] = []
        spaces = 0
        quoted = comment = False
        while True:
            ch = self.next_char()
            if ch == "\n":
                if quoted:
                    raise ConfigSyntaxError("unterminated quote")
                return "".join(out)
            if comment:
                continue
            if ch in _GIT_SPACE and not quoted:
                # Like git: whitespace before the first character is dropped.
                spaces += 1 if out else 0
                continue
            if not quoted and ch in "#;":
                comment = True
                continue
            if spaces:
                out.append(" " * spaces)
                spaces = 0
            if ch == "\\":
                ch = self.next_char()
                if ch == "\n":
                    continue
                if ch not in _VALUE_ESCAPES:
                    raise ConfigSyntaxError(f"unknown escape \\{ch}")
                out.append(_VALUE_ESCAPES[ch])
            elif ch == '"':
                quoted = not quoted
            else:
                out.append(ch)


def parse_git_config(text: str) -> list[ConfigEntry]:
    """Every assignment of a git config file, in file order (includes not followed).

    Raises :class:`ConfigSyntaxError` where git would refuse the file.
    """
    return _ConfigParser(text).parse()


_MAX_INCLUDE_DEPTH: Final = 10


def read_git_config(path: Path, home: str, depth: int = 0) -> list[ConfigEntry]:
    """A config file's assignments with ``[include] path`` files spliced in where they appear."""
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    entries: list[ConfigEntry] = []
    for entry in parse_git_config(text):
        entries.append(entry)
        if (
            entry.section == "include"
            and entry.subsection is None
            and entry.key == "path"
            and entry.value
            and depth < _MAX_INCLUDE_DEPTH
        ):
            target = entry.value
            if target == "~" or target.startswith("~/"):
                target = home + target[1:]
            included = Path(target)
            if not included.is_absolute():
                included = path.parent / included
            entries.extend(read_git_config(included, home, depth + 1))
    return entries


def remotes_from_config(entries: Sequence[ConfigEntry]) -> list[tuple[str, str]]:
    """``(name, url)`` for every ``remote.<name>.url`` with a value, in file order."""
    return [
        (entry.subsection, entry.value)
        for entry in entries
        if entry.section == "remote"
        and entry.key == "url"
        and entry.subsection
        and entry.value is not None
    ]


def _is_true(value: str | None) -> bool:
    return value is None or value.strip().lower() in ("true", "yes", "on", "1")


def read_remotes(repo: GitRepo) -> list[tuple[str, str]]:
    """The remotes of a repository, read from its raw config files (no ``git`` process).

    A config file git would refuse gives no remotes, as every git command
    (and so the reference implementation) fails on it too.
    """
    home = str(home_dir())
    try:
        entries = read_git_config(repo.common_dir / "config", home)
        worktree_config = any(
            e.section == "extensions" and e.key == "worktreeconfig" and _is_true(e.value)
            for e in entries
        )
        if worktree_config:
            entries += read_git_config(repo.git_dir / "config.worktree", home)
    except ConfigSyntaxError:
        return []
    return remotes_from_config(entries)


def project_key(cwd: Path, platform: str | None = None) -> ProjectKey:
    """The identity of the project ``cwd`` belongs to (reads ``.git`` and its config)."""
    platform = platform or current_platform()
    repo = find_git_repo(cwd)
    if repo is None:
        return identify_project(str(Path(os.path.realpath(cwd))), None, (), platform)
    return identify_project(str(repo.toplevel), str(repo.toplevel), read_remotes(repo), platform)


def project_root(cwd: Path) -> Path:
    """The git top level of ``cwd``, else ``cwd`` itself (resolved)."""
    repo = find_git_repo(cwd)
    return repo.toplevel if repo is not None else Path(os.path.realpath(cwd))


def project_memory_dir(memory_dir: Path, cwd: Path) -> Path:
    """``<memoryDir>/git/<name>`` or ``<memoryDir>/local/<name>`` for the project at ``cwd``.

    Raises :class:`~pi_memory.errors.ConfigError` for a directory that would
    not lie strictly inside ``memory_dir``.
    """
    platform = current_platform()
    base = os.path.abspath(memory_dir)
    return Path(resolve_memory_dir(base, project_key(cwd, platform), platform))


# --------------------------------------------------------------------------
# Home and user paths
# --------------------------------------------------------------------------


def home_dir(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """The user's home: ``HOME`` (``USERPROFILE`` on Windows), else what Python finds."""
    env = os.environ if env is None else env
    platform = platform or current_platform()
    value = env.get("USERPROFILE" if platform == WIN32 else "HOME", "")
    return Path(value) if value else Path.home()


def expand_user_path(value: str, cwd: Path, platform: str, home: str) -> Path:
    """Expand ``~``, ``~/`` and (win32) ``~\\``, then make the path absolute against ``cwd``."""
    import ntpath
    import posixpath

    pathmod = ntpath if platform == WIN32 else posixpath
    if value == "~":
        value = home
    elif value.startswith("~/") or (platform == WIN32 and value.startswith("~\\")):
        value = pathmod.join(home, value[2:])
    return Path(pathmod.normpath(pathmod.join(str(cwd), value)))


def categories_user_dir(env: Mapping[str, str]) -> Path:
    """The categories layout's user layer: ``$PI_MEMORY_AUTO_DIR`` or ``~/.pi/agent/memory-auto``.

    A relative override resolves against the working directory.
    """
    platform = current_platform()
    home = str(home_dir(env, platform))
    override = env.get("PI_MEMORY_AUTO_DIR", "").strip()
    if override:
        return expand_user_path(override, Path.cwd(), platform, home)
    return Path(home) / ".pi" / "agent" / "memory-auto"


def categories_project_dir(cwd: Path) -> Path:
    """The categories layout's project layer: ``<project root>/.pi/agent/memory-auto``."""
    return project_root(cwd) / ".pi" / "agent" / "memory-auto"
