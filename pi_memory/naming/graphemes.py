"""Grapheme clusters: an approximation of UAX #29 built on unicodedata.

A cut name must never split a ZWJ sequence, a flag or a combining mark.
"""

from __future__ import annotations

from pi_memory.text import utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

__all__ = ["grapheme_clusters", "truncate_graphemes"]


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
        size += utf8_len(cluster)
        if size > max_bytes:
            break
        kept.append(cluster)
    return "".join(kept)
