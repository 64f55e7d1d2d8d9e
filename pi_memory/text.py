"""Text rules every part of the package shares; pure, and cheap to import.

- ECMAScript whitespace: the files layout reads what the reference extension
  writes, so trimming and collapsing follow JavaScript's ``\\s`` and
  ``String.prototype.trim``, not Python's ``str.strip``; and its lines are
  split after CRLF and lone CR become LF, so a line number means the same
  thing to the index, its writer and the injection window;
- the Han character class: one definition for tokenising, keyword rules and
  similarity, CJK Extension B and beyond included;
- UTF-8 byte budgets: length, and the longest prefix of whole code points
  that fits;
- timestamps as JavaScript's ``Date.prototype.toISOString`` writes them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Final

__all__ = [
    "HAN_CLASS",
    "HAN_RANGES",
    "JS_SPACE",
    "JS_SPACE_CLASS",
    "counted",
    "cut_utf8",
    "is_blank",
    "is_han",
    "iso_now",
    "iso_timestamp",
    "js_trim",
    "normalize_newlines",
    "split_lines",
    "utf8_len",
]

#: ECMAScript WhiteSpace + LineTerminator: what ``\s`` and ``trim()`` mean upstream.
#: Python's own ``\s`` differs (it has U+001C-U+001F and U+0085, lacks U+FEFF).
JS_SPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: :data:`JS_SPACE` as the body of a regular-expression character class.
JS_SPACE_CLASS: Final = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

#: Han ideographs: Extension A, CJK Unified, Compatibility, and Extension B
#: through the Compatibility Supplement (U+20000-U+2FA1F).
HAN_RANGES: Final = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2FA1F),
)
#: :data:`HAN_RANGES` as the body of a regular-expression character class.
HAN_CLASS: Final = "".join(f"{chr(low)}-{chr(high)}" for low, high in HAN_RANGES)


def counted(count: int, one: str, many: str = "") -> str:
    """``1 memory``, ``2 memories``: a count and its noun in agreement (``many``
    defaults to ``one`` + ``s``)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_SPACE)


def is_blank(text: str) -> bool:
    return not js_trim(text)


def normalize_newlines(raw: str) -> str:
    """CRLF and lone CR as LF."""
    return raw.replace("\r\n", "\n").replace("\r", "\n") if "\r" in raw else raw


def split_lines(raw: str) -> list[str]:
    """Lines of ``raw`` after newline normalisation; one trailing empty line dropped."""
    text = normalize_newlines(raw)
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def is_han(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in HAN_RANGES)


def utf8_len(text: str) -> int:
    """The UTF-8 length of ``text`` (a lone surrogate counts its three bytes)."""
    return len(text.encode("utf-8", "surrogatepass"))


def cut_utf8(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` (whole code points) that fits in ``max_bytes`` UTF-8 bytes."""
    if max_bytes <= 0:
        return ""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    end = max_bytes
    while data[end] & 0xC0 == 0x80:  # never start the cut inside a code point
        end -= 1
    return data[:end].decode("utf-8", "surrogatepass")


def iso_timestamp(moment: datetime) -> str:
    """``moment`` as ``Date.prototype.toISOString`` writes it: UTC, milliseconds, ``Z``.

    A naive ``moment`` is local time.
    """
    from datetime import timezone

    utc = moment.astimezone(timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S") + f".{utc.microsecond // 1000:03d}Z"


def iso_now() -> str:
    """:func:`iso_timestamp` of now."""
    from datetime import datetime, timezone

    return iso_timestamp(datetime.now(timezone.utc))
