"""The hand-editable ``MEMORY.md`` of the ``files`` layout: one line per memory.

A recognised line is ``- [Name](file.md) — description`` (U+2014 with one
space either side when written; any whitespace accepted when read). Every
other line — headings, groups, comments, blank lines — belongs to the person
who wrote it, so writes are surgical: ``add`` appends at the very end (the
injection window is the bottom of the file, so the newest memory is always
in it), ``replace`` rewrites its own line in place, ``remove``
deletes its own line, and nothing else moves.

Line endings are the one exception: CRLF and lone CR are normalised to LF
before anything is parsed, and every write emits LF, so the first write to a
file saved by a Windows editor converts the whole file. All three consumers of
the index (parsing, writing, injection) split lines with :func:`~pi_memory.text.split_lines`,
so a line number means the same thing everywhere.

Whitespace and ``trim`` follow the reference extension (see :mod:`pi_memory.text`),
so both read the same file the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pi_memory.text import JS_SPACE, is_blank, js_trim, split_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

DEFAULT_HEADER: Final = ("# Memory Index", "")

_WS: Final = "[" + re.escape(JS_SPACE) + "]"
#: ECMAScript ``.``: anything but a line terminator.
_DOT: Final = "[^\n\r\u2028\u2029]"
# Both groups are lazy: a file name may contain ")" and a name may contain "]".
_LINE_RE: Final = re.compile(
    rf"-{_WS}+\[({_DOT}+?)\]\(({_DOT}+?)\){_WS}*—{_WS}*({_DOT}*)\Z",
)

CAPACITY_TEMPLATE: Final = (
    "MEMORY.md is over its limit: {line_count}/{max_lines} lines, "
    "{byte_length}/{max_bytes} bytes. The write succeeded, but everything past "
    "the limit is dropped on the next load. Rewrite it now: keep one line per entry, "
    "merge or drop stale entries, and move detail into entry bodies rather than the index."
)


@dataclass(frozen=True)
class IndexLine:
    """One recognised index line (``line_no`` is -1 for a line not read from a file)."""

    name: str
    file: str
    description: str
    line_no: int = -1


@dataclass(frozen=True)
class ParsedIndex:
    lines: tuple[str, ...]
    entries: tuple[IndexLine, ...]
    #: Non-blank lines that are not entry lines (headings, groups, comments).
    unrecognized: int


@dataclass(frozen=True)
class IndexCapacity:
    line_count: int
    byte_length: int
    ok: bool


@dataclass(frozen=True)
class RebuiltIndex:
    text: str
    entries: int
    header_lines: int


def _join_lines(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def parse_index_line(line: str, line_no: int = -1) -> IndexLine | None:
    match = _LINE_RE.match(line)
    if match is None:
        return None
    name, file, description = (js_trim(group) for group in match.groups())
    return IndexLine(name, file, description, line_no)


def parse_entry_index(raw: str) -> ParsedIndex:
    lines = split_lines(raw)
    entries: list[IndexLine] = []
    unrecognized = 0
    for number, line in enumerate(lines):
        if is_blank(line):
            continue
        parsed = parse_index_line(line, number)
        if parsed is None:
            unrecognized += 1
        else:
            entries.append(parsed)
    return ParsedIndex(tuple(lines), tuple(entries), unrecognized)


def format_index_line(name: str, file: str, description: str) -> str:
    return f"- [{name}]({file}) — {description}"


def upsert_index_line(
    raw: str, name: str, file: str, description: str, at_line_no: int | None = None
) -> str:
    """Write ``file``'s line: at ``at_line_no``, over its first existing line, or appended.

    A new line goes at the very end, below any handwritten trailing line: the
    injection window counts from the bottom, and the newest memory belongs there.
    """
    line = format_index_line(name, file, description)
    text = _lf_text(raw, file) if at_line_no is None else None
    if text is not None:
        found = _line_of(text, file)
        if found is None:
            return text + line + "\n"
        return text[: found[0]] + line + text[found[1] :]
    parsed = parse_entry_index(raw)
    lines = list(parsed.lines)
    if at_line_no is not None:
        # As an array assignment: past the end the lines between are empty, and a
        # negative index is no line at all.
        if at_line_no >= 0:
            lines.extend([""] * (at_line_no + 1 - len(lines)))
            lines[at_line_no] = line
        return _join_lines(lines)
    for entry in parsed.entries:
        if entry.file == file:
            lines[entry.line_no] = line
            return _join_lines(lines)
    lines.append(line)
    return _join_lines(lines)


def remove_index_line(raw: str, file: str) -> str:
    """Delete the first line pointing at ``file``; ``raw`` unchanged (even CRLF) when none does."""
    text = _lf_text(raw, file)
    if text is not None:
        found = _line_of(text, file)
        return raw if found is None else text[: found[0]] + text[found[1] + 1 :]
    parsed = parse_entry_index(raw)
    for entry in parsed.entries:
        if entry.file == file:
            lines = list(parsed.lines)
            del lines[entry.line_no]
            return _join_lines(lines)
    return raw


def _lf_text(raw: str, file: str) -> str | None:
    """``raw`` as a write emits it, when only the lines holding ``file`` need parsing to
    change it: it has no CR to normalise (it gains only a final LF), and ``file`` is
    text that cannot span a line. ``None``: every line is parsed instead."""
    if "\r" in raw or not file.strip() or "\n" in file:
        return None
    return raw if not raw or raw.endswith("\n") else raw + "\n"


def _line_of(text: str, file: str) -> tuple[int, int] | None:
    """Where the first recognised line of ``text`` (LF lines) pointing at ``file`` starts
    and ends (at its LF): only lines holding ``file`` are parsed."""
    at = text.find(file)
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        parsed = parse_index_line(text[start:end])
        if parsed is not None and parsed.file == file:
            return start, end
        at = text.find(file, end)
    return None


def index_capacity(raw: str, max_lines: int, max_bytes: int) -> IndexCapacity:
    """Non-blank lines (after newline normalisation) and raw UTF-8 bytes against the limits."""
    line_count = sum(1 for line in split_lines(raw) if not is_blank(line))
    byte_length = len(raw.encode("utf-8", "surrogatepass"))
    return IndexCapacity(
        line_count, byte_length, line_count <= max_lines and byte_length <= max_bytes
    )


def capacity_warning(raw: str, max_lines: int, max_bytes: int) -> str | None:
    """The actionable warning a write returns when the index is over its limit."""
    cap = index_capacity(raw, max_lines, max_bytes)
    if cap.ok:
        return None
    return CAPACITY_TEMPLATE.format(
        line_count=cap.line_count,
        max_lines=max_lines,
        byte_length=cap.byte_length,
        max_bytes=max_bytes,
    )


def rebuild_index(raw: str, entries: Sequence[IndexLine]) -> RebuiltIndex:
    """A fresh index for ``entries`` (already in order) under the handwritten header.

    The header is every line before the first recognised entry line, with its
    trailing blank lines dropped; without one, or when it is only the default
    title, it is ``# Memory Index`` and a blank line (as a new index starts). Old
    entry lines and everything after them are regenerated, so one run settles.
    """
    parsed = parse_entry_index(raw)
    end = parsed.entries[0].line_no if parsed.entries else len(parsed.lines)
    header = list(parsed.lines[:end])
    while header and is_blank(header[-1]):
        header.pop()
    if header in ([], list(DEFAULT_HEADER[:1])):
        header = list(DEFAULT_HEADER)  # not handwritten: its blank line stays
    effective = header
    lines = effective + [format_index_line(e.name, e.file, e.description) for e in entries]
    return RebuiltIndex(_join_lines(lines), len(entries), len(effective))
