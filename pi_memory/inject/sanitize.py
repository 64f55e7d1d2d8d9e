"""Make stored text safe to inject into a host prompt.

Every string that reaches a prompt — index lines, keyword tables, entry names
and bodies — passes through :func:`sanitize_for_injection`, so that no memory
can close or forge a host tag (``</relevant_memories>``, ``<system>``…) or hide
text behind invisible and bidi characters. Files on disk are never rewritten:
sanitising happens at injection time only.

The result is a fixed point (``sanitize(sanitize(x)) == sanitize(x)``): ``&`` is
left alone, so a value replayed from a transcript never drifts.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Final

#: Every code point of Unicode general category Cf (format characters), as
#: inclusive ranges, taken from Unicode 15.1. A table instead of a scan of
#: ``unicodedata`` keeps start-up cheap, and it also covers format characters that
#: an older Python's Unicode database does not know yet (the tests check it
#: against the running interpreter's database).
FORMAT_CHAR_RANGES: Final[tuple[tuple[int, int], ...]] = (
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)

_pattern: re.Pattern[str] | None = None


def _format_chars() -> re.Pattern[str]:
    """The compiled character class, built on first use (hooks that inject nothing skip it)."""
    global _pattern  # noqa: PLW0603 -- a module-level cache of a compiled constant
    if _pattern is None:
        import re

        parts = "".join(
            f"\\U{low:08x}" if low == high else f"\\U{low:08x}-\\U{high:08x}"
            for low, high in FORMAT_CHAR_RANGES
        )
        _pattern = re.compile(f"[{parts}]")
    return _pattern


def _nothing_to_strip(text: str) -> bool:
    """Whether ``text`` holds no format or control character and no lone surrogate: every
    character but tab, newline and carriage return is printable (Python's printable
    characters are none of those; a format character of :data:`FORMAT_CHAR_RANGES` that an
    older Unicode database does not know is unassigned there, not printable either). Read
    in the interpreter's C loops, so that a text with nothing to strip (nearly every one)
    needs neither pattern compiled."""
    return text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable()


def strip_invisible_chars(text: str) -> str:
    """``text`` without Unicode format characters (zero-width, bidi controls, BOM, tags…)."""
    if text.isascii() or _nothing_to_strip(text):
        return text
    return _format_chars().sub("", text)


_controls: re.Pattern[str] | None = None


def strip_controls(text: str) -> str:
    """``text`` without control characters (ESC, BEL, NUL, DEL, C1) other than tab, newline and
    carriage return (line endings are the text's, not a hidden instruction),
    and with each lone surrogate (a byte that was not UTF-8 on disk) shown as U+FFFD."""
    global _controls  # noqa: PLW0603 -- a module-level cache of a compiled constant
    if _nothing_to_strip(text):
        return text
    if _controls is None:
        import re

        _controls = re.compile("[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]|([\\ud800-\\udfff])")
    return _controls.sub(lambda m: "\ufffd" if m.group(1) else "", text)


def sanitize_for_injection(text: str) -> str:
    """``text`` without format and control characters and with ``<`` / ``>`` escaped.

    Tab, newline and carriage return stay; a lone surrogate becomes U+FFFD; nothing else
    changes.
    """
    if not _nothing_to_strip(text):
        text = strip_controls(strip_invisible_chars(text))
    if "<" in text or ">" in text:
        text = text.replace("<", "&lt;").replace(">", "&gt;")
    return text
