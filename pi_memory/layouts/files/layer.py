"""One layer directory of the ``files`` layout: entry files and the hand-editable ``MEMORY.md``.

The protocol methods and the ``memory`` tool's operations take no lock and
leave no rollback point: the engine holds the store's lock while it calls
them, and each announces the files it is about to change through
``before_change`` first, where the engine takes its rollback point.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

from pi_memory.config import defaults
from pi_memory.entry import PROJECT, USER, Entry, is_id, new_id, parse_time
from pi_memory.errors import EntryRejected
from pi_memory.fs import fsretry
from pi_memory.fs.atomic import atomic_write_text
from pi_memory.layouts.carry import (
    DEFAULT_TYPE,
    ENTRY_TYPES,
    FILE_NAME_KEY,
    LEGACY_TAGS,
    RAW_TAGS_KEY,
    derive_description,
    derived_name,
    home_category,
    type_for_category,
)
from pi_memory.layouts.files.format import (
    DEFAULT_SRC,
    ParsedEntryFile,
    check_controls,
    check_description,
    check_name,
    check_type,
    derived_id,
    derived_keyword,
    derived_time,
    entry_from_file,
    entry_to_text,
    parse_entry_file,
    touched,
)
from pi_memory.layouts.files.index import (
    DEFAULT_HEADER,
    IndexLine,
    RebuiltIndex,
    capacity_warning,
    parse_entry_index,
    rebuild_index,
    remove_index_line,
    upsert_index_line,
)
from pi_memory.layouts.files.recovery import (
    REMOVE,
    REPLACE,
    keep_copy,
    kept_copies,
    prune_kept,
)
from pi_memory.layouts.protocol import (
    MEMORY_TOOL,
    IndexChange,
    Injected,
    JobNeeds,
    Kept,
    ToolWrite,
    line_change,
    no_rollback,
)
from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.entry_names import unique_entry_file_name
from pi_memory.naming.layer_files import INDEX_FILE
from pi_memory.naming.platforms import WIN32, current_platform
from pi_memory.naming.windows import is_reserved_windows_name
from pi_memory.text import iso_timestamp, js_trim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from pi_memory.config.schema import Config
    from pi_memory.fs.parse_cache import Identity
    from pi_memory.fs.staged_change import StagedChange
    from pi_memory.keywords import Tally
    from pi_memory.layouts.files.catalog import Catalog, Facts

#: The result of a ``memory`` tool write.
WriteResult = ToolWrite

#: The least of a memory file that is read (see :attr:`FilesLayer.max_file_bytes`).
MAX_FILE_BYTES = 1 << 20


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class _Decided(NamedTuple):
    """What a write decides on when it read only its candidates (:meth:`FilesLayer.candidates`):
    them, the names, files and ids of every memory of the layer, and the identity each
    candidate's file was read at."""

    entries: Sequence[Entry]
    names: set[str]
    files: set[str]
    ids: set[str]
    identities: dict[str, Identity]


def _found(ref: str, entries: Sequence[Entry]) -> Entry | None:
    """The memory of ``entries`` whose file name, else whose name, is exactly ``ref``."""
    by_file = next((e for e in entries if e.file == ref), None)
    return by_file or next((e for e in entries if e.name == ref), None)


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
        inject_max_lines: int = defaults.MEM_INDEX_INJECT_MAX_LINES,
        inject_max_bytes: int = defaults.MEM_INDEX_INJECT_MAX_BYTES,
        keep_removed_days: int = defaults.KEEP_REMOVED_DAYS,
        max_body_bytes: int = defaults.MEMORY_MAX_BYTES,
        clock: Callable[[], datetime] = _utc_now,
        platform: str | None = None,
    ) -> None:
        self.layer = layer
        self.directory = Path(directory)
        self.index_max_lines = index_max_lines
        self.index_max_bytes = index_max_bytes
        self.inject_max_lines = inject_max_lines
        self.inject_max_bytes = inject_max_bytes
        self.keep_removed_days = keep_removed_days
        self.max_body_bytes = max_body_bytes
        self._clock = clock
        self.platform = platform or current_platform()
        self.before_change: Callable[[str, Sequence[str]], None] = no_rollback
        #: What the last :meth:`candidates` found, for the :meth:`prepare_write` that follows.
        self._decided: _Decided | None = None

    snapshot_on_write = True
    files_by_category = False
    agent_tools = ("memory",)
    jobs = JobNeeds(MEMORY_TOOL, dream_reminder=True)
    status_block = True
    default_src = DEFAULT_SRC
    #: Each memory is a file of its own: two copies that add different memories merge
    #: without a conflict, and so do their index lines. One memory changed on both
    #: sides is a conflict the merge resolves by keeping both (``sync``).
    merge_rules = (
        "# Written by pi_memory. Each memory is a file of its own; the index lines of\n"
        "# two copies merge by union.\n"
        "MEMORY.md merge=union\n"
    )
    entry_types = ENTRY_TYPES

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

    def search_sources(self) -> None:
        """One file per memory: statting them all would cost what the index saves."""
        return None

    def read(self) -> list[Entry]:
        """Every memory of the layer, oldest ``modified`` first; damaged files are skipped."""
        entries: list[Entry] = []
        for name in self.entry_files():
            parsed = self._read_file(name)
            if parsed is not None:
                entries.append(entry_from_file(parsed, name, self.layer))
        return sorted(entries, key=_sort_key)

    def read_problems(self) -> list[str]:
        """A damaged memory file is reported by ``show`` (:meth:`unreadable`)."""
        return []

    def unreadable(self) -> list[str]:
        """Entry files whose frontmatter does not parse (the index is free text), and
        files too large to read (their size), never read whole."""
        places: list[str] = []
        for name in self.entry_files():
            size = self._oversized(name)
            if size is not None:
                places.append(
                    f"{name}: {size:,} bytes, over the {self.max_file_bytes:,} a memory file "
                    "is read up to"
                )
            elif self._read_file(name) is None:
                places.append(f"{name}:1")
        return places

    @property
    def max_file_bytes(self) -> int:
        """How much of a memory file is read: a file larger than this (a hand edit, a
        pull; a write never makes one) is left out and reported, its bytes untouched."""
        return max(MAX_FILE_BYTES, 2 * self.max_body_bytes + 65536)

    def _oversized(self, name: str) -> int | None:
        """The size of memory file ``name`` when it is too large to read, else None."""
        try:
            size = os.stat(self.directory / name).st_size
        except OSError:
            return None
        return size if size > self.max_file_bytes else None

    def _read_file(self, name: str) -> ParsedEntryFile | None:
        return self._read_at(name)[1]

    def _read_at(self, name: str) -> tuple[Identity | None, ParsedEntryFile | None]:
        """Memory file ``name`` parsed, with the identity of the bytes read (``None``: no
        regular file there); ``None`` for what is not a memory."""
        from pi_memory.fs.parse_cache import identity_of

        path = self.directory / name
        try:
            if not path.is_file():
                return None, None  # a FIFO would block the open
            with path.open("rb") as handle:
                st = os.fstat(handle.fileno())
                if not stat.S_ISREG(st.st_mode):
                    return None, None
                data = handle.read(self.max_file_bytes + 1)
        except OSError:
            return None, None
        if len(data) > self.max_file_bytes:
            return identity_of(st), None  # oversized: left out and reported, never read whole
        # Invalid UTF-8 reads as U+FFFD, as Node's readFile(…, "utf8") does.
        return identity_of(st), parse_entry_file(data.decode("utf-8", errors="replace"))

    def read_index(self) -> str:
        try:
            return self.index_path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def _index_to_change(self) -> str:
        """``MEMORY.md`` as a write finds it; a missing one starts as the design shows an
        index and as a session start makes one: ``# Memory Index`` and a blank line.

        Not the memory tool's ``add``: pi-memory's first add writes its line alone (its
        capacity vector: one add under ``indexMaxLines: 1`` warns nothing)."""
        if not self.index_path.exists():
            return "\n".join(DEFAULT_HEADER) + "\n"
        return self.read_index()

    def find(self, ref: str) -> Entry | None:
        """The memory whose file name, else whose name, is exactly ``ref``."""
        return _found(ref, self._looked_up([ref])[1])

    def _catalog(self) -> Catalog:
        """The layer's catalog brought up to date (:mod:`.catalog`)."""
        from pi_memory.layouts.files import catalog

        return catalog.current(self.directory, self._is_entry_file, self._facts_at)

    def _looked_up(
        self, refs: Collection[str], ids: Collection[str] = ()
    ) -> tuple[Catalog, list[Entry]]:
        """The catalog, and the memories whose file name or name is one of ``refs`` or
        whose id is one of ``ids``, read now, in :meth:`read`'s order: what :meth:`read`
        would have found of them, without reading the other files."""
        found = self._catalog()
        entries = []
        for name in found.files_of(set(refs), set(ids)):
            parsed = self._read_file(name)
            if parsed is not None:
                entries.append(entry_from_file(parsed, name, self.layer))
        return found, sorted(entries, key=_sort_key)

    # ----------------------------------------------------------------- write helpers

    def _changing(self, label: str, files: Collection[str]) -> None:
        self.before_change(label, sorted(set(files)))

    def _write(self, name: str, text: str) -> None:
        atomic_write_text(self.directory / name, text)

    def _unlink(self, name: str) -> None:
        try:
            fsretry.retry(os.unlink, self.directory / name)
        except FileNotFoundError:
            pass

    def _write_indexed(self, name: str, text: str, before: str, after: str) -> None:
        """Write entry file ``name`` and then the index, or neither.

        A failed index write (a full disk) would leave an entry no index line
        points to while the caller answers "failed": the entry file is put back
        as it was. The old file is kept by a hard link, which needs no space.
        """
        path = self.directory / name
        saved: Path | None = None
        if path.exists():
            saved = self.directory / f".{name}.{os.urandom(6).hex()}.tmp"
            os.link(path, saved)
        try:
            self._write(name, text)
            self._write_index(before, after)
        except BaseException:
            if saved is not None:
                os.replace(saved, path)
            else:
                self._unlink(name)
            raise
        if saved is not None:
            self._unlink(saved.name)

    def _write_index(self, before: str, after: str) -> None:
        """Put ``MEMORY.md`` in place, a new file even when its text is ``before``: every
        change to a memory file ends by replacing it (see :meth:`change_token`)."""
        del before
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

    # ------------------------------------------------ protocol (the engine holds the lock)

    def append(self, entry: Entry) -> Entry:
        """Store a new memory as its own file and append its index line."""
        found = self._catalog()
        if entry.id and entry.id in found.ids:
            raise EntryRejected(f"an entry with id {entry.id} already exists")
        stored = self._complete(entry, found.names, found.files)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._changing("write", [INDEX_FILE, stored.file])
        before = self._index_to_change()
        after = before
        if stored.live:
            after = upsert_index_line(before, stored.name, stored.file, stored.description)
        self._write_indexed(stored.file, entry_to_text(stored), before, after)
        return stored

    def _complete(self, entry: Entry, names: Collection[str], taken: Collection[str]) -> Entry:
        """Fill in what the files layout needs and another layout may not have; ``names``
        and ``taken`` are the names and the files of the layer's memories."""
        body = js_trim(entry.body)
        if not body:
            raise EntryRejected("body is required")
        kind = entry.type or type_for_category(entry.file) or DEFAULT_TYPE
        check_type(kind)
        own_file, extra = self._frontmatter_extra(entry, kind)
        modified = entry.modified or self._modified_from(entry.time)
        created = entry.created or (modified[:10] if entry.time == "" else entry.time[:10])
        name = self._unique_name(js_trim(entry.name) or derived_name(entry), entry, names)
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
    def _unique_name(name: str, entry: Entry, names: Collection[str]) -> str:
        if name not in names:
            return name
        return f"{name} ({entry.id})" if entry.id else name

    def update(self, entries: Collection[Entry]) -> None:
        """Rewrite these memories (matched by id) in their files; their index lines stay in place.

        A memory that became superseded leaves the index (it stays on disk).
        """
        current = {e.id: e for e in self._looked_up((), {e.id for e in entries})[1]}
        changes = [(current[e.id], e) for e in entries if e.id in current]
        if not changes:
            return
        self._changing("write", [INDEX_FILE, *(old.file for old, _ in changes)])
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
        doomed = [e for e in self._looked_up((), wanted)[1] if e.id in wanted]
        if not doomed:
            return
        self._changing("write", [INDEX_FILE, *(e.file for e in doomed)])
        before = self.read_index()
        after = before
        for entry in doomed:
            self._unlink(entry.file)
            after = remove_index_line(after, entry.file)
        self._write_index(before, after)

    def repair_keywords(self) -> tuple[int, int]:
        """Nothing to repair: a memory file's keyword is stored whole or derived from its name."""
        return 0, 0

    def target_file(self, file: str | None) -> str:
        """A memory file's name comes from its name, whatever file was asked for."""
        del file
        return ""

    def body_problem(self, body: str) -> str | None:
        del body  # an entry file holds any body
        return None

    def prepare_index(
        self, entries: list[Entry] | Tally, recalls: Mapping[str, int]
    ) -> StagedChange | None:
        """A missing ``MEMORY.md``, rebuilt and staged now (``None``: it exists, and a
        write keeps its lines itself)."""
        del recalls  # the files layout's index is not ranked by use
        if self.index_path.exists() or not isinstance(entries, list):
            return None
        from pi_memory.fs.staged_change import StagedChange

        change = StagedChange()
        change.replace(self.index_path, self._rebuilt(entries).text.encode("utf-8"), None)
        return change

    def change_token(self) -> tuple[Identity | None]:
        """``MEMORY.md``'s identity: every change this layout makes to a memory file ends
        by putting a new ``MEMORY.md`` in place (by a rename: a new inode), even when its
        text stays, so one ``stat`` tells whether the layer changed since. A memory file
        changed meanwhile by hand is found by :meth:`StagedChange.unchanged` when the
        write rewrites it, and else is as any edit made just after the write."""
        from pi_memory.fs.parse_cache import identity_at

        return (identity_at(self.index_path),)

    def token_files(self, token: object) -> None:
        """None: a token names the memory files' inodes, not their identities."""
        del token

    def hold_caching(self) -> None:
        """Nothing: this layout keeps no disk cache of its entry files."""

    def settle(self) -> None:
        """Nothing held (see :meth:`hold_caching`)."""

    def candidates(self, body: str, ids: Collection[str]) -> tuple[list[Entry], set[str]]:
        """Every memory whose body may normalise as ``body`` does and every memory with
        one of ``ids``, in :meth:`read`'s order, with the ids the layer holds: looked up
        in the layer's catalog (:mod:`.catalog`), brought up to date from a ``stat`` of
        each file first, and only those memories read. What :meth:`prepare_write` needs
        of the rest (the names and files taken) is kept for it."""
        from pi_memory.layouts.files import catalog

        found = self._catalog()
        entries: list[Entry] = []
        identities: dict[str, Identity] = {}
        for name in found.files_for(catalog.body_key(body), set(ids)):
            identity, parsed = self._read_at(name)
            if parsed is not None and identity is not None:
                entries.append(entry_from_file(parsed, name, self.layer))
                identities[name] = identity
        entries.sort(key=_sort_key)
        self._decided = _Decided(entries, found.names, found.files, found.ids, identities)
        return entries, self._decided.ids

    def _is_entry_file(self, name: str) -> bool:
        """Whether ``name`` is a candidate entry file (see :meth:`entry_files`)."""
        return (
            name.endswith(".md")
            and name != INDEX_FILE
            and not name.startswith(".")
            and not (self.platform == WIN32 and is_reserved_windows_name(name))
        )

    def _facts_at(self, name: str) -> tuple[Identity | None, Facts]:
        """What the catalog keeps of memory file ``name``, and the identity it was read at."""
        from pi_memory.layouts.files.catalog import body_key

        identity, parsed = self._read_at(name)
        if parsed is None:
            return identity, None
        entry = entry_from_file(parsed, name, self.layer)
        return identity, (entry.id, entry.name, body_key(entry.body))

    def prepare_write(
        self, entries: Sequence[Entry], entry: Entry, deduped: bool, retire: Sequence[Entry]
    ) -> tuple[Entry, StagedChange] | None:
        """The write of ``entry`` (new, or with ``deduped`` an existing one's new state)
        and the retiring of ``retire``, decided on ``entries`` (the layer as read) and
        staged without the lock: the memory files, then ``MEMORY.md``."""
        from pi_memory.fs.parse_cache import identity_at
        from pi_memory.fs.staged_change import StagedChange

        if not self.directory.is_dir():
            return None  # made under the lock, with the layer's directory
        decided = self._decided if self._decided and self._decided.entries is entries else None
        if decided is None:
            decided = _Decided(
                entries, {e.name for e in entries}, {e.file for e in entries}, set(), {}
            )
        ids = decided.ids or {e.id for e in entries}
        if not deduped and entry.id and entry.id in ids:
            return None  # refused with its reason by the write under the lock
        current = {e.id: e for e in entries}
        index_identity = identity_at(self.index_path)
        before = self._index_to_change()
        after = before
        staged = StagedChange()
        try:
            stored = entry if deduped else self._complete(entry, decided.names, decided.files)
            changed = [stored, *retire] if deduped else list(retire)
            modified = self._now_iso()
            for new in (e for e in changed if e.id in current):
                old = current[new.id]
                written = touched(new._replace(file=old.file, layer=self.layer), modified)
                was = decided.identities.get(old.file) or identity_at(self.directory / old.file)
                after = self._stage_entry(staged, written, after, was)
            if not deduped:
                after = self._stage_entry(staged, stored, after, None)
            # Always a new MEMORY.md, last: the layer's change token (:meth:`change_token`).
            staged.replace(
                self.index_path, after.encode("utf-8", "surrogateescape"), index_identity
            )
        except BaseException:
            staged.discard()
            raise
        try:
            # The rollback point is taken now, without the lock: it holds the files as
            # the change was worked out from, which is what they are when it is put in
            # place (:meth:`StagedChange.unchanged`), or the change is worked out again.
            self._changing("write", [path.name for path in staged.paths])
        except BaseException:
            staged.discard()
            raise
        return stored, staged

    def _stage_entry(
        self, staged: StagedChange, entry: Entry, index: str, expected: Identity | None
    ) -> str:
        """Stage ``entry``'s file; ``index`` with its line brought up to date."""
        staged.replace(
            self.directory / entry.file,
            entry_to_text(entry).encode("utf-8", "surrogateescape"),
            expected,
        )
        if entry.live:
            return upsert_index_line(index, entry.name, entry.file, entry.description)
        return remove_index_line(index, entry.file)

    def facts(self) -> None:
        """None: this layout's index is its memories' lines, not a keyword table."""
        return None

    def refresh_tally(self, tally: Tally, recalls: Mapping[str, int]) -> None:
        """Never asked (:meth:`facts` is ``None``)."""
        raise NotImplementedError("the files layout keeps no keyword tally")

    def index_needs_entries(self) -> bool:
        """Only a missing ``MEMORY.md`` is made (from every memory's line): an existing one
        belongs to its editor and stays, so a session start need not read the memories."""
        return not self.index_path.exists()

    def refresh_index(self, entries: list[Entry], recalls: Mapping[str, int]) -> None:
        """Create ``MEMORY.md`` when missing; an existing one belongs to its editor and stays."""
        del recalls  # the files layout's index is not ranked by use
        if self.index_path.exists():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        self._write(INDEX_FILE, self._rebuilt(entries).text)

    def rebuild_index(self, entries: list[Entry], recalls: Mapping[str, int]) -> IndexChange:
        """pi-memory's ``rebuild_index``: every live memory's line, oldest ``modified`` first,
        under the handwritten header (the lines before the first memory line)."""
        del recalls
        self.directory.mkdir(parents=True, exist_ok=True)
        self._changing("index", [INDEX_FILE])
        before = self.read_index()
        rebuilt = self._rebuilt(entries)
        self._write(INDEX_FILE, rebuilt.text)
        return line_change(before, rebuilt.text)

    def _rebuilt(self, entries: Sequence[Entry]) -> RebuiltIndex:
        live = sorted((e for e in entries if e.live), key=_sort_key)
        lines = [IndexLine(e.name, e.file, e.description) for e in live]
        return rebuild_index(self.read_index(), lines)

    # ------------------------------------------------ the memory tool (the engine holds the lock)

    def add(
        self,
        name: str,
        content: str,
        description: str | None = None,
        type: str | None = None,
        now: datetime | None = None,
    ) -> WriteResult:
        """Create the memory ``name``, or overwrite the one of exactly that name (keeps created)."""
        self._check_size(content, description)
        name = js_trim(name)
        check_name(name)
        wanted = js_trim(description or "")
        check_description(wanted)
        body = js_trim(content)
        if not body:
            raise EntryRejected("body is required")
        check_controls("content", body)
        if type is not None:
            check_type(type)
        moment = now or self._clock()
        modified = iso_timestamp(moment)
        found, entries = self._looked_up([name])
        existing = next((e for e in entries if e.name == name), None)
        if existing is None:
            file = self._free_file_name(name, found.files)
            created = modified[:10]
            ids = found.ids
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
        as they are (a change of type alone, as pi-memory allows).
        """
        self._check_size(content, description)
        wanted = js_trim(description or "")
        check_description(wanted)
        if type is not None:
            check_type(type)
        modified = iso_timestamp(now or self._clock())
        current = self.find(ref)
        if current is None:
            raise EntryRejected(f'Entry "{ref}" not found')
        body = current.body if content is None else js_trim(content)
        if not body:
            raise EntryRejected("body is required")
        if content is not None:
            check_controls("content", body)
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

    def _check_size(self, content: str | None, description: str | None) -> None:
        """New text over ``memoryMaxBytes`` is refused before anything reads all of it."""
        from pi_memory.memory_size import size_issue

        for what, text in (("content", content), ("description", description)):
            problem = size_issue(text.strip(), self.max_body_bytes) if text else None
            if problem is not None:
                raise EntryRejected(f"{what} {problem}")

    def _store_one(self, entry: Entry) -> WriteResult:
        text = entry_to_text(entry)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._changing("write", [INDEX_FILE, entry.file])
        self._keep(entry.file, REPLACE)
        before = self.read_index()  # pi-memory's add starts no header (its capacity vector)
        after = upsert_index_line(before, entry.name, entry.file, entry.description)
        self._write_indexed(entry.file, text, before, after)
        return WriteResult(entry.file, self._warning(after))

    def rename(self, ref: str, new_name: str, now: datetime | None = None) -> WriteResult:
        """pi-memory's dream-only ``rename``: the name, the file name and the index line
        follow, and the line keeps its place; id, body and times stay."""
        new_name = js_trim(new_name)
        check_name(new_name)
        found, entries = self._looked_up([ref, new_name])
        current = _found(ref, entries)
        if current is None:
            raise EntryRejected(f'Entry "{ref}" not found')
        if any(e.name == new_name and e.id != current.id for e in entries):
            raise EntryRejected(f'a memory named "{new_name}" already exists')
        file = self._free_file_name(new_name, found.files, exclude=current.file)
        renamed = touched(
            current._replace(name=new_name, file=file), iso_timestamp(now or self._clock())
        )
        self.directory.mkdir(parents=True, exist_ok=True)
        self._changing("write", [INDEX_FILE, current.file, file])
        self._keep(current.file, REPLACE)
        before = self.read_index()
        line_no = next(
            (
                line.line_no
                for line in parse_entry_index(before).entries
                if line.file == current.file
            ),
            None,
        )
        after = upsert_index_line(before, new_name, file, renamed.description, line_no)
        self._write_indexed(file, entry_to_text(renamed), before, after)
        if file != current.file:
            self._unlink(current.file)
        return WriteResult(file, self._warning(after))

    def remove_by_name(self, ref: str) -> str:
        """Delete the memory ``ref`` (file name or name) with its index line; returns its file."""
        current = self.find(ref)
        if current is None:
            raise EntryRejected(f'Entry "{ref}" not found')
        self._changing("write", [INDEX_FILE, current.file])
        self._keep(current.file, REMOVE)
        self._unlink(current.file)
        before = self.read_index()
        self._write_index(before, remove_index_line(before, current.file))
        return current.file

    # ------------------------------------------------ what the tool removed or replaced

    def _keep(self, file: str, action: str) -> None:
        """Keep the file about to be deleted or overwritten (fails closed), prune old copies."""
        now = self._clock()
        keep_copy(self.directory, file, action, now)
        prune_kept(self.directory, self.keep_removed_days, now)

    def kept(self) -> list[tuple[Kept, Entry | None]]:
        """The kept copies, newest first, each with the memory it holds (None if unreadable)."""
        out: list[tuple[Kept, Entry | None]] = []
        for kept in kept_copies(self.directory):
            try:
                raw = kept.path.read_bytes().decode("utf-8", errors="replace")
            except OSError:
                out.append((kept, None))
                continue
            parsed = parse_entry_file(raw)
            entry = None if parsed is None else entry_from_file(parsed, kept.path.name, self.layer)
            out.append((kept, entry))
        return out

    def restore(self, ref: str) -> tuple[Entry, Kept, str]:
        """Bring back the newest kept copy of the memory ``ref`` (name or file name).

        A memory of that name that exists now is replaced, and is kept itself
        first, so a restore can be undone the same way. Returns the restored
        memory, the copy it came from, and the file it is in now.
        """
        found = next(
            (
                (kept, entry)
                for kept, entry in self.kept()
                if entry is not None and ref in (entry.name, kept.path.name)
            ),
            None,
        )
        if found is None:
            raise EntryRejected(f'no removed or replaced memory "{ref}" is kept')
        kept, entry = found
        layer, entries = self._looked_up([entry.name])
        current = next((e for e in entries if e.name == entry.name), None)
        if current is not None:
            file = current.file
        elif self._reusable(kept.path.name, layer.files):
            file = kept.path.name
        else:
            file = self._free_file_name(entry.name, layer.files)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._changing("write", [INDEX_FILE, file])
        self._keep(file, REPLACE)
        self._write(file, kept.path.read_bytes().decode("utf-8", errors="replace"))
        before = self._index_to_change()
        self._write_index(before, upsert_index_line(before, entry.name, file, entry.description))
        return entry, kept, file

    def memory_tool(self) -> FilesLayer:
        return self

    def capacity_warning(self) -> str | None:
        return self._warning(self.read_index())

    # ------------------------------------------------ what the engine shows and injects

    def injection(self, layers: Sequence[Injected], max_chars: int | None) -> str:
        """pi-memory's ``memory_index`` window of each layer's ``MEMORY.md``, project first.

        The window is bounded by lines and bytes; under a host's cap (``max_chars``)
        each layer's window also takes at most its share of it, in bytes, which
        bounds the characters too."""
        from pi_memory.inject.inject_window import build_index_section, read_index

        window = self.inject_max_bytes
        if max_chars is not None and layers:
            # Less each layer's tags and the blank line between them.
            window = min(window, max(200, max_chars // len(layers) - 100))
        parts = []
        order = {PROJECT: 0, USER: 1}
        for source in sorted(layers, key=lambda s: order.get(s.layer, 2)):
            section = build_index_section(
                read_index(source.directory), self.inject_max_lines, window
            )
            if section.strip():
                parts.append(
                    f'<memory_index layer="{source.layer}">\n{section.rstrip()}\n</memory_index>'
                )
        return "\n\n".join(parts) + "\n" if parts else ""

    def watermark(self) -> tuple[int, str]:
        """The files layout keeps no consolidation watermark in its index."""
        return 0, "never"

    def keep_backups(self, files: Collection[str]) -> None:
        """Nothing more: every change already leaves a rollback point in ``.backups/``."""
        del files

    def finish_consolidation(self, entries: list[Entry], recalls: Mapping[str, int]) -> None:
        self.refresh_index(entries, recalls)

    def status(
        self,
        config: Config,
        *,
        label: str,
        lock: str,
        entry_count: int,
        lock_shown: str | None = None,
    ) -> tuple[list[str], dict[str, Any]]:
        """pi-memory's seven-line status of this layer, and the same facts as JSON."""
        from pi_memory.layouts.files.status import status_json, status_lines

        meta = _read_bytes(self.directory / ".dream-meta.json")
        facts: dict[str, Any] = {
            "directory": str(self.directory),
            "index": _read_bytes(self.index_path),
            "entry_count": entry_count,
            "dream_meta": meta.decode("utf-8", "replace") if meta is not None else None,
            "lock": lock,
        }
        shown = {**facts, "lock": lock_shown or lock}
        lines = [f"{label}:", *status_lines(config, **shown)]
        recoverable = len(kept_copies(self.directory))
        if recoverable:
            lines.append(
                f"  Recoverable: {recoverable} removed or replaced in the last "
                f"{self.keep_removed_days} days "
                f"(python -m pi_memory restore --layer {self.layer})"
            )
        data = status_json(config, **facts)
        data["recoverable"] = recoverable
        return lines, data


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
