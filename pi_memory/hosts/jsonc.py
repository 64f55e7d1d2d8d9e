"""JSON with comments, as Gemini CLI reads its ``settings.json``: read it, edit it in place.

Gemini CLI strips ``//`` and ``/* */`` comments before it parses its
settings, so a person's settings may hold them. :func:`loads` reads such a
text; :func:`splice` rewrites only the parts of it an edit changed, so every
comment, blank line and indent elsewhere stays byte for byte. Members and
elements are added at the end of their object or array and removed with the
separator before them, so removing what was added gives back the very text.
"""

from __future__ import annotations

import json
import re

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

_SPACE: Final = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
_SCALAR: Final = re.compile(
    r'"(?:[^"\\\x00-\x1f]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null'
)


class Node(NamedTuple):
    """A value and where it is: ``text[start:end]``; an object's members or an array's
    elements, each with where its entry starts (the key of a member)."""

    value: Any
    start: int
    end: int
    entries: tuple[tuple[Any, int, Node], ...] = ()


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def space(self) -> None:
        match = _SPACE.match(self.text, self.pos)
        self.pos = match.end() if match else self.pos

    def fail(self, what: str) -> ValueError:
        line = self.text.count("\n", 0, self.pos) + 1
        return ValueError(f"{what} at line {line}")

    def value(self) -> Node:
        self.space()
        start = self.pos
        char = self.text[start : start + 1]
        if char in ("{", "["):
            return self.container(start, char)
        match = _SCALAR.match(self.text, start)
        if match is None:
            raise self.fail("expected a value")
        self.pos = match.end()
        return Node(json.loads(match.group()), start, self.pos)

    def container(self, start: int, opening: str) -> Node:
        closing = "}" if opening == "{" else "]"
        self.pos += 1
        entries: list[tuple[Any, int, Node]] = []
        self.space()
        while not self.text.startswith(closing, self.pos):
            if entries:
                if not self.text.startswith(",", self.pos):
                    raise self.fail(f"expected ',' or '{closing}'")
                self.pos += 1
                self.space()
            at = self.pos
            key: Any = len(entries)
            if opening == "{":
                found = self.value()
                if not isinstance(found.value, str):
                    raise self.fail("expected a member's name")
                key = found.value
                self.space()
                if not self.text.startswith(":", self.pos):
                    raise self.fail("expected ':'")
                self.pos += 1
            entries.append((key, at, self.value()))
            self.space()
        self.pos += 1
        if opening == "{":
            value: Any = {key: node.value for key, _at, node in entries}
        else:
            value = [node.value for _key, _at, node in entries]
        return Node(value, start, self.pos, tuple(entries))


def parse(text: str) -> Node:
    """The tree of ``text``; ``ValueError`` when it is not JSON with comments."""
    reader = _Reader(text)
    node = reader.value()
    reader.space()
    if reader.pos != len(text):
        raise reader.fail("unexpected text after the value")
    return node


def loads(text: str) -> Any:
    return parse(text).value


# -- editing -----------------------------------------------------------------------------


def _indent(text: str, at: int) -> str:
    """The whitespace the line holding ``at`` starts with."""
    head = text[text.rfind("\n", 0, at) + 1 : at]
    return head[: len(head) - len(head.lstrip())]


def _render(value: Any, indent: str, unit: str) -> str:
    return json.dumps(value, indent=len(unit), ensure_ascii=False).replace("\n", "\n" + indent)


def _unit(text: str, node: Node) -> str:
    if node.entries:
        inner, outer = _indent(text, node.entries[0][1]), _indent(text, node.start)
        if inner.startswith(outer) and len(inner) > len(outer):
            return " " * len(inner[len(outer) :])
    return "  "


def splice(text: str, node: Node, new: Any) -> str:
    """``text`` with the value at ``node`` changed to ``new``, the rest as it was."""
    edits: list[tuple[int, int, str]] = []
    _edit(text, node, new, edits)
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _edit(text: str, node: Node, new: Any, edits: list[tuple[int, int, str]]) -> None:
    old = node.value
    if old == new:
        return
    unit = _unit(text, node)
    kept = [(k, at, n) for k, at, n in node.entries if isinstance(new, dict) and k in new]
    if isinstance(old, dict) and isinstance(new, dict) and kept:
        _drop(text, node, [i for i, (k, _at, _n) in enumerate(node.entries) if k not in new], edits)
        for key, _at, child in kept:
            _edit(text, child, new[key], edits)
        added = [(f"{json.dumps(k)}: ", value) for k, value in new.items() if k not in old]
        _add(text, kept, added, unit, edits)
        return
    if isinstance(old, list) and isinstance(new, list) and old and new[: len(old)] == old:
        _add(text, list(node.entries), [("", v) for v in new[len(old) :]], unit, edits)
        return
    if isinstance(old, list) and isinstance(new, list) and new and _is_subsequence(new, old):
        gone, left = [], list(new)
        for i, value in enumerate(old):
            if left and left[0] == value:
                left.pop(0)
            else:
                gone.append(i)
        _drop(text, node, gone, edits)
        return
    edits.append((node.start, node.end, _render(new, _indent(text, node.start), unit)))


def _is_subsequence(short: list[Any], long: list[Any]) -> bool:
    rest = iter(long)
    return all(any(item == other for other in rest) for item in short)


def _add(
    text: str,
    kept: list[tuple[Any, int, Node]],
    added: list[tuple[str, Any]],
    unit: str,
    edits: list[tuple[int, int, str]],
) -> None:
    """New entries (``(prefix, value)``: a member's prefix is its name and colon) after the
    last kept one."""
    if not added:
        return
    indent = _indent(text, kept[-1][1])
    pieces = [",\n" + indent + prefix + _render(value, indent, unit) for prefix, value in added]
    edits.append((kept[-1][2].end, kept[-1][2].end, "".join(pieces)))


def _drop(text: str, node: Node, gone: list[int], edits: list[tuple[int, int, str]]) -> None:
    """Remove entries with the separator before them (the one after, for the first)."""
    if not gone:
        return
    entries = node.entries
    for i in gone:
        previous = next((j for j in range(i - 1, -1, -1) if j not in gone), None)
        if previous is not None:
            edits.append((entries[i - 1][2].end, entries[i][2].end, ""))
        else:
            edits.append((entries[i][1], entries[i + 1][1], ""))
