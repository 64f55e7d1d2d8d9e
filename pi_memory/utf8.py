"""Text that must be UTF-8: what comes in from a person or an agent, whatever the locale.

Stored files are read with ``surrogateescape``, so a damaged byte on disk
survives as a lone surrogate and is written back as the same byte. New text
is held to a stricter rule: a keyword or a body that is not valid UTF-8 (a
stray byte on the command line, a lone surrogate in a tool's JSON) is refused
at the door, before anything is stored.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: What a refusal calls such text (one phrase, so people and tests can find it).
NOT_UTF8: Final = "not valid UTF-8"


def utf8_issue(text: str) -> str | None:
    """Why ``text`` cannot be stored as UTF-8, or None when it can."""
    if text.isascii():
        return None
    for index, char in enumerate(text):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            return f"{NOT_UTF8} (byte 0x{code - 0xDC00:02x} at character {index + 1})"
        if 0xD800 <= code <= 0xDFFF:
            return f"{NOT_UTF8} (unpaired surrogate U+{code:04X} at character {index + 1})"
    return None


def from_os(arg: str) -> str:
    """A command-line argument as the UTF-8 its bytes spell, whatever the locale.

    Under a C or POSIX locale without UTF-8 mode, Python decodes ``argv`` as
    ASCII and keeps every other byte as a surrogate; a terminal that sent
    UTF-8 meant the text those bytes spell. Bytes that are not UTF-8 stay
    surrogates, to be refused by :func:`utf8_issue` where text is stored.
    """
    if os.name != "posix" or arg.isascii():
        return arg
    try:
        raw = os.fsencode(arg)
    except UnicodeError:
        return arg
    return raw.decode("utf-8", "surrogateescape")


def read_stdin() -> str:
    """All of stdin as UTF-8 text, a leading BOM dropped; invalid bytes kept as surrogates."""
    stream = sys.stdin
    if stream is None:
        return ""
    buffer = getattr(stream, "buffer", None)  # None: a text-only stream, already decoded
    text = stream.read() if buffer is None else buffer.read().decode("utf-8", "surrogateescape")
    return text[1:] if text.startswith("\ufeff") else text


def utf8_streams() -> None:
    """Make stdout and stderr write UTF-8 whatever the locale says.

    A person's terminal under ``LC_ALL=C`` still shows UTF-8 (or at worst
    replacement marks); an ASCII stream would fail the whole command on the
    first ``—``.
    """
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").replace("_", "-").lower()
        reconfigure = getattr(stream, "reconfigure", None)
        if encoding not in ("utf-8", "utf8") and reconfigure is not None:
            try:
                reconfigure(encoding="utf-8", errors="backslashreplace")
            except (OSError, ValueError):
                continue
