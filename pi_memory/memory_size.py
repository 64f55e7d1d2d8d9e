"""How large one memory may be, and how much of a stored one is shown.

A write refuses a body over ``memoryMaxBytes`` (UTF-8 bytes), whatever path it
takes: ``write``, the agent tools, the model jobs, ``import``. What is already
stored (a hand edit, a pull, a store written before the limit) is read as it
is, and shown clipped: no search result or tool answer hands a model or a
terminal more of one memory than the limit, with a note saying how much more
there is and where.
"""

from __future__ import annotations

from pi_memory.text import cut_utf8, utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

SETTING: Final = "memoryMaxBytes"


def size_issue(text: str, max_bytes: int) -> str | None:
    """Why ``text`` is too large to store, naming the limit and its setting; None if it fits."""
    if len(text) * 4 <= max_bytes:
        return None  # no text of this length can be over the limit, whatever it holds
    size = _size(text)
    if size <= max_bytes:
        return None
    return f"is {size:,} bytes, over the limit of {max_bytes:,} bytes ({SETTING} in memory.json)"


def clipped(text: str, max_bytes: int, hint: str = "") -> str:
    """``text``, or its first ``max_bytes`` bytes and a note of how much was left out
    (and ``hint``, where the rest is to be found)."""
    if len(text) * 4 <= max_bytes:
        return text  # no text of this length can be over the limit
    head = cut_utf8(text[:max_bytes], max_bytes)  # a character is at least one byte
    if len(head) == len(text):
        return text
    rest = _size(text) - utf8_len(head)
    more = f"; {hint}" if hint else ""
    return f"{head.rstrip()}\n… [{rest:,} more bytes not shown{more}]"


def _size(text: str) -> int:
    """UTF-8 bytes of ``text``; an ASCII text (the common case) is not encoded to know."""
    return len(text) if text.isascii() else utf8_len(text)
