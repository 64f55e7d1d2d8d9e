"""JSON a client sends (an MCP message, a tool's arguments), read with a bound on its nesting.

Python's reader recurses once per level: a short line nested a few thousand
levels deep exhausts the interpreter's stack, and how deep it may go differs
between Python versions. No message pi_memory reads nests more than a handful
of levels, so anything past :data:`MAX_DEPTH` is refused before it is parsed,
the same way on every version, as a :class:`ValueError` like any other
malformed input.

Read with the interpreter's ``_json`` scanner itself, the one ``json.loads``
drives: importing ``json`` (and the ``re`` it needs) costs an MCP server's start
and every hook more than the interpreter's own start does. What the scanner
refuses is read again by ``json.loads``, whose error says where and why.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs the MCP server's start milliseconds
if TYPE_CHECKING:
    from typing import Final

#: The deepest nesting of arrays and objects accepted.
MAX_DEPTH: Final = 64


class TooDeep(ValueError):
    """The document nests arrays and objects deeper than :data:`MAX_DEPTH`."""


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of ``text`` nest (brackets inside strings do not count)."""
    import re

    depth = deepest = 0
    strings = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
    for bracket in re.findall(r"[\[\]{}]", strings.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def too_deep(text: str) -> bool:
    """Whether ``text`` nests deeper than :data:`MAX_DEPTH`; a text with no more opening
    brackets than that cannot (most messages), and is not scanned."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    return nesting_depth(text) > MAX_DEPTH


class _Decoder:
    """What ``_json``'s scanner reads of the decoder driving it: ``json.loads``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {
        "-Infinity": float("-inf"),
        "Infinity": float("inf"),
        "NaN": float("nan"),
    }.__getitem__


_WHITESPACE: Final = " \t\n\r"


def parse(text: str) -> object:
    """``json.loads(text)`` of a ``str``, the same value or the same ``ValueError``
    (a ``json.JSONDecodeError``), without importing ``json`` unless it fails."""
    try:
        from _json import make_scanner
    except ImportError:  # an interpreter without the accelerator
        pass
    else:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            found, end = make_scanner(_Decoder())(text, start)  # type: ignore[arg-type]
        except (StopIteration, ValueError):
            pass  # json.loads below says what is wrong, and where
        else:
            if not text[end:].strip(_WHITESPACE):
                return found
    import json

    return json.loads(text)


def loads(text: str) -> object:
    """``json.loads(text)``; :class:`TooDeep` (a ``ValueError``) past :data:`MAX_DEPTH` levels."""
    if too_deep(text):
        raise TooDeep(f"nested too deeply (more than {MAX_DEPTH} levels of arrays and objects)")
    return parse(text)
