"""Show stored text on a terminal without letting it act on the terminal.

A memory, a keyword or a project name can hold anything a file can: an escape
sequence that clears the screen or retitles the window, a bell, a NUL, a bidi
override that reorders what a person reads, a zero-width character that hides
a difference, a byte that was not UTF-8. Printed raw, the terminal would run
or hide them. Here each one is spelled out instead (``\\x1b``, ``\\u202e``,
``\\xff`` for an undecodable byte), so a person sees exactly what is stored;
tab and newline stay as they are. Stored bytes never change: this is applied
to what is printed, and only there (``--json`` output is ASCII JSON instead).
DEL is left alone: terminals ignore it, and so ASCII JSON (which escapes every
other control character) passes through unchanged.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Final

#: Line and paragraph separators: a terminal may break a line on them.
_SEPARATORS: Final = "\u2028\u2029"
_pattern: re.Pattern[str] | None = None


def _shown() -> re.Pattern[str]:
    global _pattern  # noqa: PLW0603 -- a module-level cache of a compiled constant
    if _pattern is None:
        import re

        from pi_memory.inject.sanitize import FORMAT_CHAR_RANGES

        ranges = "".join(
            f"\\U{low:08x}" if low == high else f"\\U{low:08x}-\\U{high:08x}"
            for low, high in FORMAT_CHAR_RANGES
        )
        _pattern = re.compile(
            f"[\\x00-\\x08\\x0b-\\x1f\\x80-\\x9f{_SEPARATORS}\\ud800-\\udfff{ranges}]"
        )
    return _pattern


def _spelled(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte kept by surrogateescape: show the byte
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def needs_showing(text: str) -> bool:
    """Cheap test: False for lines of printable characters, the common case. Every
    character :func:`visible` spells out is one ``str.isprintable`` refuses (a control, a
    format character, a separator, a surrogate), so printable text is shown as it is."""
    return not text.replace("\n", "").replace("\t", "").isprintable()


def visible(text: str) -> str:
    """``text`` with every character that would act on a terminal spelled out."""
    if not needs_showing(text):
        return text
    return _shown().sub(_spelled, text)
