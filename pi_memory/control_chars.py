"""Control characters in new text: refused at the door, before anything is stored.

A NUL makes git treat a memory file as binary, so the project layer's union
merge becomes a conflict; an escape sequence or a DEL in a keyword or a body
would reach a terminal or a model as it is. New text may hold tab and line
breaks (a body's code keeps its indentation) and no other C0 or C1 control
character, nor DEL. What is already stored is read as it is (a hand edit, a
pull): printing spells such characters out (:mod:`pi_memory.inject.terminal`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_pattern: re.Pattern[str] | None = None


def control_issue(text: str) -> str | None:
    """Why ``text`` cannot be stored because of a control character, or None.

    Tab and newline pass; a caller that wants a single line says so itself.
    """
    global _pattern  # noqa: PLW0603 -- a module-level cache of a compiled constant
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return None  # the common case, without compiling anything
    if _pattern is None:
        import re

        _pattern = re.compile("[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]")
    found = _pattern.search(text)
    if found is None:
        return None
    return (
        f"contains the control character U+{ord(found.group()):04X} at character "
        f"{found.start() + 1} (only tabs and line breaks can be stored)"
    )
