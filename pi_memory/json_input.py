"""JSON a client sends (an MCP message, a tool's arguments), read with a bound on its nesting.

Python's reader recurses once per level: a short line nested a few thousand
levels deep exhausts the interpreter's stack, and how deep it may go differs
between Python versions. No message pi_memory reads nests more than a handful
of levels, so anything past :data:`MAX_DEPTH` is refused before it is parsed,
the same way on every version, as a :class:`ValueError` like any other
malformed input.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing costs the MCP server's start milliseconds
if TYPE_CHECKING:
    from typing import Final

#: The deepest nesting of arrays and objects accepted.
MAX_DEPTH: Final = 64

_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET: Final = re.compile(r"[\[\]{}]")


class TooDeep(ValueError):
    """The document nests arrays and objects deeper than :data:`MAX_DEPTH`."""


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of ``text`` nest (brackets inside strings do not count)."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def loads(text: str) -> object:
    """``json.loads(text)``; :class:`TooDeep` (a ``ValueError``) past :data:`MAX_DEPTH` levels."""
    import json

    if nesting_depth(text) > MAX_DEPTH:
        raise TooDeep(f"nested too deeply (more than {MAX_DEPTH} levels of arrays and objects)")
    return json.loads(text)
