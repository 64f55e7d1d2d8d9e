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
            sha256(name) — stable across reads, so search, usage and
            supersede links work; stored in the file on its next write
``time``    ``modified`` converted to local ``YYYY-MM-DD HH:MM:SS``
``keyword`` derived from the name (``keywords.coerce_keywords(name, body)``)
``src``     ``user``
``project`` empty
``body``    everything after the frontmatter, trimmed
``file``    the file name
==========  ==============================================================

A key is written only when its value differs from what the rules above
would derive, except ``id``, which every write stores.

Type ↔ category (used by ``import``; a ``category`` key, when present, wins)
--------------------------------------------------------------------------
=============  ==========================================================
``user``       ``USER.md``
``reference``  ``TOOLING.md``
``feedback``   ``LESSONS.md`` (user layer) / ``CONVENTIONS.md`` (project layer)
``project``    ``DECISIONS.md``
=============  ==========================================================

``FAILURES.md`` becomes ``feedback`` and keeps ``category: FAILURES.md``; so
does any category file that is not the default for its type in its layer.

Locking
-------
The protocol methods (:meth:`FilesLayer.append`, :meth:`~FilesLayer.update`,
:meth:`~FilesLayer.remove`, :meth:`~FilesLayer.refresh_index`) take no lock:
the engine calls them while it holds the store's lock. They still leave a
snapshot of what they change. The tool methods (:meth:`~FilesLayer.add`,
:meth:`~FilesLayer.replace`, :meth:`~FilesLayer.remove_by_name`,
:meth:`~FilesLayer.rebuild`) take the lock themselves (through
:meth:`~FilesLayer.locked`) and must not be called while it is held.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Final

from pi_memory.config import defaults
from pi_memory.entry import (
    CATEGORY_FILES,
    PROJECT,
    USER,
    Entry,
    format_time,
    is_id,
    new_id,
    parse_time,
)
from pi_memory.errors import EntryRejected
from pi_memory.fs import fsretry
from pi_memory.fs.atomic import atomic_write_text
from pi_memory.fs.lock import StoreLock
from pi_memory.fs.snapshot import take_snapshot
from pi_memory.keywords import coerce_keywords
from pi_memory.layouts.categories import FILE_NAME_KEY, RAW_TAGS_KEY, stored_tags
from pi_memory.layouts.files_index import (
    IndexLine,
    RebuiltIndex,
    capacity_warning,
    normalize_newlines,
    rebuild_index,
    remove_index_line,
    upsert_index_line,
)
from pi_memory.naming.entry_names import unique_entry_file_name
from pi_memory.naming.layer_files import INDEX_FILE
from pi_memory.naming.platforms import WIN32, current_platform
from pi_memory.naming.windows import is_reserved_windows_name
from pi_memory.text import JS_SPACE, iso_timestamp, js_trim

ENTRY_TYPES: Final = ("user", "feedback", "project", "reference")
DEFAULT_TYPE: Final = "feedback"
DESCRIPTION_MAX: Final = 200
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
#: The frontmatter key holding a category row's stored ``tags`` text when it is not
#: the keyword (a legacy 1-3 keyword row), so a copy back writes the row as it was.
LEGACY_TAGS: Final = "legacy-tags"
#: Extra keys that live on ``Entry`` fields rather than in ``Entry.extra``.
_FIELD_KEYS: Final = frozenset(EXTRA_KEYS) - {"category"}

_JS_WS: Final = "[" + re.escape(JS_SPACE) + "]"
_JS_DOT: Final = "[^\n\r\u2028\u2029]"
# The reference reads keys of letters, digits and "_"; "-" is ours (superseded-by).
_FIELD_RE: Final = re.compile(rf"([A-Za-z_][A-Za-z0-9_-]*):[ \t]*({_JS_DOT}*)\Z")
_MD_MARKER_RE: Final = re.compile(
    rf"\A{_JS_WS}*(#{{1,6}}{_JS_WS}+|[-*+]{_JS_WS}+|[0-9]+[.)]{_JS_WS}+)"
)
_SENTENCE_END_RE: Final = re.compile("[。！？!?.]")
_CREATED_RE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")

_DEFAULT_CATEGORY: Final = {
    "user": {USER: "USER.md", PROJECT: "USER.md"},
    "reference": {USER: "TOOLING.md", PROJECT: "TOOLING.md"},
    "feedback": {USER: "LESSONS.md", PROJECT: "CONVENTIONS.md"},
    "project": {USER: "DECISIONS.md", PROJECT: "DECISIONS.md"},
}
_CATEGORY_TYPE: Final = {
    "USER.md": "user",
    "TOOLING.md": "reference",
    "LESSONS.md": "feedback",
    "CONVENTIONS.md": "feedback",
    "DECISIONS.md": "project",
    "FAILURES.md": "feedback",
}


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


def derive_description(body: str, max_chars: int | None = None) -> str:
    """The first sentence of the first non-blank line, Markdown markers stripped.

    Longer than ``max_chars`` (default 200, counted in UTF-16 units as upstream)
    it is cut to ``max_chars - 1`` and ends with ``…``.
    """
    limit = DESCRIPTION_MAX if max_chars is None else max_chars
    first = next((line for line in body.split("\n") if js_trim(line)), "")
    cleaned = js_trim(_MD_MARKER_RE.sub("", first, count=1))
    stop = _SENTENCE_END_RE.search(cleaned)
    sentence = js_trim(cleaned if stop is None else cleaned[: stop.end()])
    if _utf16_len(sentence) <= limit:
        return sentence
    return _utf16_prefix(sentence, limit - 1) + "…"


def _utf16_len(text: str) -> int:
    return sum(2 if ord(char) > 0xFFFF else 1 for char in text)


def _utf16_prefix(text: str, units: int) -> str:
    """The first ``units`` UTF-16 units; a split astral character becomes U+FFFD, as in Node."""
    out: list[str] = []
    used = 0
    for char in text:
        width = 2 if ord(char) > 0xFFFF else 1
        if used + width > units:
            if used < units:
                out.append("\ufffd")
            break
        out.append(char)
        used += width
    return "".join(out)


# --------------------------------------------------------------------------- entry mapping


def default_category(kind: str, layer: str) -> str:
    """The categories-layout file a memory of type ``kind`` goes to in ``layer``."""
    return _DEFAULT_CATEGORY.get(kind, _DEFAULT_CATEGORY[DEFAULT_TYPE])[layer]


def type_for_category(category: str) -> str:
    """The type of a memory from category file ``category``; ``""`` for any other file."""
    return _CATEGORY_TYPE.get(category, "")


def home_category(kind: str, layer: str) -> str:
    """The category file of ``layer`` a memory of type ``kind`` goes to.

    The table maps ``project`` to ``DECISIONS.md`` and ``user``/``reference``
    to ``USER.md``/``TOOLING.md``, files only one layer has; in the other
    layer such a memory goes where a ``feedback`` one goes (its row keeps its type).
    """
    category = default_category(kind, layer)
    if category in CATEGORY_FILES[layer]:
        return category
    return default_category(DEFAULT_TYPE, layer)


def category_of(entry: Entry) -> str:
    """Where ``entry`` goes in the categories layout: its ``category`` key, else its type's file."""
    stored = dict(entry.extra).get("category", "")
    return stored or home_category(entry.type or DEFAULT_TYPE, entry.layer)


def derived_name(entry: Entry) -> str:
    """The name of a memory that comes without one: its body's first sentence, else its keyword."""
    sentence = derive_description(js_trim(entry.body), 80).rstrip("。！？!?.")
    return (sentence or entry.keyword or entry.id).replace("](", "] (")


def category_entry(entry: Entry) -> Entry:
    """``entry`` as a category row holds it: in its category's file, with only what
    :meth:`FilesLayer.append` could not derive from the row set, so a copy back
    gives the same file.
    """
    extra = dict(entry.extra)
    wanted = extra.pop("category", "")
    raw_tags = extra.pop(LEGACY_TAGS, "")
    if wanted and wanted not in CATEGORY_FILES[entry.layer]:
        extra = {"category": wanted, **extra}  # kept, though this layer has no such file
        wanted = ""
    category = wanted or home_category(entry.type, entry.layer)
    name = entry.name or derived_name(entry)
    parsed = parse_time(entry.time)
    derived = {
        "name": derived_name(entry),
        "description": derive_description(entry.body) or name,
        "type": type_for_category(category) or DEFAULT_TYPE,
        "created": entry.time[:10] if entry.time else entry.modified[:10],
        "modified": iso_timestamp(parsed) if parsed is not None else "",
        FILE_NAME_KEY: unique_entry_file_name(name, (), case_insensitive=False),
    }
    actual = {
        "name": entry.name,
        "description": entry.description,
        "type": entry.type,
        "created": entry.created,
        "modified": entry.modified,
        FILE_NAME_KEY: entry.file,
    }
    kept = {key: "" if value == derived[key] else value for key, value in actual.items()}
    carried: list[tuple[str, str]] = []
    if raw_tags:
        as_row = entry._replace(extra=((RAW_TAGS_KEY, raw_tags),))
        if stored_tags(as_row) == raw_tags:
            carried.append((RAW_TAGS_KEY, raw_tags))
        else:
            extra[LEGACY_TAGS] = raw_tags  # a row could not hold it as its tags
    if kept[FILE_NAME_KEY]:
        carried.append((FILE_NAME_KEY, kept[FILE_NAME_KEY]))
    return entry._replace(
        file=category,
        name=kept["name"],
        description=kept["description"],
        type=kept["type"],
        created=kept["created"],
        modified=kept["modified"],
        extra=(*carried, *extra.items()),
    )


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
    return f"{digits}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:4]}"


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
        ("id", entry.id),
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
    # "](" would let a name forge the file part of its own index line.
    if "](" in name:
        raise EntryRejected("name must not contain ']('")


def check_description(description: str) -> None:
    if "\r" in description or "\n" in description:
        raise EntryRejected("description must be a single line")


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


# --------------------------------------------------------------------------- store


@dataclass(frozen=True)
class WriteResult:
    file: str
    #: The over-capacity warning for the agent, ``None`` while the index is within its limits.
    capacity_warning: str | None = None


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _sort_key(entry: Entry) -> tuple[str, str]:
    # Upstream compares with localeCompare; code-point order is the portable equivalent.
    return (entry.modified, entry.file)


class FilesLayer:
    """One layer directory in the ``files`` layout (implements ``LayerStore``)."""

    def __init__(
        self,
        layer: str,
        directory: Path,
        *,
        index_max_lines: int = defaults.MEM_INDEX_MAX_LINES,
        index_max_bytes: int = defaults.MEM_INDEX_MAX_BYTES,
        lock_timeout_ms: int = defaults.LOCK_TIMEOUT_MS,
        snapshot_keep: int = defaults.SNAPSHOT_KEEP,
        clock: Callable[[], datetime] = _utc_now,
        platform: str | None = None,
    ) -> None:
        self.layer = layer
        self.directory = Path(directory)
        self.index_max_lines = index_max_lines
        self.index_max_bytes = index_max_bytes
        self.lock_timeout_ms = lock_timeout_ms
        self.snapshot_keep = snapshot_keep
        self._clock = clock
        self.platform = platform or current_platform()
        self._snapshots = True

    # ----------------------------------------------------------------- reading

    @property
    def index_path(self) -> Path:
        return self.directory / INDEX_FILE

    def entry_files(self) -> list[str]:
        """Names of the candidate entry files: ``*.md`` but ``MEMORY.md`` and dot-files.

        On Windows a device name (``con.md``, made by hand or on another
        platform) is skipped: opening it would reach the console, not a file.
        """
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        return sorted(
            n
            for n in names
            if n.endswith(".md")
            and n != INDEX_FILE
            and not n.startswith(".")
            and not (self.platform == WIN32 and is_reserved_windows_name(n))
        )

    def read(self) -> list[Entry]:
        """Every memory of the layer, oldest ``modified`` first; damaged files are skipped."""
        entries: list[Entry] = []
        for name in self.entry_files():
            parsed = self._read_file(name)
            if parsed is not None:
                entries.append(entry_from_file(parsed, name, self.layer))
        return sorted(entries, key=_sort_key)

    def _read_file(self, name: str) -> ParsedEntryFile | None:
        path = self.directory / name
        try:
            if not path.is_file():
                return None
            # Invalid UTF-8 reads as U+FFFD, as Node's readFile(…, "utf8") does.
            raw = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return None
        return parse_entry_file(raw)

    def read_index(self) -> str:
        try:
            return self.index_path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def find(self, ref: str) -> Entry | None:
        """The memory whose file name, else whose name, is exactly ``ref``."""
        entries = self.read()
        by_file = next((e for e in entries if e.file == ref), None)
        return by_file or next((e for e in entries if e.name == ref), None)

    def list_text(self) -> str:
        entries = self.read()
        if not entries:
            return "No memories yet."
        return "\n".join(
            f"- {e.name} ({e.type}, modified {e.modified}) — {e.description} [{e.file}]"
            for e in entries
        )

    def search_text(self, query: str) -> str:
        needle = query.lower()
        hits = [
            e
            for e in self.read()
            if any(needle in field.lower() for field in (e.name, e.description, e.body))
        ]
        if not hits:
            return "No matches in memory."
        return "\n\n".join(f"## {e.name}\nfile: {e.file}\ntype: {e.type}\n\n{e.body}" for e in hits)

    # ----------------------------------------------------------------- write helpers

    @contextmanager
    def locked(self, op: str) -> Iterator[None]:
        """Hold the store's write lock for ``op`` (the directory is created first)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with StoreLock(self.directory, op, self.lock_timeout_ms):
            yield

    @contextmanager
    def snapshots_paused(self) -> Iterator[None]:
        """Write without a rollback point per change, for a caller that took one of the
        whole directory first: points per memory would prune that one away after
        ``lock.snapshotKeep`` writes.
        """
        self._snapshots = False
        try:
            yield
        finally:
            self._snapshots = True

    def _snapshot(self, label: str, files: Collection[str]) -> None:
        if not self._snapshots:
            return
        paths = [Path(name) for name in sorted(set(files))]
        take_snapshot(self.directory, label, paths, keep=self.snapshot_keep)

    def _write(self, name: str, text: str) -> None:
        atomic_write_text(self.directory / name, text)

    def _unlink(self, name: str) -> None:
        try:
            fsretry.retry(os.unlink, self.directory / name)
        except FileNotFoundError:
            pass

    def _write_index(self, before: str, after: str) -> None:
        if after != before or not self.index_path.exists():
            self._write(INDEX_FILE, after)

    def _warning(self, index_text: str) -> str | None:
        return capacity_warning(index_text, self.index_max_lines, self.index_max_bytes)

    def _now_iso(self) -> str:
        return iso_timestamp(self._clock())

    def _free_file_name(self, name: str, taken: Collection[str], exclude: str = "") -> str:
        """A file name for ``name`` that is free on disk too (case-insensitive filesystems)."""
        used = set(taken) | {INDEX_FILE}
        used.discard(exclude)
        for _ in range(100):
            candidate = unique_entry_file_name(name, used, case_insensitive=False)
            if candidate == exclude or not (self.directory / candidate).exists():
                return candidate
            used.add(candidate)
        raise EntryRejected(f'Unable to find a free file name for "{name}"')

    # ------------------------------------------------ protocol (the caller holds the lock)

    def append(self, entry: Entry) -> Entry:
        """Store a new memory as its own file and add its index line after the last one."""
        existing = self.read()
        if any(e.id == entry.id for e in existing if entry.id):
            raise EntryRejected(f"an entry with id {entry.id} already exists")
        stored = self._complete(entry, existing)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._snapshot("write", [INDEX_FILE, stored.file])
        self._write(stored.file, entry_to_text(stored))
        before = self.read_index()
        after = before
        if stored.live:
            after = upsert_index_line(before, stored.name, stored.file, stored.description)
        self._write_index(before, after)
        return stored

    def _complete(self, entry: Entry, existing: Sequence[Entry]) -> Entry:
        """Fill in what the files layout needs and another layout may not have."""
        body = js_trim(entry.body)
        if not body:
            raise EntryRejected("body is required")
        kind = entry.type or type_for_category(entry.file) or DEFAULT_TYPE
        check_type(kind)
        own_file, extra = self._frontmatter_extra(entry, kind)
        modified = entry.modified or self._modified_from(entry.time)
        created = entry.created or (modified[:10] if entry.time == "" else entry.time[:10])
        name = self._unique_name(js_trim(entry.name) or derived_name(entry), entry, existing)
        taken = [e.file for e in existing]
        reusable = [f for f in (own_file, entry.file) if self._reusable(f, taken)]
        file = reusable[0] if reusable else self._free_file_name(name, taken)
        return entry._replace(
            body=body,
            layer=self.layer,
            file=file,
            name=name,
            description=js_trim(entry.description) or derive_description(body) or name,
            type=kind,
            created=created,
            modified=modified,
            id=entry.id if is_id(entry.id) else derived_id(name, created, modified),
            time=entry.time or derived_time(modified),
            keyword=entry.keyword or derived_keyword(name, body),
            src=entry.src or DEFAULT_SRC,
            extra=extra,
        )

    def _frontmatter_extra(
        self, entry: Entry, kind: str
    ) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The file name a category row carried, and the extra keys for the frontmatter.

        A row's category becomes a ``category`` key when it is not the type's
        home in this layer, and its stored legacy ``tags`` text a ``legacy-tags`` key.
        """
        carried = dict(entry.extra)
        unknown = tuple((k, v) for k, v in entry.extra if k not in (FILE_NAME_KEY, RAW_TAGS_KEY))
        front: list[tuple[str, str]] = []
        foreign = type_for_category(entry.file) and entry.file != home_category(kind, self.layer)
        if foreign and "category" not in dict(unknown):
            front.append(("category", entry.file))
        raw_tags = carried.get(RAW_TAGS_KEY, "")
        if raw_tags and raw_tags != entry.keyword:
            front.append((LEGACY_TAGS, raw_tags))
        return carried.get(FILE_NAME_KEY, ""), (*front, *unknown)

    def _modified_from(self, time: str) -> str:
        parsed = parse_time(time) if time else None
        return iso_timestamp(parsed) if parsed is not None else self._now_iso()

    def _reusable(self, file: str, taken: Collection[str]) -> bool:
        """Whether an incoming entry's own ``.md`` file name can be kept (a files → files copy)."""
        return (
            file.endswith(".md")
            and file != INDEX_FILE
            and not file.startswith(".")
            and "/" not in file
            and "\\" not in file
            and not type_for_category(file)
            and file not in taken
            and not (self.directory / file).exists()
        )

    @staticmethod
    def _unique_name(name: str, entry: Entry, existing: Sequence[Entry]) -> str:
        names = {e.name for e in existing}
        if name not in names:
            return name
        return f"{name} ({entry.id})" if entry.id else name

    def update(self, entries: Collection[Entry]) -> None:
        """Rewrite these memories (matched by id) in their files; their index lines stay in place.

        A memory that became superseded leaves the index (it stays on disk).
        """
        current = {e.id: e for e in self.read()}
        changes = [(current[e.id], e) for e in entries if e.id in current]
        if not changes:
            return
        self._snapshot("write", [INDEX_FILE, *(old.file for old, _ in changes)])
        modified = self._now_iso()
        before = self.read_index()
        after = before
        for old, new in changes:
            if new.modified != old.modified:
                # The caller chose the times (import taking the source's copy): keep them,
                # as append would.
                stored = new._replace(
                    file=old.file,
                    layer=self.layer,
                    modified=new.modified or self._modified_from(new.time),
                )
            else:
                stored = touched(new._replace(file=old.file, layer=self.layer), modified)
            self._write(old.file, entry_to_text(stored))
            if stored.live:
                after = upsert_index_line(after, stored.name, stored.file, stored.description)
            else:
                after = remove_index_line(after, stored.file)
        self._write_index(before, after)

    def remove(self, ids: Collection[str]) -> None:
        """Delete these memories' files and index lines."""
        wanted = set(ids)
        doomed = [e for e in self.read() if e.id in wanted]
        if not doomed:
            return
        self._snapshot("write", [INDEX_FILE, *(e.file for e in doomed)])
        before = self.read_index()
        after = before
        for entry in doomed:
            self._unlink(entry.file)
            after = remove_index_line(after, entry.file)
        self._write_index(before, after)

    def repair_keywords(self) -> tuple[int, int]:
        """Nothing to repair: a memory file's keyword is stored whole or derived from its name."""
        return 0, 0

    def refresh_index(self, entries: list[Entry], recalls: Mapping[str, int]) -> None:
        """Create ``MEMORY.md`` when missing; an existing one belongs to its editor and stays."""
        del recalls  # the files layout's index is not ranked by use
        if self.index_path.exists():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        self._write(INDEX_FILE, self._rebuilt(entries).text)

    def _rebuilt(self, entries: Sequence[Entry]) -> RebuiltIndex:
        live = sorted((e for e in entries if e.live), key=_sort_key)
        lines = [IndexLine(e.name, e.file, e.description) for e in live]
        return rebuild_index(self.read_index(), lines)

    # ------------------------------------------------ the memory tool (takes the lock)

    def add(
        self,
        name: str,
        content: str,
        description: str | None = None,
        type: str | None = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Create the memory ``name``, or overwrite the one of exactly that name (keeps created)."""
        name = js_trim(name)
        check_name(name)
        wanted = js_trim(description or "")
        check_description(wanted)
        body = js_trim(content)
        if not body:
            raise EntryRejected("body is required")
        if type is not None:
            check_type(type)
        moment = now or self._clock()
        modified = iso_timestamp(moment)
        with self.locked("add"):
            entries = self.read()
            existing = next((e for e in entries if e.name == name), None)
            if existing is None:
                taken = [e.file for e in entries]
                file = self._free_file_name(name, taken)
                created = modified[:10]
                ids = {e.id for e in entries}
                entry_id = derived_id(name, created, modified)
                if entry_id in ids:
                    entry_id = new_id(moment, frozenset(ids))
                entry = Entry(
                    id=entry_id,
                    time=derived_time(modified),
                    project="",
                    src=DEFAULT_SRC,
                    keyword=derived_keyword(name, body),
                    body=body,
                    layer=self.layer,
                    file=file,
                    name=name,
                    description=wanted or derive_description(body) or name,
                    type=type or DEFAULT_TYPE,
                    created=created,
                    modified=modified,
                )
            else:
                entry = touched(
                    existing._replace(
                        body=body,
                        description=wanted or derive_description(body) or name,
                        type=type or existing.type or DEFAULT_TYPE,
                    ),
                    modified,
                )
            return self._store_one(entry)

    def replace(
        self,
        ref: str,
        content: str | None,
        description: str | None = None,
        type: str | None = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Rewrite an existing memory's body, description and type; its index line stays put.

        Without ``content`` the body and, unless one is given, the description stay
        as they are (a change of type alone, as the seed allows).
        """
        wanted = js_trim(description or "")
        check_description(wanted)
        if type is not None:
            check_type(type)
        modified = iso_timestamp(now or self._clock())
        with self.locked("replace"):
            current = self.find(ref)
            if current is None:
                raise EntryRejected(f'Entry "{ref}" not found')
            body = current.body if content is None else js_trim(content)
            if not body:
                raise EntryRejected("body is required")
            derived = "" if content is None else derive_description(body)
            entry = touched(
                current._replace(
                    body=body,
                    description=wanted or derived or current.description or current.name,
                    type=type or current.type,
                ),
                modified,
            )
            return self._store_one(entry)

    def _store_one(self, entry: Entry) -> WriteResult:
        text = entry_to_text(entry)
        self._snapshot("write", [INDEX_FILE, entry.file])
        self._write(entry.file, text)
        before = self.read_index()
        after = upsert_index_line(before, entry.name, entry.file, entry.description)
        self._write_index(before, after)
        return WriteResult(entry.file, self._warning(after))

    def remove_by_name(self, ref: str) -> str:
        """Delete the memory ``ref`` (file name or name) with its index line; returns its file."""
        with self.locked("remove"):
            current = self.find(ref)
            if current is None:
                raise EntryRejected(f'Entry "{ref}" not found')
            self._snapshot("write", [INDEX_FILE, current.file])
            self._unlink(current.file)
            before = self.read_index()
            self._write_index(before, remove_index_line(before, current.file))
            return current.file

    def rebuild(self) -> RebuiltIndex:
        """Regenerate ``MEMORY.md`` from the files on disk, keeping the handwritten header."""
        with self.locked("rebuild"):
            self._snapshot("index", [INDEX_FILE])
            rebuilt = self._rebuilt(self.read())
            self._write(INDEX_FILE, rebuilt.text)
            return rebuilt

    def capacity_warning(self) -> str | None:
        return self._warning(self.read_index())
