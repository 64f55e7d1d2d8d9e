"""The ``files`` layout: one Markdown file per memory plus a hand-editable ``MEMORY.md``.

An entry file is a five-field frontmatter in fixed order, a blank line, and
the body::

    ---
    name: SSH port on staging
    description: staging SSH listens on 2222, not 22; key at ~/.ssh/staging
    type: project
    created: 2026-07-13
    modified: 2026-10-02T08:14:03.120Z
    ---

    staging 的 SSH 用 2222 端口，密钥在 ~/.ssh/staging。

``type`` is one of user / feedback (default) / project / reference; ``created``
(``YYYY-MM-DD``, UTC) is written once and kept on every overwrite; ``modified``
(ISO 8601 with milliseconds and ``Z``) is always written by the store. CRLF
and lone CR are read as LF; files are always written with LF. A file whose
frontmatter lacks one of the five fields (a 1.x topic file) is not a memory
and is left alone.

Extra frontmatter keys
----------------------
So that a memory moved between layouts keeps everything the engine knows, the
store writes more keys after the five, each only when it carries information:
``id``, ``keyword``, ``time``, ``project``, ``src``, ``category``, ``seen``
(only when > 1), ``last``, ``supersedes`` (comma list), ``superseded-by``, then
any keys this package does not know, as they were (``Entry.extra``). A file
written by the reference extension has none of them and is still a complete
memory; it maps to an :class:`~pi_memory.entry.Entry` like this:

==========  ==============================================================
``id``      ``created`` as ``YYYYMMDD`` + ``-`` + the first 4 hex digits of
            sha256(name) — stable across reads, so search, recalls and
            supersede links work without storing it
``time``    ``modified`` converted to local ``YYYY-MM-DD HH:MM:SS``
``keyword`` derived from the name (``keywords.coerce_keywords(name, body)``)
``src``     ``user``
``project`` empty
``body``    everything after the frontmatter, trimmed
``file``    the file name
==========  ==============================================================

A key is written only when its value differs from what the rules above
would derive, ``id`` included: a memory written through the ``memory`` tool
is pi-memory's five fields and nothing else, byte for byte what the reference
extension writes. An id travels as an ``id`` key only when the name and the
creation day cannot give it back: a memory imported from the categories
layout or written by ``write`` (time-based ids), or one whose derived id was
taken. The reference reads such a file as the same memory (it ignores keys
it does not know); a supersede link names ids, so both ends keep theirs.

The type ↔ category table and the fields a row carries are in
:mod:`pi_memory.layouts.carry`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pi_memory.entry import Entry, format_time, is_id, parse_time
from pi_memory.errors import EntryRejected
from pi_memory.keywords import coerce_keywords
from pi_memory.layouts.carry import ENTRY_TYPES
from pi_memory.text import js_trim, normalize_newlines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

DEFAULT_SRC: Final = "user"
#: The extra keys this package writes, in the order it writes them.
EXTRA_KEYS: Final = (
    "id",
    "keyword",
    "time",
    "project",
    "src",
    "category",
    "seen",
    "last",
    "supersedes",
    "superseded-by",
)
#: Extra keys that live on ``Entry`` fields rather than in ``Entry.extra``.
_FIELD_KEYS: Final = frozenset(EXTRA_KEYS) - {"category"}

_JS_DOT: Final = "[^\n\r\u2028\u2029]"
# The reference reads keys of letters, digits and "_"; "-" is ours (superseded-by).
_FIELD_RE: Final = re.compile(rf"([A-Za-z_][A-Za-z0-9_-]*):[ \t]*({_JS_DOT}*)\Z")
_CREATED_RE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")

# --------------------------------------------------------------------------- format


@dataclass(frozen=True)
class EntryMeta:
    name: str
    description: str
    type: str
    created: str
    modified: str


@dataclass(frozen=True)
class ParsedEntryFile:
    meta: EntryMeta
    body: str
    #: Frontmatter keys beyond the five, in file order (a repeated key keeps its last value).
    extra: tuple[tuple[str, str], ...] = ()


def parse_entry_file(raw: str) -> ParsedEntryFile | None:
    """The frontmatter and body of an entry file, or None when it is not a v2 memory.

    Values are taken verbatim (no YAML unquoting) and only checked for presence;
    ``description`` must be present but may be empty. A byte-order mark is not
    skipped, as upstream.
    """
    raw = normalize_newlines(raw)
    if not raw.startswith("---\n"):
        return None
    end = raw.find("\n---", 4)
    if end == -1:
        return None
    fields: dict[str, str] = {}
    for line in raw[4:end].split("\n"):
        match = _FIELD_RE.match(line)
        if match is not None:
            fields[match.group(1)] = js_trim(match.group(2))
    name = fields.get("name", "")
    kind = fields.get("type", "")
    created = fields.get("created", "")
    modified = fields.get("modified", "")
    if not name or not created or not modified or kind not in ENTRY_TYPES:
        return None
    if "description" not in fields:
        return None
    body_start = raw.find("\n", end + 1)
    body = "" if body_start == -1 else js_trim(raw[body_start + 1 :])
    meta = EntryMeta(name, fields["description"], kind, created, modified)
    five = {"name", "description", "type", "created", "modified"}
    extra = tuple((key, value) for key, value in fields.items() if key not in five)
    return ParsedEntryFile(meta, body, extra)


def serialize_entry_file(meta: EntryMeta, body: str, extra: Sequence[tuple[str, str]] = ()) -> str:
    """``---``, the five fields, the extra keys, ``---``, a blank line, the trimmed body, LF."""
    header = [
        "---",
        f"name: {meta.name}",
        f"description: {meta.description}",
        f"type: {meta.type}",
        f"created: {meta.created}",
        f"modified: {meta.modified}",
    ]
    header.extend(f"{key}: {value}" for key, value in extra)
    header.append("---")
    text = "\n".join(header)
    trimmed = js_trim(body)
    return f"{text}\n" if not trimmed else f"{text}\n\n{trimmed}\n"


# --------------------------------------------------------------------------- entry mapping


def derived_time(modified: str) -> str:
    """The local ``YYYY-MM-DD HH:MM:SS`` of an ISO ``modified``; ``""`` when unreadable."""
    parsed = parse_time(modified)
    return "" if parsed is None else format_time(parsed)


def derived_id(name: str, created: str, modified: str) -> str:
    """The stable id of a memory that has none stored: its creation day and a name hash."""
    day = created if _CREATED_RE.match(created) else modified[:10]
    digits = day.replace("-", "")
    if not (len(digits) == 8 and digits.isdigit() and digits.isascii()):
        digits = "19700101"
    return f"{digits}-{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:4]}"


def derived_keyword(name: str, body: str) -> str:
    return coerce_keywords(name, body)[0]


def entry_from_file(parsed: ParsedEntryFile, file: str, layer: str) -> Entry:
    """The engine's record of a parsed entry file (see the module docstring for defaults)."""
    meta = parsed.meta
    stored = dict(parsed.extra)
    seen_text = stored.get("seen", "")
    seen = int(seen_text) if seen_text.isdigit() and seen_text.isascii() else 1
    stored_id = stored.get("id", "")
    superseded_by = stored.get("superseded-by", "")
    supersedes = tuple(
        part for part in (p.strip() for p in stored.get("supersedes", "").split(",")) if is_id(part)
    )
    return Entry(
        id=stored_id if is_id(stored_id) else derived_id(meta.name, meta.created, meta.modified),
        time=stored.get("time", "") or derived_time(meta.modified),
        project=stored.get("project", ""),
        src=stored.get("src", "") or DEFAULT_SRC,
        keyword=stored.get("keyword", "") or derived_keyword(meta.name, parsed.body),
        body=parsed.body,
        layer=layer,
        file=file,
        seen=max(seen, 1),
        last=stored.get("last", ""),
        supersedes=supersedes,
        superseded_by=superseded_by if is_id(superseded_by) else "",
        name=meta.name,
        description=meta.description,
        type=meta.type,
        created=meta.created,
        modified=meta.modified,
        extra=tuple((k, v) for k, v in parsed.extra if k not in _FIELD_KEYS),
    )


def _one_line(value: str) -> str:
    return " ".join(normalize_newlines(value).split("\n")).strip()


def entry_extra(entry: Entry) -> list[tuple[str, str]]:
    """The extra frontmatter of ``entry``: ours in fixed order, then unknown keys as they were."""
    unknown = dict(entry.extra)
    candidates = (
        (
            "id",
            "" if entry.id == derived_id(entry.name, entry.created, entry.modified) else entry.id,
        ),
        (
            "keyword",
            "" if entry.keyword == derived_keyword(entry.name, entry.body) else entry.keyword,
        ),
        ("time", "" if entry.time == derived_time(entry.modified) else entry.time),
        ("project", entry.project),
        ("src", "" if entry.src == DEFAULT_SRC else entry.src),
        ("category", unknown.pop("category", "")),
        ("seen", str(entry.seen) if entry.seen > 1 else ""),
        ("last", entry.last),
        ("supersedes", ",".join(entry.supersedes)),
        ("superseded-by", entry.superseded_by),
    )
    pairs = [(key, _one_line(value)) for key, value in candidates]
    pairs.extend((key, _one_line(value)) for key, value in unknown.items())
    return [(key, value) for key, value in pairs if value]


def check_name(name: str) -> None:
    if not name:
        raise EntryRejected("name is required")
    if "\r" in name or "\n" in name:
        raise EntryRejected("name must be a single line")
    check_controls("name", name)
    # "](" would let a name forge the file part of its own index line.
    if "](" in name:
        raise EntryRejected("name must not contain ']('")


def check_description(description: str) -> None:
    if "\r" in description or "\n" in description:
        raise EntryRejected("description must be a single line")
    check_controls("description", description)


def check_controls(what: str, text: str) -> None:
    """New text of a memory holds no control character but tab and newline."""
    from pi_memory.control_chars import control_issue

    problem = control_issue(text)
    if problem is not None:
        raise EntryRejected(f"{what} {problem}")


def check_created(created: str) -> None:
    if not _CREATED_RE.match(created):
        raise EntryRejected("created must be YYYY-MM-DD")


def check_type(kind: str) -> None:
    if kind not in ENTRY_TYPES:
        raise EntryRejected(f"type must be one of {', '.join(ENTRY_TYPES)}")


def entry_to_text(entry: Entry) -> str:
    """The file bytes for ``entry``; rejects what could not be read back as the same memory."""
    check_name(entry.name)
    check_description(entry.description)
    check_type(entry.type)
    check_created(entry.created)
    meta = EntryMeta(entry.name, entry.description, entry.type, entry.created, entry.modified)
    return serialize_entry_file(meta, entry.body, entry_extra(entry))


def touched(entry: Entry, modified: str) -> Entry:
    """``entry`` rewritten at ``modified``; a ``time`` that tracked ``modified`` keeps tracking."""
    time = entry.time
    if time == derived_time(entry.modified):
        time = derived_time(modified)
    return entry._replace(modified=modified, time=time)
