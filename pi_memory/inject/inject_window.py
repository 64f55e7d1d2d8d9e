"""What the ``files`` layout puts into a prompt: the index window and surfaced entries.

- The ``memory_index`` text is the *newest* end of ``MEMORY.md`` (the bottom of
  the file: ``add`` appends there and a rebuild sorts by ``modified``), at most
  ``memIndexInjectMaxLines`` lines and ``memIndexInjectMaxBytes`` bytes, with
  :data:`INDEX_TRUNCATION_MARKER` as the first line when older lines were cut.
  A budget of 0 (or less) injects nothing.
- :func:`index_injection_capacity` runs the same window code, so what ``show``
  reports as ``Inject:`` is exactly what is injected.
- ``<relevant_memories>`` carries the bodies auto-surfacing picked, each cut to
  ``maxEntryBytes``, stopping before ``maxInjectionBytes`` would be exceeded.

Everything here is pure except :func:`read_index`. Truncation happens before
sanitising on purpose: cutting after ``<`` became ``&lt;`` could leave half an
entity (``&l``) in the prompt; the cost is that escaping may grow the text a
few bytes past the soft budget.
"""

from __future__ import annotations

from pi_memory.inject.sanitize import sanitize_for_injection
from pi_memory.named_tuple import NamedTuple
from pi_memory.text import cut_utf8, is_blank, split_lines, utf8_len

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path
    from typing import Final, Protocol
else:
    Protocol = object  # the type checker's structural base; typing costs a command milliseconds


#: First line of the index window when older lines were left out.
INDEX_TRUNCATION_MARKER: Final = (
    "[truncated: memory index exceeds injection limit; older entries omitted]"
)
#: Appended after a ``\n`` to an entry body that was cut. Deliberately different
#: from the index marker: it is one memory that was cut, not the index.
ENTRY_TRUNCATION_MARKER: Final = "[truncated: memory entry exceeds injection limit]"

#: The surfacing manifest: at most this many entries, newest first.
SIDE_QUERY_MAX_ENTRIES: Final = 200
#: The manifest's description budget in characters, split evenly between entries …
SIDE_QUERY_MANIFEST_CHARS: Final = 4000
#: … but never below this many characters each, or the pick has nothing to go on.
SIDE_QUERY_MIN_DESC_CHARS: Final = 80

#: ``truncate_for_injection`` line budget for an entry body: bodies are cut by bytes only.
UNLIMITED_LINES: Final = 999_999


class Truncation(NamedTuple):
    """The result of cutting a text to a budget; ``ok`` is ``not truncated``."""

    content: str
    truncated: bool

    @property
    def ok(self) -> bool:
        return not self.truncated


class InjectCapacity(NamedTuple):
    """What the index window holds: lines and UTF-8 bytes, the marker not counted."""

    line_count: int
    byte_length: int
    truncated: bool


class _Window(NamedTuple):
    lines: tuple[str, ...]
    #: Bytes of the lines joined by ``\n`` (no trailing newline, no marker).
    byte_length: int
    truncated: bool


class SurfacedEntry(Protocol):
    """What ``<relevant_memories>`` needs of a memory (an ``Entry`` qualifies)."""

    @property
    def name(self) -> str: ...

    @property
    def body(self) -> str: ...


class ManifestEntry(Protocol):
    """What the surfacing manifest needs of a memory (an ``Entry`` qualifies)."""

    @property
    def file(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def modified(self) -> str: ...


def _window_lines(text: str) -> list[str]:
    """Index lines for the window, split as the index parser splits them.

    Trailing blank lines are dropped: they would only use up window slots.
    """
    lines = split_lines(text)
    while lines and is_blank(lines[-1]):
        lines.pop()
    return lines


def _window(lines: Sequence[str], max_lines: int, max_bytes: int) -> _Window:
    """Collect lines from the newest end until the line or byte budget is reached."""
    kept: list[str] = []
    byte_length = 0
    for line in reversed(lines):
        cost = utf8_len(line) + (1 if kept else 0)
        if len(kept) >= max_lines or byte_length + cost > max_bytes:
            break
        kept.append(line)
        byte_length += cost
    kept.reverse()
    if not kept and lines and max_lines > 0 and max_bytes > 0:
        # The newest line alone is over budget: keep its head rather than inject an
        # empty section, which would hide that there is an index at all.
        head = cut_utf8(lines[-1], max_bytes)
        return _Window((head,), utf8_len(head), truncated=True)
    return _Window(tuple(kept), byte_length, truncated=len(kept) < len(lines))


def _joined(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def truncate_index_for_injection(content: str, max_lines: int, max_bytes: int) -> Truncation:
    """The newest end of the index within the budgets; ``""`` when either budget is ≤ 0.

    An index that fits is returned byte for byte (trailing blank lines included),
    except that CRLF and lone CR become LF so no ``\\r`` reaches the prompt.
    """
    if max_lines <= 0 or max_bytes <= 0:
        return Truncation("", truncated=False)
    window = _window(_window_lines(content), max_lines, max_bytes)
    if not window.truncated:
        return Truncation(_joined(window.lines) if "\r" in content else content, truncated=False)
    return Truncation(f"{INDEX_TRUNCATION_MARKER}\n{_joined(window.lines)}", truncated=True)


def index_injection_capacity(content: str, max_lines: int, max_bytes: int) -> InjectCapacity:
    """Lines and bytes of the index window (``show``'s ``Inject:``), marker not counted.

    Bytes include the newline after each line, so for a canonical LF index that
    fits, ``Inject`` bytes equal the file's bytes.
    """
    if max_lines <= 0 or max_bytes <= 0:
        return InjectCapacity(0, 0, truncated=False)
    window = _window(_window_lines(content), max_lines, max_bytes)
    size = window.byte_length + 1 if window.lines else 0
    return InjectCapacity(len(window.lines), size, window.truncated)


def build_index_section(index_text: str | None, max_lines: int, max_bytes: int) -> str:
    """The ``memory_index`` value: the window of ``MEMORY.md``, sanitised; ``""`` when absent."""
    if not index_text:
        return ""
    return sanitize_for_injection(
        truncate_index_for_injection(index_text, max_lines, max_bytes).content
    )


def truncate_for_injection(content: str, max_lines: int, max_bytes: int) -> Truncation:
    """Keep the *head* of an entry body; mark a cut with :data:`ENTRY_TRUNCATION_MARKER`."""
    out = content
    truncated = False
    lines = content.split("\n")
    if len(lines) > max_lines:
        out = "\n".join(lines[: max(max_lines, 0)])
        truncated = True
    if utf8_len(out) > max_bytes:
        out = cut_utf8(out, max_bytes)
        truncated = True
    if truncated:
        out = f"{out}\n{ENTRY_TRUNCATION_MARKER}"
    return Truncation(out, truncated)


def inject_surfaced_content(
    entries: Iterable[SurfacedEntry], max_entry_bytes: int, max_injection_bytes: int
) -> str:
    """One ``<relevant_memories>`` block of ``## name`` + body; ``""`` when nothing fits.

    Names and bodies are sanitised; the wrapper tags are ours and are not. The
    first entry that would push the total past ``max_injection_bytes`` ends the block.
    """
    blocks: list[str] = []
    total = 0
    for entry in entries:
        body = truncate_for_injection(entry.body, UNLIMITED_LINES, max_entry_bytes).content
        block = f"## {sanitize_for_injection(entry.name)}\n{sanitize_for_injection(body)}"
        size = utf8_len(block)
        if total + size > max_injection_bytes:
            break
        blocks.append(block)
        total += size
    if not blocks:
        return ""
    inner = "\n\n".join(blocks)
    return f"<relevant_memories>\n{inner}\n</relevant_memories>"


def scan_entries(entries: Iterable[ManifestEntry]) -> list[ManifestEntry]:
    """The manifest's entries: newest ``modified`` first, ties by file name, at most 200."""
    by_file = sorted(entries, key=lambda e: (e.file.casefold(), e.file))
    by_file.sort(key=lambda e: e.modified, reverse=True)
    return by_file[:SIDE_QUERY_MAX_ENTRIES]


def manifest_lines(entries: Sequence[ManifestEntry]) -> list[str]:
    """``[type] file.md — description`` per entry, descriptions cut to an even share of the budget.

    Descriptions are cut first and sanitised second, like every injected text.
    """
    share = max(SIDE_QUERY_MIN_DESC_CHARS, SIDE_QUERY_MANIFEST_CHARS // max(1, len(entries)))
    return [
        f"[{e.type}] {e.file} — {sanitize_for_injection(e.description[:share])}" for e in entries
    ]


def build_side_query_task(entries: Sequence[ManifestEntry], query: str, max_files: int) -> str:
    """pi-memory's side-query task: the manifest, the user's query and the JSON answer asked for."""
    return "\n".join(
        [
            f"You are a memory relevance selector. Select up to {max_files} memory files that"
            " the user's current query clearly needs; select none when nothing is relevant.",
            "",
            "=== Memory Files ===",
            *manifest_lines(entries),
            "",
            "=== User Query ===",
            sanitize_for_injection(query),
            "",
            'Respond with ONLY a JSON object: {"selected_files": ["filename.md", ...]}',
        ]
    )


def read_index(directory: Path) -> str | None:
    """``MEMORY.md`` of a layer directory as text, or ``None`` when there is none.

    Undecodable bytes become U+FFFD instead of failing a hook.
    """
    from pi_memory.naming.layer_files import INDEX_FILE  # a prompt's surfacing has no use for it

    try:
        data = (directory / INDEX_FILE).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return data.decode("utf-8", "replace")
