"""The part of the WHATWG URL parser a remote key needs: scheme, host and path.

Hosts are serialised as a browser would (IDN to punycode, IPv4 and IPv6
canonical forms, percent encoding), so two spellings of one remote give one key.
"""

from __future__ import annotations

import re

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["Url", "parse_url"]

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


class Url(NamedTuple):
    """What a remote key needs of a parsed URL."""

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


def parse_url(raw: str) -> Url | None:
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
    return Url(scheme, hostname, _parse_path(path, special))
