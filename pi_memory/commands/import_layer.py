"""``import --from A --to B <layer>``: copy one layer from one layout to the other.

Everything the engine knows survives: ids, keyword, times, ``seen``/``last``,
supersede links (superseded memories are copied too), ``p:``/``src:``, and
type ↔ category by the table in :mod:`pi_memory.layouts.files`.

What only one layout has travels in the other as extra fields, written only
when it carries information (so a layer that never left the categories layout
round-trips byte for byte):

* files → categories: trailing header fields ``name``, ``description``,
  ``type``, ``created``, ``modified``, ``file`` (each only when it differs
  from what an import back would derive from the row) and ``x-<key>`` for
  frontmatter keys this package does not know. Values are percent-encoded
  where a header cannot hold them (``%``, ``|``, ``>``; upper-case letters of
  an ``x-`` key name, since header keys are read case-insensitively).
* categories → files: a legacy multi-keyword ``tags`` value becomes the
  frontmatter key ``legacy-tags`` (the keyword itself is the first of them).

An id that already exists in the target is **updated in place when the
memory differs** in what both layouts hold (body, keyword, time, project,
src, seen, last, supersede links), and skipped otherwise; what only the
target layout has (a files memory's name, a row's category) stays as it is.
So importing twice changes nothing the second time, and re-importing after
more use of the source brings the new ``seen`` counts and links along.

Known losses, each pinned by a test: the files layout orders memories by
``modified``, so category rows come back in time order; a memory's empty
description comes back derived from its body; an empty ``src:`` becomes
``user`` in the files layout.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pi_memory.entry import Entry
    from pi_memory.layouts import LayerStore
    from pi_memory.store import Settings

CATEGORIES: Final = "categories"
FILES: Final = "files"
#: Files-layout metadata carried in a category row's header, in the order written.
META_KEYS: Final = ("name", "description", "type", "created", "modified", "file")
EXTRA_PREFIX: Final = "x-"
LEGACY_TAGS: Final = "legacy-tags"
_ESCAPES: Final = {"%": "%25", "|": "%7C", ">": "%3E"}


@dataclass(frozen=True)
class Plan:
    new: tuple[Entry, ...]
    changed: tuple[Entry, ...]
    already: int


# ----------------------------------------------------------------------------- command


def run_import(*, source: str, target: str, layer: str) -> int:
    from pi_memory.errors import UsageError
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer

    if source == target:
        raise UsageError(f"--from and --to are both {source}: import converts between layouts")
    name = parse_layer(layer)
    src_settings, dst_settings = _settings_pair(source, target)
    src_dir, dst_dir = src_settings.dirs[name], dst_settings.dirs[name]
    entries = read_source(source, name, src_dir) if src_dir.is_dir() else []
    if not entries:
        write_line(f"nothing to import: no {name} memories in {source} {src_dir}")
        return 0
    imported, already = import_entries(entries, dst_settings, name)
    write_line(
        f"imported {imported} memories from {source} {src_dir} to {target} {dst_dir}"
        f" ({already} already there)"
    )
    return 0


def _settings_pair(source: str, target: str) -> tuple[Settings, Settings]:
    from pi_memory.errors import ConfigError
    from pi_memory.resolve import load, settings_from

    cwd = Path(os.getcwd())
    loaded = load(cwd, os.environ)
    if loaded.errors:
        raise ConfigError("memory.json: " + "; ".join(loaded.errors))
    return (
        settings_from(replace(loaded.config, layout=source), cwd),
        settings_from(replace(loaded.config, layout=target), cwd),
    )


# ----------------------------------------------------------------------------- reading


def read_source(layout: str, layer: str, directory: Path) -> list[Entry]:
    """The layer's memories in the source's order, each carrying what only its layout has."""
    if layout == FILES:
        from pi_memory.layouts.files import FilesLayer

        return FilesLayer(layer, directory).read()
    from pi_memory.entry import CATEGORY_FILES
    from pi_memory.layouts.categories import decode, parse_category_text

    out: list[Entry] = []
    for file in CATEGORY_FILES[layer]:
        try:
            text = decode((directory / file).read_bytes())
        except FileNotFoundError:
            continue
        for row in parse_category_text(text, layer, file).rows:
            out.append(entry_from_row(row.entry, row.fields))
    return out


def entry_from_row(entry: Entry, fields: Sequence[tuple[str, str]]) -> Entry:
    """A category row as a files-layout memory: its carried metadata restored, the rest derived."""

    values: dict[str, str] = {}
    for key, value in fields:
        values.setdefault(key, value)  # the first occurrence of a key wins, as on read
    meta = {key: unescape(values[key]) for key in META_KEYS if key in values}
    unknown = [
        (_unescape_key(key[len(EXTRA_PREFIX) :]), unescape(value))
        for key, value in fields
        if key.startswith(EXTRA_PREFIX)
    ]
    category = entry.file
    kind = meta.get("type") or _type_of(category)
    extra: list[tuple[str, str]] = []
    if category != home_category(kind, entry.layer) and "category" not in dict(unknown):
        extra.append(("category", category))
    raw_tags = values.get("tags", "")
    if raw_tags != entry.keyword:
        extra.append((LEGACY_TAGS, raw_tags))
    extra.extend(unknown)
    return replace(
        entry,
        file=meta.get("file", category),
        name=meta.get("name", ""),
        description=meta.get("description", ""),
        type=kind,
        created=meta.get("created", ""),
        modified=meta.get("modified", ""),
        extra=tuple(extra),
    )


def home_category(kind: str, layer: str) -> str:
    """The file a memory of type ``kind`` goes to; the type's file when the layer has one.

    The table maps ``project`` to ``DECISIONS.md`` and ``user``/``reference``
    to ``USER.md``/``TOOLING.md``, files only one layer has; in the other
    layer such a memory goes where a ``feedback`` one goes and keeps its type
    in the row's ``type`` field.
    """
    from pi_memory.entry import CATEGORY_FILES
    from pi_memory.layouts.files import DEFAULT_TYPE, default_category

    category = default_category(kind, layer)
    if category in CATEGORY_FILES[layer]:
        return category
    return default_category(DEFAULT_TYPE, layer)


def _type_of(category: str) -> str:
    from pi_memory.layouts.files import DEFAULT_TYPE, type_for_category

    return type_for_category(category) or DEFAULT_TYPE


# ----------------------------------------------------------------------------- mapping to rows


def escape(value: str) -> str:
    return "".join(_ESCAPES.get(char, char) for char in value)


def unescape(value: str) -> str:
    import re

    return re.sub(r"%(25|7[Cc]|3[Ee])", lambda m: chr(int(m.group(1), 16)), value)


def _escape_key(key: str) -> str:
    return "".join(f"%{ord(c):02X}" if c.isupper() or c in "%|>" else c for c in key)


def _unescape_key(key: str) -> str:
    import re

    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), key)


def row_of(entry: Entry) -> tuple[Entry, str, list[tuple[str, str]]]:
    """A files-layout memory as a category row: the entry, its raw ``tags``, its extra fields.

    Each metadata field is written only when an import back could not derive it.
    """
    from pi_memory.entry import CATEGORY_FILES, parse_time
    from pi_memory.layouts.files import (
        derive_description,
        iso_timestamp,
    )
    from pi_memory.paths import unique_entry_file_name

    extra = dict(entry.extra)
    wanted = extra.pop("category", "")
    raw_tags = extra.pop(LEGACY_TAGS, "") or entry.keyword
    kind = entry.type
    if wanted and wanted not in CATEGORY_FILES[entry.layer]:
        extra = {"category": wanted, **extra}  # kept, though this layer has no such file
        wanted = ""
    category = wanted or home_category(kind, entry.layer)
    name = entry.name or _derived_name(entry)
    parsed = parse_time(entry.time)
    derived = {
        "name": _derived_name(entry),
        "description": derive_description(entry.body) or name,
        "type": _type_of(category),
        "created": entry.time[:10] if entry.time else entry.modified[:10],
        "modified": iso_timestamp(parsed) if parsed is not None else "",
        "file": unique_entry_file_name(name, (), case_insensitive=False),
    }
    actual = {
        "name": entry.name,
        "description": entry.description,
        "type": kind,
        "created": entry.created,
        "modified": entry.modified,
        "file": entry.file,
    }
    fields = [
        (key, escape(actual[key]))
        for key in META_KEYS
        if actual[key] and actual[key] != derived[key]
    ]
    fields.extend((EXTRA_PREFIX + _escape_key(k), escape(v)) for k, v in extra.items())
    stored = replace(entry, file=category, extra=())
    return stored, raw_tags, fields


def _derived_name(entry: Entry) -> str:
    """The name the files layout gives a memory that comes without one."""
    from pi_memory.layouts.files import derive_description
    from pi_memory.layouts.files_index import js_trim

    sentence = derive_description(js_trim(entry.body), 80).rstrip("。！？!?.")
    return (sentence or entry.keyword or entry.id).replace("](", "] (")


def check_row(entry: Entry) -> str | None:
    """Why ``entry`` cannot be stored as a category row and read back the same, or None."""
    from pi_memory.layouts.categories import format_entry, parse_category_text

    rows = parse_category_text(format_entry(entry), entry.layer, entry.file).rows
    if len(rows) != 1 or rows[0].entry.body != entry.body:
        return f"{entry.id}: its body has a line that reads as an entry header or conflict marker"
    return None


def add_header_fields(
    text: str, changes: Mapping[str, tuple[str, list[tuple[str, str]]]], layer: str, file: str
) -> str:
    """Set each row's raw ``tags`` and insert its carried fields before the optional ones.

    That is where a later in-place update of the row keeps unknown fields, so
    the header's bytes stay stable when the row is re-confirmed.
    """
    from pi_memory.layouts.categories import parse_category_text, split_lines

    optional = {"seen", "last", "supersedes", "superseded-by"}
    parsed = parse_category_text(text, layer, file)
    lines = list(split_lines(text))
    for row in parsed.rows:
        change = changes.get(row.entry.id)
        if change is None:
            continue
        raw_tags, carried = change
        base = [(k, raw_tags if k == "tags" else v) for k, v in row.fields if k not in optional]
        tail = [(k, v) for k, v in row.fields if k in optional]
        out = base + carried + tail
        line = lines[row.start]
        eol = line[len(line.rstrip("\r\n")) :]
        parts = [out[0][1]] + [f"{key}: {value}" for key, value in out[1:]]
        lines[row.start] = "<!-- mid: " + " | ".join(parts) + " -->" + eol
    return "".join(lines)


# ----------------------------------------------------------------------------- writing


def plan_import(entries: Sequence[Entry], existing: Sequence[Entry], files_target: bool) -> Plan:
    """Which memories are new, which exist but differ, and how many are already there."""
    by_id = {e.id: e for e in existing}
    new: list[Entry] = []
    changed: list[Entry] = []
    already = 0
    seen_ids: set[str] = set()
    for entry in entries:
        if entry.id in seen_ids:
            continue
        seen_ids.add(entry.id)
        old = by_id.get(entry.id)
        if old is None:
            new.append(entry)
            continue
        already += 1
        if _core(entry, files_target) != _core(old, files_target):
            changed.append(_merged(old, entry))
    return Plan(tuple(new), tuple(changed), already)


def _core(entry: Entry, files_target: bool) -> tuple[object, ...]:
    """What both layouts hold of a memory, as the target would store it."""
    from pi_memory.layouts.files_index import js_trim

    src = (entry.src or "user") if files_target else entry.src
    return (
        js_trim(entry.body),
        entry.keyword,
        entry.time,
        entry.project,
        src,
        entry.seen,
        entry.last,
        entry.supersedes,
        entry.superseded_by,
    )


def _merged(old: Entry, new: Entry) -> Entry:
    return replace(
        old,
        body=new.body,
        keyword=new.keyword,
        time=new.time,
        project=new.project,
        src=new.src or old.src,
        seen=new.seen,
        last=new.last,
        supersedes=new.supersedes,
        superseded_by=new.superseded_by,
    )


def import_entries(entries: Sequence[Entry], settings: Settings, layer: str) -> tuple[int, int]:
    """Write ``entries`` into the target layer under its lock; returns ``(new, already there)``."""
    from pi_memory.errors import EntryRejected
    from pi_memory.lock import StoreLock
    from pi_memory.snapshot import memory_files, whole_dir_snapshot
    from pi_memory.store import Store

    files_target = settings.layout == FILES
    rows = {} if files_target else {e.id: row_of(e) for e in entries}
    if not files_target:
        problems = [p for p in (check_row(rows[e.id][0]) for e in entries) if p]
        if problems:
            raise EntryRejected("cannot import, nothing written: " + "; ".join(problems))
    directory = settings.dirs[layer]
    directory.mkdir(parents=True, exist_ok=True)
    target = _target_layer(settings, layer)
    with StoreLock(directory, "import", settings.lock_timeout_ms):
        existing = target.read()
        plan = plan_import(entries, existing, files_target)
        if not plan.new and not plan.changed:
            return 0, plan.already
        if memory_files(directory):
            whole_dir_snapshot(directory, "import", settings.snapshot_keep)
        for entry in plan.new:
            target.append(rows[entry.id][0] if rows else entry)
        if plan.changed:
            target.update(plan.changed)
        if rows and plan.new:
            _carry_fields(directory, layer, {e.id: rows[e.id][1:] for e in plan.new})
        target.refresh_index(target.read(), Store(settings).recalls(layer))
    return len(plan.new), plan.already


def _carry_fields(
    directory: Path, layer: str, carried: dict[str, tuple[str, list[tuple[str, str]]]]
) -> None:
    from pi_memory.atomic import atomic_write_bytes
    from pi_memory.entry import CATEGORY_FILES
    from pi_memory.layouts.categories import decode, encode

    for file in CATEGORY_FILES[layer]:
        path = directory / file
        try:
            text = decode(path.read_bytes())
        except FileNotFoundError:
            continue
        new = add_header_fields(text, carried, layer, file)
        if new != text:
            atomic_write_bytes(path, encode(new))


def _target_layer(settings: Settings, layer: str) -> LayerStore:
    from pi_memory.layouts import open_layer

    if settings.layout != FILES:
        return open_layer(settings.layout, layer, settings.dirs[layer])
    from pi_memory.layouts.files import FilesLayer

    class ImportFilesLayer(FilesLayer):
        # The import takes one whole-directory rollback point first; a point per
        # memory would also prune that one away after lock.snapshotKeep writes.
        def _snapshot(self, label: str, files: object) -> None:
            del label, files

    return ImportFilesLayer(
        layer,
        settings.dirs[layer],
        lock_timeout_ms=settings.lock_timeout_ms,
        snapshot_keep=settings.snapshot_keep,
    )
