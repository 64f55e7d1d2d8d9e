"""The ``categories`` layout (pi-memory-auto): category files holding one entry row per memory.

A row is a metadata comment line followed by the body::

    <!-- mid: 20261011-a1b2 | t: 2026-10-11 19:40:00 | p: myproject | src: user | tags: deploy -->
    Deploy with `rsync --delete`; back up the previous release first.

Reading never fails and never loses bytes: files are decoded with
``surrogateescape`` (invalid UTF-8 survives a rewrite), line endings are kept
per line, a BOM stays where it is, and anything that is not a well-formed row
(headings, stray text, git conflict markers, a half-written header) is kept as
it is. Rewriting one entry changes that entry's lines and nothing else.

A memory from the files layout keeps what a row has no field for in more
header fields after ``tags`` (before ``seen``), each only when the entry has
it: ``name``, ``description``, ``type``, ``created``, ``modified``, ``file``
(the entry file's name) and ``x-<key>`` for each unknown frontmatter key
(``Entry.extra``). Values are percent-encoded where a header cannot hold them
(``%``, ``|``, ``>``), and so are the upper-case letters of an ``x-`` key,
since header keys are read case-insensitively. A legacy ``tags`` text that is
not the keyword is kept in ``Entry.extra`` on read and written back as it was.

Teams commit the project layer, so it merges with plain git. The layout
writes a ``.gitattributes`` into the project layer (once, never over a
user's) that merges its Markdown files by union: two branches that each
append a row merge without a conflict, and ``MEMORY.md``, derived, is
rebuilt from the rows on the next write or session start. What a union can
produce is folded on read and repaired by the next write to that layer: rows
of one id whose bodies say the same (or are empty, a header left over from
the other side) become one memory with the larger ``seen``, the later
``last``, the earliest ``t`` and every supersede link. Rows of one id with
different bodies are both kept, as after any conflict.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from pi_memory.entry import Entry, is_id
from pi_memory.layouts.carry import FILE_NAME_KEY, RAW_TAGS_KEY, stored_tags
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Final

BOM: Final = "\ufeff"
_HEADER_RE: Final = re.compile(r"^[ \t]*<!--[ \t]*mid:(?P<fields>.*?)-->[ \t]*$")
_CONFLICT_RE: Final = re.compile(r"^(<{7}|={7}|>{7}|\|{7})(?:[ \t].*)?$")
_BOUNDARY_STARTS: Final = frozenset("<=>|")
_LINE_RE: Final = re.compile(r"[^\n]*\n|[^\n]+")

#: Field names as written, in the order a new header carries them.
_MID, _TIME, _PROJECT, _SRC, _TAGS = "mid", "t", "p", "src", "tags"
_SEEN, _LAST, _SUPERSEDES, _SUPERSEDED_BY = "seen", "last", "supersedes", "superseded-by"
#: Fields a row carries for the files layout, written after ``tags`` in this order.
_CARRIED: Final = ("name", "description", "type", "created", "modified")
_FILE, _EXTRA_PREFIX = "file", "x-"
#: ``Entry.extra`` keys for what a row carries with no ``Entry`` field of its own
#: (``FILE_NAME_KEY``, ``RAW_TAGS_KEY``) are defined in :mod:`pi_memory.layouts.carry`.
_ESCAPES: Final = {"%": "%25", "|": "%7C", ">": "%3E"}
_UNESCAPE_RE: Final = re.compile(r"%(25|7[Cc]|3[Ee])")
_UNESCAPE_KEY_RE: Final = re.compile(r"%([0-9A-Fa-f]{2})")


def decode(data: bytes) -> str:
    """Bytes of a category file as text; invalid UTF-8 survives as surrogates."""
    return data.decode("utf-8", "surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def lines_with_ends(text: str) -> list[str]:
    """Lines with their endings (``\\n`` or ``\\r\\n``) attached; no byte is lost."""
    return _LINE_RE.findall(text)


def _strip_eol(line: str) -> str:
    return line.rstrip("\n").rstrip("\r")


def _eol(line: str) -> str:
    return line[len(_strip_eol(line)) :]


class Row(NamedTuple):
    """Where one entry sits in a file: ``lines[start:end]`` (header at ``start``)."""

    entry: Entry
    start: int
    end: int
    fields: tuple[tuple[str, str], ...]


class ParsedFile(NamedTuple):
    lines: tuple[str, ...]
    rows: tuple[Row, ...]

    @property
    def entries(self) -> list[Entry]:
        return [row.entry for row in self.rows]


def parse_header_fields(line: str) -> tuple[tuple[str, str], ...] | None:
    """The ``key: value`` fields of a metadata comment, or None for any other line."""
    if line.lstrip(" \t" + BOM)[:1] != "<":
        return None
    match = _HEADER_RE.match(_strip_eol(line).lstrip(BOM))
    if match is None:
        return None
    fields = [(_MID, "")]
    for i, part in enumerate(match.group("fields").split("|")):
        if i == 0:
            fields[0] = (_MID, part.strip())
            continue
        key, sep, value = part.partition(":")
        if not sep:
            continue
        fields.append((key.strip().lower(), value.strip()))
    return tuple(fields)


def escape(value: str) -> str:
    """A carried value as a header can hold it: ``%``, ``|`` and ``>`` percent-encoded."""
    return "".join(_ESCAPES.get(char, char) for char in value)


def unescape(value: str) -> str:
    if "%" not in value:
        return value
    return _UNESCAPE_RE.sub(lambda m: chr(int(m.group(1), 16)), value)


def _escape_key(key: str) -> str:
    # Header keys are read case-insensitively, so upper-case letters are encoded too.
    return "".join(f"%{ord(c):02X}" if c.isupper() or c in "%|>" else c for c in key)


def _unescape_key(key: str) -> str:
    return _UNESCAPE_KEY_RE.sub(lambda m: chr(int(m.group(1), 16)), key)


def _is_boundary(line: str) -> bool:
    # Most lines are body text: only one that starts like a comment or a conflict
    # marker is worth the two regular expressions.
    if line.lstrip(" \t" + BOM)[:1] not in _BOUNDARY_STARTS:
        return False
    bare = _strip_eol(line).lstrip(BOM)
    return _HEADER_RE.match(bare) is not None or _CONFLICT_RE.match(bare) is not None


def _entry_from_fields(
    fields: tuple[tuple[str, str], ...], body: str, layer: str, file: str
) -> Entry | None:
    values = dict(reversed(fields))  # the first occurrence of a key wins
    entry_id = values.get(_MID, "")
    if not is_id(entry_id):
        return None
    from pi_memory.keywords import coerce_keywords

    keyword, dropped = coerce_keywords(values.get(_TAGS, ""), body)
    try:
        seen = max(1, int(values.get(_SEEN, "1")))
    except ValueError:
        seen = 1
    supersedes = tuple(
        dict.fromkeys(s.strip() for s in values.get(_SUPERSEDES, "").split(",") if is_id(s.strip()))
    )
    superseded_by = values.get(_SUPERSEDED_BY, "")
    carried = {key: unescape(values.get(key, "")) for key in _CARRIED}
    return Entry(
        id=entry_id,
        time=values.get(_TIME, ""),
        project=values.get(_PROJECT, ""),
        src=values.get(_SRC, ""),
        keyword=keyword,
        body=body,
        layer=layer,
        file=file,
        seen=seen,
        last=values.get(_LAST, ""),
        supersedes=supersedes,
        superseded_by=superseded_by if is_id(superseded_by) else "",
        dropped_keywords=dropped,
        name=carried["name"],
        description=carried["description"],
        type=carried["type"],
        created=carried["created"],
        modified=carried["modified"],
        extra=_extra_from_fields(fields, values, keyword),
    )


def _extra_from_fields(
    fields: tuple[tuple[str, str], ...], values: Mapping[str, str], keyword: str
) -> tuple[tuple[str, str], ...]:
    """What a row carries beyond ``Entry``'s fields, as ``Entry.extra`` pairs."""
    out: list[tuple[str, str]] = []
    raw_tags = values.get(_TAGS, "")
    if raw_tags and raw_tags != keyword:
        out.append((RAW_TAGS_KEY, raw_tags))
    if values.get(_FILE):
        out.append((FILE_NAME_KEY, unescape(values[_FILE])))
    out.extend(
        (_unescape_key(key[len(_EXTRA_PREFIX) :]), unescape(value))
        for key, value in fields
        if key.startswith(_EXTRA_PREFIX)
    )
    return tuple(out)


def _body_end(lines: list[str], start: int) -> int:
    """Index one past the body of the row whose header is ``lines[start]``."""
    end = start + 1
    while end < len(lines) and not _is_boundary(lines[end]):
        end += 1
    return end


def _body_text(body_lines: Iterable[str]) -> str:
    return "\n".join(_strip_eol(line) for line in body_lines).strip("\n").rstrip()


def parse_category_text(text: str, layer: str, file: str) -> ParsedFile:
    """Every well-formed row of a category file, with its place in the file."""
    lines = lines_with_ends(text)
    rows: list[Row] = []
    i = 0
    while i < len(lines):
        fields = parse_header_fields(lines[i])
        if fields is None:
            i += 1
            continue
        end = _body_end(lines, i)
        entry = _entry_from_fields(fields, _body_text(lines[i + 1 : end]), layer, file)
        if entry is not None:
            rows.append(Row(entry, i, end, fields))
        i = end
    return ParsedFile(tuple(lines), tuple(rows))


def parse_entries(text: str, layer: str, file: str) -> list[Entry]:
    return parse_category_text(text, layer, file).entries


def format_header(entry: Entry) -> str:
    """The metadata comment of a new row; optional fields only when they carry information."""
    parts = [
        f"mid: {entry.id}",
        f"t: {entry.time}",
        f"p: {entry.project}",
        f"src: {entry.src}",
        f"tags: {stored_tags(entry)}",
    ]
    parts.extend(f"{key}: {value}" for key, value in _optional_fields(entry))
    return "<!-- " + " | ".join(parts) + " -->"


def _carried_fields(entry: Entry, stored: Mapping[str, str]) -> list[tuple[str, str]]:
    """The files-layout fields ``entry`` has, escaped; a stored text that says the same is kept."""
    wanted = [(key, getattr(entry, key)) for key in _CARRIED]
    extra = [(k, v) for k, v in entry.extra if k not in (FILE_NAME_KEY, RAW_TAGS_KEY)]
    wanted.append((_FILE, dict(entry.extra).get(FILE_NAME_KEY, "")))
    out = [(key, value) for key, value in wanted if value]
    out.extend((_EXTRA_PREFIX + _escape_key(k), v) for k, v in extra)
    return [(key, _kept(stored.get(key.lower()), value)) for key, value in out]


def _kept(stored: str | None, value: str) -> str:
    return stored if stored is not None and unescape(stored) == value else escape(value)


def _is_carried(key: str) -> bool:
    return key in _CARRIED or key == _FILE or key.startswith(_EXTRA_PREFIX)


def _optional_fields(
    entry: Entry, stored: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """The fields after ``tags``, each only when it carries information."""
    out = _carried_fields(entry, stored or {})
    if entry.seen > 1 or entry.last:
        out.append((_SEEN, str(entry.seen)))
        out.append((_LAST, entry.last))
    if entry.supersedes:
        out.append((_SUPERSEDES, ",".join(entry.supersedes)))
    if entry.superseded_by:
        out.append((_SUPERSEDED_BY, entry.superseded_by))
    return out


def format_entry(entry: Entry, newline: str = "\n") -> str:
    body = newline.join(entry.body.split("\n"))
    return format_header(entry) + newline + body + newline


def _rewrite_header(row: Row, entry: Entry, line: str, *, retag: bool = False) -> str:
    """The row's header with changed fields replaced in place and unknown ones kept.

    The stored ``tags`` text is kept unless the keyword changed or ``retag``
    asks for the repair: bumping ``seen`` on a legacy 1-3 keyword row must
    not collapse it behind the user's back (``rebuild`` does that, and says so).
    """
    old = row.entry
    new_values = {_MID: entry.id, _TIME: entry.time, _PROJECT: entry.project, _SRC: entry.src}
    old_values = {_MID: old.id, _TIME: old.time, _PROJECT: old.project, _SRC: old.src}
    optional = {_SEEN, _LAST, _SUPERSEDES, _SUPERSEDED_BY}
    out: list[tuple[str, str]] = []
    for key, stored in row.fields:
        if key in optional or _is_carried(key):
            continue
        value = stored
        if key in new_values and new_values[key] != old_values[key]:
            value = new_values[key]
        elif key == _TAGS and (retag or entry.keyword != old.keyword):
            value = entry.keyword
        out.append((key, value))
    if all(key != _TAGS for key, _ in out):
        out.append((_TAGS, entry.keyword))
    out.extend(_optional_fields(entry, dict(reversed(row.fields))))
    parts = [out[0][1]] + [f"{key}: {value}" for key, value in out[1:]]
    indent = line[: len(line) - len(line.lstrip(BOM + " \t"))]
    return indent + "<!-- mid: " + " | ".join(parts) + " -->" + _eol(line)


def update_rows(text: str, updates: Mapping[str, Entry], layer: str, file: str) -> str:
    """Rewrite the rows of ``updates`` (by id): the header line, and the body only if it changed."""
    return rewrite_rows(text, updates, layer, file)[0]


def rewrite_rows(
    text: str, updates: Mapping[str, Entry], layer: str, file: str
) -> tuple[str, dict[tuple[str, int], Entry]]:
    """:func:`update_rows`, and each rewritten row's entry as a fresh parse would read it.

    Only the rows being rewritten are split into lines and parsed (a row's extent
    and entry depend on its own lines alone), and they are found by searching the
    text for their ids, so rewriting one row of a large file costs about one copy
    of it. The result is keyed by ``(id, n)``: the id's n-th row in the file was
    rewritten.
    """
    rewritten: dict[tuple[str, int], Entry] = {}
    targets = _target_rows(text, updates, layer, file)
    pieces: list[str] = []
    done = len(text)
    for (entry_id, nth), (row, lines, start) in sorted(
        targets.items(), key=lambda item: -item[1][2]
    ):
        replacement = _replacement(row, lines, updates[entry_id], lambda: _newline_of_text(text))
        end = start + sum(map(len, lines))
        pieces += [text[end:done], *reversed(replacement)]
        done = start
        rewritten[entry_id, nth] = parse_entries("".join(replacement), layer, file)[0]
    pieces.append(text[:done])
    return "".join(reversed(pieces)), rewritten


def rewrite_rows_in(
    data: bytes, updates: Mapping[str, Entry], layer: str, file: str
) -> tuple[bytes, dict[tuple[str, int], Entry]]:
    """:func:`rewrite_rows` on the bytes of a file: only the lines of the rows it
    rewrites are decoded, the rest of the bytes are copied as they are (a file of
    100,000 rows is neither decoded nor encoded to bump one row's ``seen``)."""
    new, rewritten, _ = rewrite_rows_counted_in(data, updates, layer, file)
    return new, rewritten


def rewrite_rows_counted_in(
    data: bytes, updates: Mapping[str, Entry], layer: str, file: str
) -> tuple[bytes, dict[tuple[str, int], Entry], dict[str, int]]:
    """:func:`rewrite_rows_in`, and how many rows of ``data`` name each id of ``updates``
    in their header (:func:`rows_with_id_in`), counted by the same pass over the bytes
    that finds the rows to rewrite."""
    pieces, rewritten, counts, _ = rewrite_rows_counted_pieces(data, updates, layer, file)
    return b"".join(pieces), rewritten, counts


def rewrite_rows_counted_pieces(
    data: bytes, updates: Mapping[str, Entry], layer: str, file: str
) -> tuple[list[bytes | memoryview], dict[tuple[str, int], Entry], dict[str, int], bool]:
    """:func:`rewrite_rows_counted_in` with the new bytes in pieces, in order, each the
    old bytes between two rewritten rows (a view of ``data``, not a copy) or a row as
    it is now, and whether any row's bytes changed: written one after the other, a file
    of 100,000 rows is never copied whole in memory to bump one row's ``seen``."""
    if not all(entry_id.isascii() for entry_id in updates):
        text, found = rewrite_rows(decode(data), updates, layer, file)
        counts = {entry_id: rows_with_id_in(data, entry_id) for entry_id in updates}
        new = encode(text)
        return [new], found, counts, new != data
    rewritten: dict[tuple[str, int], Entry] = {}
    counts = {}
    targets = _target_rows_in(data, updates, layer, file, counts)
    view = memoryview(data)
    pieces: list[bytes | memoryview] = []
    changed = False
    done = len(data)
    for (entry_id, nth), (row, lines, start, end) in sorted(
        targets.items(), key=lambda item: -item[1][2]
    ):
        replacement = _replacement(row, lines, updates[entry_id], lambda: _newline_of(data))
        new = encode("".join(replacement))
        changed = changed or view[start:end] != new
        pieces += [view[end:done], new]
        done = start
        rewritten[entry_id, nth] = parse_entries("".join(replacement), layer, file)[0]
    pieces.append(view[:done])
    pieces.reverse()
    return pieces, rewritten, counts, changed


def _replacement(row: Row, lines: list[str], new: Entry, newline: Callable[[], str]) -> list[str]:
    """The lines that take the place of ``row`` (its ``lines``) to store ``new``: the
    header rewritten, and the body only if it changed (``newline``: the file's line
    ending, for a header that has none)."""
    header = lines[0]
    replacement = [_rewrite_header(row, new, header)]
    if new.body == row.entry.body:
        return replacement + lines[1:]
    nl = _eol(header) or newline()
    body_lines = [line + nl for line in new.body.split("\n")]
    trailing = [ln for ln in lines[1:] if not _strip_eol(ln).strip()]
    return replacement + body_lines + trailing[-1:]


def _newline_of(data: bytes) -> str:
    """:func:`_newline_of_text` of the bytes of a file."""
    at = data.find(b"\n")
    return "\r\n" if at > 0 and data[at - 1 : at] == b"\r" else "\n"


def rows_with_id_in(data: bytes, entry_id: str) -> int:
    """How many rows of the bytes of a file name ``entry_id`` in their header."""
    if not entry_id.isascii():
        return len(_header_starts(decode(data), entry_id))
    return len(_header_starts_in(data, entry_id))


def _header_starts_in(data: bytes, entry_id: str) -> list[int]:
    """:func:`_header_starts` in the bytes of a file (``entry_id`` is ASCII: its bytes
    are found exactly where the text holds it)."""
    starts: list[int] = []
    key = entry_id.encode("ascii")
    at = data.find(key)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        end = len(data) if stop < 0 else stop + 1
        if b"mid:" in data[start:end] and (not starts or starts[-1] != start):
            fields = parse_header_fields(decode(data[start:end]))
            if fields is not None and fields[0][1] == entry_id:
                starts.append(start)
        at = data.find(key, end)
    return starts


def _row_lines_in(data: bytes, start: int) -> tuple[list[str], int]:
    """:func:`_row_lines` in the bytes of a file, and where the row's bytes end."""
    lines: list[str] = []
    at = start
    while at < len(data):
        stop = data.find(b"\n", at)
        end = len(data) if stop < 0 else stop + 1
        line = decode(data[at:end])
        if lines and _is_boundary(line):
            break
        lines.append(line)
        at = end
    return lines, at


def _target_rows_in(
    data: bytes, updates: Mapping[str, Entry], layer: str, file: str, counts: dict[str, int]
) -> dict[tuple[str, int], tuple[Row, list[str], int, int]]:
    """:func:`_target_rows` in the bytes of a file, with where each row's bytes end;
    ``counts`` is given how many rows name each id (:func:`rows_with_id_in`)."""
    targets: dict[tuple[str, int], tuple[Row, list[str], int, int]] = {}
    for entry_id in updates:
        rows = []
        starts = _header_starts_in(data, entry_id)
        counts[entry_id] = len(starts)
        for start in starts:
            lines, end = _row_lines_in(data, start)
            region = parse_category_text("".join(lines), layer, file).rows
            if region:
                found = Row(region[0].entry, 0, len(lines), region[0].fields)
                rows.append((found, lines, start, end))
        if rows:
            nth = _meant(rows, updates[entry_id])
            targets[entry_id, nth] = rows[nth]
    return targets


def _meant(rows: Sequence[tuple[Row, Any, Any] | tuple[Row, Any, Any, Any]], update: Entry) -> int:
    """Which of an id's rows an update rewrites: the one whose body it carries, else
    the last (never another row's body: that would lose it)."""
    same_body = [n for n, row in enumerate(rows) if row[0].entry.body == update.body]
    return same_body[0] if same_body else len(rows) - 1


def _newline_of_text(text: str) -> str:
    """The line ending of ``text``'s first ended line (``\\n`` when none is ended)."""
    at = text.find("\n")
    return "\r\n" if at > 0 and text[at - 1] == "\r" else "\n"


def _header_starts(text: str, entry_id: str) -> list[int]:
    """Where each line whose row header names ``entry_id`` starts, in file order."""
    starts: list[int] = []
    at = text.find(entry_id)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        stop = text.find("\n", at)
        end = len(text) if stop < 0 else stop + 1
        if "mid:" in text[start:end] and (not starts or starts[-1] != start):
            fields = parse_header_fields(text[start:end])
            if fields is not None and fields[0][1] == entry_id:
                starts.append(start)
        at = text.find(entry_id, end)
    return starts


def _row_lines(text: str, start: int) -> list[str]:
    """The lines of the row whose header line starts at ``start``: the header and its
    body, up to the next header or conflict marker (as :func:`_body_end` reads them)."""
    lines: list[str] = []
    for match in _LINE_RE.finditer(text, start):
        line = match.group()
        if lines and _is_boundary(line):
            break
        lines.append(line)
    return lines


def _target_rows(
    text: str, updates: Mapping[str, Entry], layer: str, file: str
) -> dict[tuple[str, int], tuple[Row, list[str], int]]:
    """The row each update rewrites, its lines and where it starts, found by its id
    without splitting or parsing the other rows.

    An id normally has one row. When it has several (both sides of a merge
    conflict kept), the row whose body the update carries is the one meant;
    failing that, the last. Never another row's body: that would lose it.
    """
    targets: dict[tuple[str, int], tuple[Row, list[str], int]] = {}
    for entry_id in updates:
        rows = []
        for start in _header_starts(text, entry_id):
            lines = _row_lines(text, start)
            region = parse_category_text("".join(lines), layer, file).rows
            if region:
                rows.append((Row(region[0].entry, 0, len(lines), region[0].fields), lines, start))
        if rows:
            nth = _meant(rows, updates[entry_id])
            targets[entry_id, nth] = rows[nth]
    return targets


def repair_tags(text: str, layer: str, file: str) -> tuple[str, int, int]:
    """Rewrite every ``tags`` field that is not exactly its one coerced keyword.

    Returns the new text, how many rows were ``collapsed`` (they stored
    several keywords) and how many were ``repaired`` (one bad or missing tag).
    """
    parsed = parse_category_text(text, layer, file)
    lines = list(parsed.lines)
    collapsed = repaired = 0
    for row in parsed.rows:
        raw = dict(reversed(row.fields)).get(_TAGS)
        if raw == row.entry.keyword:
            continue
        if row.entry.dropped_keywords:
            collapsed += 1
        else:
            repaired += 1
        lines[row.start] = _rewrite_header(row, row.entry, lines[row.start], retag=True)
    return "".join(lines), collapsed, repaired


def body_problem(body: str) -> str | None:
    """Why ``body`` cannot be stored in a row and read back the same, or None."""
    if any(_is_boundary(line) for line in body.split("\n")):
        return "the body has a line that reads as an entry header or a conflict marker"
    return None


def append_row(text: str, entry: Entry) -> str:
    """``text`` with ``entry`` appended as a new row, in the file's own line ending
    (only the file's first and last lines are looked at)."""
    return text + appended_row(text, entry)


def appended_row(text: str, entry: Entry) -> str:
    """What :func:`append_row` adds at the end of ``text``: the row, after the line ending
    and blank line the text lacks (a half-written last line stays as it was, on a line
    of its own)."""
    nl = _newline_of_text(text)
    if not text.strip(BOM):
        return format_entry(entry, nl)
    lead = "" if text.endswith("\n") else nl
    last = text[text.rfind("\n", 0, len(text) - 1) + 1 :] + lead
    if last.strip():
        lead += nl
    return lead + format_entry(entry, nl)


def appended_row_in(data: bytes, entry: Entry) -> bytes:
    """:func:`appended_row` for the bytes of a file (only its first and last lines are
    decoded)."""
    nl = _newline_of(data)
    mark = encode(BOM)
    if not data or (data.startswith(mark) and not data.replace(mark, b"")):  # only marks
        return encode(format_entry(entry, nl))
    lead = "" if data.endswith(b"\n") else nl
    last = decode(data[data.rfind(b"\n", 0, len(data) - 1) + 1 :]) + lead
    if last.strip():
        lead += nl
    return encode(lead + format_entry(entry, nl))


def remove_rows(text: str, ids: Collection[str], layer: str, file: str) -> str:
    """``text`` without the rows of ``ids``; every other byte kept."""
    parsed = parse_category_text(text, layer, file)
    lines = list(parsed.lines)
    for row in reversed(parsed.rows):
        if row.entry.id in ids:
            del lines[row.start : row.end]
    return "".join(lines)


def _folded(rows: list[Entry]) -> Entry | None:
    """One memory for the rows of one id, or None when their bodies really differ."""
    from pi_memory.entry import normalize_memory_text

    bodies = {normalize_memory_text(e.body) for e in rows if e.body.strip()}
    if len(bodies) > 1:
        return None
    base = next((e for e in rows if e.body.strip()), rows[0])
    supersedes = tuple(dict.fromkeys(s for e in rows for s in e.supersedes))
    times = [e.time for e in rows if e.time]
    return base._replace(
        time=min(times) if times else base.time,
        seen=max(e.seen for e in rows),
        last=max(e.last for e in rows),
        supersedes=supersedes,
        superseded_by=next((e.superseded_by for e in rows if e.superseded_by), ""),
    )


def fold_merged(entries: list[Entry]) -> list[Entry]:
    """``entries`` with the rows a git union merge duplicated folded into one (see above).

    The folded memory takes the place of the id's first row.
    """
    by_id: dict[tuple[str, str], list[Entry]] = {}
    for entry in entries:
        by_id.setdefault((entry.file, entry.id), []).append(entry)
    if len(by_id) == len(entries):
        return entries
    out: list[Entry] = []
    done: set[tuple[str, str]] = set()
    for entry in entries:
        key = (entry.file, entry.id)
        rows = by_id[key]
        if len(rows) == 1:
            out.append(entry)
            continue
        folded = _folded(rows)
        if folded is None:
            out.append(entry)
        elif key not in done:
            done.add(key)
            out.append(folded)
    return out


def fold_text(text: str, layer: str, file: str) -> str:
    """``text`` with every foldable id down to one row (the first), its header rewritten."""
    parsed = parse_category_text(text, layer, file)
    groups: dict[str, list[Row]] = {}
    for row in parsed.rows:
        groups.setdefault(row.entry.id, []).append(row)
    lines = list(parsed.lines)
    edits: list[tuple[int, int, list[str]]] = []
    for rows in groups.values():
        folded = _folded([row.entry for row in rows]) if len(rows) > 1 else None
        if folded is None:
            continue
        keep = next((row for row in rows if row.entry.body.strip()), rows[0])
        header = _rewrite_header(keep, folded, lines[keep.start])
        # The id keeps its first row's place, with the body of the row that has one.
        edits.append((rows[0].start, rows[0].end, [header, *lines[keep.start + 1 : keep.end]]))
        edits.extend((row.start, row.end, []) for row in rows[1:])
    for start, end, replacement in sorted(edits, key=lambda edit: -edit[0]):
        lines[start:end] = replacement
    return "".join(lines)
