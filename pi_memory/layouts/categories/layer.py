"""One layer directory of the ``categories`` layout (pi-memory-auto): its category files.

The row format is :mod:`pi_memory.layouts.categories.format`; the keyword table
(``MEMORY.md`` and the injected block) is :mod:`pi_memory.layouts.categories.index`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Container, Iterator, Mapping, Sequence
from pathlib import Path

from pi_memory.entry import CATEGORY_FILES, Entry
from pi_memory.errors import EntryRejected
from pi_memory.layouts.categories.format import (
    appended_row_in,
    body_problem,
    decode,
    encode,
    fold_merged,
    fold_text,
    format_entry,
    parse_entries,
    remove_rows,
    repair_tags,
    rewrite_rows_counted_pieces,
)
from pi_memory.layouts.protocol import (
    ENTRY_OPERATIONS,
    IndexChange,
    Injected,
    JobNeeds,
    no_rollback,
)
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Callable, Final

    from pi_memory.config.schema import Config
    from pi_memory.fs.parse_cache import Identity
    from pi_memory.fs.staged_change import StagedChange
    from pi_memory.keyword_tally import FileFacts
    from pi_memory.keywords import Tally
    from pi_memory.layouts.categories.bounded import Part
    from pi_memory.layouts.protocol import MemoryTool
    from pi_memory.search_index import SearchIndex

GITATTRIBUTES: Final = ".gitattributes"
GITATTRIBUTES_TEXT: Final = (
    "# Written by pi_memory. Memories are appended at the end of a category file, so\n"
    "# two branches that each add one merge by union instead of conflicting; pi_memory\n"
    "# folds what such a merge leaves (a row twice, two seen counts) on its next write,\n"
    "# and rebuilds MEMORY.md, which is derived, from the rows.\n"
    "*.md merge=union\n"
)

#: The categories layout's injected keyword table, in characters per layer.
DEFAULT_INDEX_BUDGET = 3000
#: The parse cache's kind for a file's rows and the memories they fold into (two numbers
#: kept beside its keyword facts, so a write learns whether rows fold without loading them).
ROWS_KIND: Final = "rows"


class CategoriesLayer:
    """One layer directory of the ``categories`` layout."""

    #: pi-memory-auto keeps ``.bak`` copies of what ``rebuild`` rewrites, not rollback points.
    snapshot_on_write = False
    files_by_category = True
    agent_tools = ("memory_search", "memory_write")
    jobs = JobNeeds(ENTRY_OPERATIONS, dream_reminder=False)
    status_block = False
    default_src = ""
    merge_rules = GITATTRIBUTES_TEXT

    def __init__(
        self, layer: str, directory: Path, *, index_budget: int = DEFAULT_INDEX_BUDGET
    ) -> None:
        self.layer = layer
        self.directory = directory
        self.files: tuple[str, ...] = CATEGORY_FILES[layer]
        self.index_budget = index_budget
        self.before_change: Callable[[str, Sequence[str]], None] = no_rollback
        #: Category files the last reads could not open, with the reason (``Is a directory``).
        self.skipped: dict[str, str] = {}
        #: Each file's entries as last read or written by this process, with the
        #: identity they belong to: an unchanged file costs a stat, not a cache lookup.
        self._known: dict[str, tuple[tuple[int, int, int], list[Entry]]] = {}
        #: Each file's keyword facts as last read or written, with the identity they belong to.
        self._facts: dict[str, tuple[Identity, FileFacts]] = {}
        #: Each file's search index as a write's candidates were found in, with its identity.
        self._indexes: dict[str, tuple[Identity, SearchIndex]] = {}
        #: Disk-cache updates held back by :meth:`hold_caching` (None: not holding).
        self._held: list[Callable[[], None]] | None = None
        #: Each file's rows a write's candidates were found at (id -> position and the
        #: entry there), with the identity of the bytes they are in: its change finds
        #: its rows without loading the file's keyword facts.
        self._places: dict[str, tuple[Identity, dict[str, tuple[int, Entry]]]] = {}

    def _read_text(self, file: str) -> str:
        try:
            return decode((self.directory / file).read_bytes())
        except FileNotFoundError:
            return ""

    def _write_text(self, file: str, text: str, entries: list[Entry] | None = None) -> None:
        """Write ``file``; with ``entries`` (what it now holds), the next read skips the
        parse. (A write's rows appended or rewritten go through :meth:`_stage_file`, whose
        caches follow the change.)"""
        from pi_memory.fs.atomic import atomic_write_bytes
        from pi_memory.fs.parse_cache import identity_of

        self.directory.mkdir(parents=True, exist_ok=True)
        data = encode(text)
        path = self.directory / file
        atomic_write_bytes(path, data)
        self._known.pop(file, None)
        if entries is not None:
            try:
                self._known[file] = (identity_of(os.stat(path)), entries)
            except OSError:
                pass
            self._later(functools.partial(_remember, path, data, entries))

    def _later(self, caching: Callable[[], None]) -> None:
        if self._held is not None:
            self._held.append(caching)
        else:
            caching()

    def hold_caching(self) -> None:
        self._held = []

    def settle(self) -> None:
        held, self._held = self._held or [], None
        for caching in held:
            caching()

    def change_token(self) -> tuple[tuple[str, Identity | None], ...]:
        """Each category file's path and identity (``None``: missing, or not ours to look
        at; a write replaces a file: a new inode)."""
        from pi_memory.fs.parse_cache import identity_at

        return tuple(
            (str(path), identity_at(path)) for path in (self.directory / f for f in self.files)
        )

    def token_files(self, token: object) -> dict[str, Identity | None]:
        """The paths and identities of a :meth:`change_token`."""
        files: dict[str, Identity | None] = dict(token)  # type: ignore[call-overload]
        return files

    def read_file(self, file: str) -> list[Entry]:
        """The entries of ``file``; an unchanged file is not even read (parse cache)."""
        from pi_memory.fs.parse_cache import identity_of, lookup

        path = self.directory / file
        try:
            with path.open("rb") as handle:
                st = os.fstat(handle.fileno())
                identity = identity_of(st)
                known = self._known.get(file)
                if known is not None and known[0] == identity:
                    return known[1]
                cached = lookup(path, identity, Entry._make)
                if cached is None:
                    cached = _from_search_index(path, identity)
                if cached is not None:
                    self._known[file] = (identity, cached)
                    return cached
                data = _read_bounded(handle, st.st_size)[0]
        except FileNotFoundError:
            return []
        except OSError as exc:
            # Damaged like a garbled row: skipped and said, never the whole store down.
            self.skipped[file] = exc.strerror or type(exc).__name__
            return []
        self.skipped.pop(file, None)
        return self._parsed(path, data, st, file)

    def _load(self, file: str) -> tuple[str, list[Entry]]:
        """The text of ``file`` and its entries, from one read of its bytes."""
        path = self.directory / file
        try:
            with path.open("rb") as handle:
                st = os.fstat(handle.fileno())
                data = handle.read()
        except FileNotFoundError:
            return "", []
        return decode(data), self._parsed(path, data, st, file)

    def _parsed(self, path: Path, data: bytes, st: os.stat_result, file: str) -> list[Entry]:
        from pi_memory.fs.parse_cache import cached_entries, identity_of

        identity = identity_of(st)
        known = self._known.get(file)
        if known is not None and known[0] == identity:
            return known[1]
        entries = cached_entries(
            path,
            identity,
            lambda: parse_entries(decode(data), self.layer, file),
            Entry._make,
        )
        self._known[file] = (identity, entries)
        return entries

    def facts(self) -> list[tuple[str, Identity | None, FileFacts]]:
        """Each category file, the identity its keyword facts (:mod:`pi_memory.keyword_tally`)
        belong to (``None``: no such file), and the facts, in file order: an unchanged
        file's from the cache, a changed one's from its entries."""
        return [(file, *self._facts_of(file)) for file in self.files]

    def _facts_of(self, file: str) -> tuple[Identity | None, FileFacts]:
        from pi_memory.fs.parse_cache import identity_of, lookup, racy
        from pi_memory.keyword_tally import KIND, RULES, is_facts

        path = self.directory / file
        try:
            identity = identity_of(os.stat(path))
        except OSError:
            return None, self._fresh_facts(file)
        known = self._facts.get(file)
        if known is not None and known[0] == identity:
            return known
        cached = lookup(path, identity, is_facts, KIND, RULES)
        if cached:
            self._facts[file] = (identity, cached[0])
            return identity, cached[0]
        facts = self._fresh_facts(file)
        read = self._known.get(file)
        if read is None or file in self.skipped:
            return None, facts
        # Under the identity of the bytes the entries came from.
        self._facts[file] = (read[0], facts)
        if not racy(read[0][0]):
            _keep_facts(path, read[0], facts)
        return read[0], facts

    def _fresh_facts(self, file: str) -> FileFacts:
        from pi_memory.keyword_tally import facts_of

        rows = self.read_file(file)
        return facts_of(fold_merged(rows), len(rows))

    def read(self) -> list[Entry]:
        out: list[Entry] = []
        for file in self.files:
            out.extend(self.read_file(file))
        return fold_merged(out)

    def read_problems(self) -> list[str]:
        """One line per category file the last reads skipped, and why."""
        return [
            f"{self.layer}/{file} could not be read ({why}); its memories are left out"
            for file, why in self.skipped.items()
        ]

    def unreadable(self) -> list[str]:
        """``FILE:LINE`` of every line no memory was read from, ``FILE: REASON`` of a file
        that cannot be read; an unchanged file's answer comes from the parse cache, as
        its entries do."""
        from pi_memory.fs.parse_cache import cached_entries, identity_of

        places: list[str] = []
        for file in self.files:
            path = self.directory / file
            try:
                with path.open("rb") as handle:
                    st = os.fstat(handle.fileno())
                    data, oversized = _read_bounded(handle, st.st_size)
            except FileNotFoundError:
                continue
            except OSError as exc:
                places.append(f"{file}: {exc.strerror or type(exc).__name__}")
                continue
            places.extend(oversized)
            numbers = cached_entries(
                path,
                identity_of(st),
                functools.partial(_unread_rows, data),
                _unread_row,
                kind="unread",
            )
            places.extend(f"{file}:{number}" for (number,) in numbers)
        return places

    def _needs_repair(self) -> bool:
        return any(True for _ in self._folded_files())

    def _folded_files(self) -> Iterator[str]:
        """Each category file a git union merge left rows to fold in (from the two numbers
        kept beside its keyword facts: the facts are not loaded)."""
        from pi_memory.fs.parse_cache import identity_at

        for file in self.files:
            identity = identity_at(self.directory / file)
            if identity is not None and self._unfolded_rows(file, identity) is None:
                yield file

    def _repair_merged(self) -> None:
        """Rewrite each file a git union merge left rows to fold in (before any write)."""
        for file in list(self._folded_files()):
            text = self._read_text(file)
            new = fold_text(text, self.layer, file)
            if new != text:
                self._write_text(file, new)

    def _gitattributes_missing(self) -> bool:
        from pi_memory.entry import PROJECT

        path = self.directory / GITATTRIBUTES
        return self.layer == PROJECT and not (path.exists() or path.is_symlink())

    def _write_gitattributes(self) -> None:
        """The project layer's merge rules, written once; a user's own file is left alone."""
        if not self._gitattributes_missing():
            return
        path = self.directory / GITATTRIBUTES
        from pi_memory.fs.atomic import atomic_write_text

        atomic_write_text(path, GITATTRIBUTES_TEXT)

    def _before_write(self) -> None:
        self._repair_merged()
        self._write_gitattributes()

    def search_sources(self) -> list[tuple[Path, Callable[[], list[Entry] | None]]]:
        return [
            (self.directory / file, functools.partial(self._searchable, file))
            for file in self.files
        ]

    def _searchable(self, file: str) -> list[Entry] | None:
        """:meth:`read_file`, or ``None`` when the file could not be read (skipped)."""
        entries = self.read_file(file)
        return None if file in self.skipped else entries

    def candidates(
        self, body: str, ids: Collection[str]
    ) -> tuple[list[Entry], Container[str]] | None:
        """The entries a write of ``body`` may repeat (every entry whose body holds each
        of the longest words of its normalised form) and those with one of ``ids``, in
        :meth:`read`'s order, with the ids the layer holds (looked up when first asked):
        found through each file's search index, no other entry decoded, and no file's
        keyword facts read unless ``ids`` are asked for. ``None`` when they cannot say
        (a body of no word, a file that cannot be read, folded rows)."""
        from pi_memory import search_index
        from pi_memory.entry import normalize_memory_text
        from pi_memory.fs.parse_cache import identity_at

        words = sorted(set(normalize_memory_text(body).split()), key=len, reverse=True)[:4]
        if not words:
            return None
        found: list[Entry] = []
        for file in self.files:
            path = self.directory / file
            identity = identity_at(path)
            if identity is None:
                if path.exists() or path.is_symlink():
                    return None
                continue
            rows = self._unfolded_rows(file, identity)
            index = self._index_of(file, identity) if rows is not None else None
            if index is None or index.size != rows or file in self.skipped:
                return None  # the caches are of different bytes: decide from the layer
            hits = set(search_index.matching(index, words[:1], ()))
            for word in words[1:]:
                if not hits:
                    break  # no body here holds the longer words: none to look for the rest in
                hits &= set(search_index.matching(index, [word], ()))
            if ids:
                known, facts = self._facts_of(file)
                if known != identity or len(facts.ids) != rows:
                    return None
                hits.update(_positions(facts.ids, ids))
            places = sorted(hits)
            here = search_index.entries_at(index, places)
            # Rows unfolded: each id is on one row, the index's position of it.
            self._places[file] = (identity, {e.id: (at, e) for at, e in zip(places, here)})
            found.extend(here)
        return found, _LayerIds(self)

    def _unfolded_rows(self, file: str, identity: Identity) -> int | None:
        """How many rows ``file`` holds at ``identity``, when no two of them are one memory
        a git union merge left to fold (``None``: some are, or the file changed): from the
        two numbers kept beside its keyword facts, without loading the facts."""
        from pi_memory.fs.parse_cache import keep, lookup, racy
        from pi_memory.keyword_tally import RULES

        held = self._facts.get(file)
        if held is not None and held[0] == identity:
            facts = held[1]
        else:
            counted = lookup(self.directory / file, identity, _rows_record, ROWS_KIND, RULES)
            if counted:
                rows, memories = counted[0]
                return rows if rows == memories else None
            found, facts = self._facts_of(file)
            if found != identity:
                return None
            if not racy(identity[0]):  # for the next write (facts kept before the numbers were)
                keep(self.directory / file, identity, [_rows_of(facts)], ROWS_KIND, RULES)
        return facts.rows if facts.rows == len(facts.ids) else None

    def _index_of(self, file: str, identity: Identity | None) -> SearchIndex | None:
        """The search index of ``file`` (:func:`search_index.for_file`); the one stored for
        ``identity`` is kept for a write of these bytes to change (:class:`Change`)."""
        from pi_memory import search_index

        path = self.directory / file
        index = search_index.load(path, identity) if identity is not None else None
        if index is None or identity is None:
            return search_index.for_file(path, functools.partial(self._searchable, file))
        self._indexes[file] = (identity, index)
        return index

    def _change(
        self, file: str, before: Identity, appended: list[Entry], replaced: dict[int, Entry]
    ) -> Change:
        """What a write did to ``file``'s bytes of identity ``before``, with the caches of
        those bytes this process holds (the caches follow from them, not from disk)."""
        facts, index = self._facts.get(file), self._indexes.get(file)
        return Change(
            before,
            appended,
            replaced,
            facts[1] if facts is not None and facts[0] == before else None,
            index[1] if index is not None and index[0] == before else None,
        )

    def append(self, entry: Entry) -> Entry:
        """Store a new row; a memory from the files layout goes to its category's file."""
        if entry.name and entry.file and entry.file not in self.files:
            from pi_memory.layouts.carry import category_entry

            entry = category_entry(entry._replace(layer=self.layer))
        file = entry.file or self.files[0]
        if file not in self.files:
            raise EntryRejected(f"{file} is not a category file of the {self.layer} layer")
        problem = body_problem(entry.body)
        if problem:
            raise EntryRejected(problem)
        stored = entry._replace(layer=self.layer, file=file)
        self._before_write()
        self._change_now(file, {}, stored)
        return stored

    def update(self, entries: Collection[Entry]) -> None:
        self._before_write()
        for file in self.files:
            mine = {e.id: e for e in entries if e.file == file}
            if mine:
                self._change_now(file, mine, None)

    def _rewritten(
        self, file: str, data: bytes, identity: Identity | None, mine: Mapping[str, Entry]
    ) -> tuple[list[bytes | memoryview], dict[int, Entry]]:
        """``data`` (the bytes of ``file`` at ``identity``) with the rows of ``mine``
        rewritten, in pieces (:func:`rewrite_rows_counted_pieces`; ``[data]``: no byte
        changed), and each rewritten row's position -> its entry now (only the lines of
        those rows are decoded)."""
        new, rewritten, counts, changed = rewrite_rows_counted_pieces(data, mine, self.layer, file)
        if not changed:
            return [data], {}
        known = self._places.get(file)
        if known is not None and known[0] == identity and identity is not None:
            found = known[1]
            if all(
                nth == 0 and entry_id in found and counts[entry_id] == 1
                for entry_id, nth in rewritten
            ):
                return new, {found[entry_id][0]: e for (entry_id, _), e in rewritten.items()}
        ids = self._row_ids(file, identity)
        if identity is None or ids is None:
            before = self.read_file(file)  # the rows' places, from the entries
            ids = tuple(entry.id for entry in before)
        places: dict[str, list[int]] = {}
        for i, entry_id in enumerate(ids):
            if entry_id in mine:
                places.setdefault(entry_id, []).append(i)
        return new, {places[entry_id][nth]: e for (entry_id, nth), e in rewritten.items()}

    def prepare_write(
        self, entries: Sequence[Entry], entry: Entry, deduped: bool, retire: Sequence[Entry]
    ) -> tuple[Entry, StagedChange] | None:
        """The write of ``entry`` (new, or with ``deduped`` an existing one's new state)
        and the retiring of ``retire``, staged without the lock: each category file it
        touches read once, changed, and written beside itself. ``None`` when a write
        first has more to do (folded rows to repair, the merge rules to write)."""
        del entries  # the rows are found by id in the files themselves
        from pi_memory.fs.staged_change import StagedChange

        if not self.directory.is_dir() or entry.name:
            return None  # made under the lock, with the layer's directory
        if self._needs_repair() or self._gitattributes_missing():
            return None
        stored = entry._replace(layer=self.layer, file=entry.file or self.files[0])
        if stored.file not in self.files or body_problem(stored.body):
            return None  # refused with its reason by the write under the lock
        rewrites = [*([stored] if deduped else []), *retire]
        staged = StagedChange()
        try:
            for file in self.files:
                mine = {e.id: e for e in rewrites if e.file == file}
                added = None if deduped or stored.file != file else stored
                if mine or added is not None:
                    self._stage_file(staged, file, mine, added)
        except BaseException:
            staged.discard()
            raise
        return stored, staged

    def _stage_file(
        self, staged: StagedChange, file: str, mine: Mapping[str, Entry], added: Entry | None
    ) -> None:
        """Stage ``file`` with the rows of ``mine`` rewritten and ``added`` appended (nothing
        when neither changes it). A row too large to read is copied around the rows
        changed, a piece at a time, never read whole (:mod:`.bounded`)."""
        from pi_memory.fs.parse_cache import identity_of
        from pi_memory.layouts.categories import bounded

        try:
            handle = (self.directory / file).open("rb")
        except FileNotFoundError:
            self._stage_bytes(staged, file, b"", None, mine=mine, added=added)
            return
        with handle:
            st = os.fstat(handle.fileno())
            identity = identity_of(st)
            large = st.st_size > bounded.MAX_ROW_BYTES
            parts: list[Part] = bounded.read_parts(handle) if large else [handle.read()]
            if len(parts) == 1 and isinstance(parts[0], bytes):
                self._stage_bytes(staged, file, parts[0], identity, mine=mine, added=added)
            elif not self._stage_parts(
                staged, file, handle, identity, parts, mine=mine, added=added
            ):
                handle.seek(0)
                self._stage_bytes(staged, file, handle.read(), identity, mine=mine, added=added)

    def _stage_bytes(
        self,
        staged: StagedChange,
        file: str,
        old: bytes,
        identity: Identity | None,
        *,
        mine: Mapping[str, Entry],
        added: Entry | None,
    ) -> None:
        """:meth:`_stage_file` of ``old``, the bytes of ``file`` at ``identity``."""
        pieces, changes = self._rewritten(file, old, identity, mine) if mine else ([old], {})
        rows: list[Entry] = []
        if added is not None:
            # After the rest, never joined to it; a row rewritten too makes the end anew.
            data = old if len(pieces) == 1 else b"".join(pieces)
            pieces = [data, appended_row_in(data, added)]
            rows = parse_entries(format_entry(added), self.layer, file)
        elif not changes and len(pieces) == 1:
            return
        path = self.directory / file
        staged.replace_written(path, functools.partial(_write_pieces, pieces), identity)
        follow = self._change(file, identity, rows, changes) if identity is not None else None
        if follow is not None and not rows and self._same_facts(file, identity, changes):
            follow = follow._replace(same_facts=True)
        staged.after(lambda: self._written(file, follow, path, staged.identity(path)))

    def _same_facts(
        self, file: str, identity: Identity | None, changes: Mapping[int, Entry]
    ) -> bool:
        """Whether the rows rewritten at these positions keep what the keyword facts
        hold of them (id, keyword, time, liveness: a repeat's ``seen`` bumped), as the
        write's candidates read them from the bytes of ``identity``."""
        known = self._places.get(file)
        if known is None or known[0] != identity:
            return False
        at = {position: entry for position, entry in known[1].values()}
        return all(
            position in at and _fact_fields(at[position]) == _fact_fields(entry)
            for position, entry in changes.items()
        )

    def _stage_parts(
        self,
        staged: StagedChange,
        file: str,
        handle: BinaryIO,
        identity: Identity,
        parts: list[Part],
        *,
        mine: Mapping[str, Entry],
        added: Entry | None,
    ) -> bool:
        """:meth:`_stage_file` of a file holding rows too large to read (``parts``, read
        from ``handle``); ``False`` when an id to rewrite has several rows (the one meant
        is chosen among all of them: the file is read whole). The caches of the file
        are not followed: the next reader reads it again, in bounded memory."""
        from pi_memory.layouts.categories import bounded

        ids = self._row_ids(file, identity)
        if ids is None:
            ids = tuple(entry.id for entry in self.read_file(file))
        if any(ids.count(entry_id) > 1 for entry_id in mine):
            return False
        parts, rewritten = bounded.rewrite_parts(parts, mine, self.layer, file)
        if added is not None:
            parts.append(bounded.appended_after(handle, added))
        elif not rewritten:
            return True
        staged.replace_written(
            self.directory / file,
            lambda out: bounded.write_parts(out, parts, handle),
            identity,
        )
        staged.after(functools.partial(self._written, file, None, self.directory / file, None))
        return True

    def _written(
        self, file: str, change: Change | None, path: Path, identity: Identity | None
    ) -> None:
        """What :meth:`_write_text` does once the bytes are in place, which gave ``path``
        ``identity``: the caches of the bytes it changed follow the change."""
        self._known.pop(file, None)
        if change is not None and identity is not None:
            self._later(functools.partial(_follow, path, identity, change))

    def _change_now(self, file: str, mine: Mapping[str, Entry], added: Entry | None) -> None:
        """:meth:`_stage_file` put in place at once (the caller holds the lock)."""
        from pi_memory.fs.staged_change import StagedChange

        self.directory.mkdir(parents=True, exist_ok=True)
        change = StagedChange()
        try:
            self._stage_file(change, file, mine, added)
            change.commit()
        finally:
            change.discard()
            change.sync()

    def _row_ids(self, file: str, identity: Identity | None) -> tuple[str, ...] | None:
        """The id of each row of ``file`` as it was at ``identity``, from its facts (no
        entry read); ``None`` when folded rows make the facts' positions not the rows'."""
        found = self._facts_of(file)
        if found[0] != identity or found[1].rows != len(found[1].ids):
            return None
        return found[1].ids

    def remove(self, ids: Collection[str]) -> None:
        self._before_write()
        for file in self.files:
            text = self._read_text(file)
            new = remove_rows(text, ids, self.layer, file)
            if new != text:
                kept = [e for e in parse_entries(text, self.layer, file) if e.id not in ids]
                self._write_text(file, new, kept)

    def repair_keywords(self) -> tuple[int, int]:
        """Persist the read-path keyword repair; a ``.bak`` of each rewritten file is kept."""
        collapsed = repaired = 0
        for file in self.files:
            text = self._read_text(file)
            new, c, r = repair_tags(text, self.layer, file)
            if new != text:
                self._write_text(file + ".bak", text)
                self._write_text(file, new)
            collapsed += c
            repaired += r
        return collapsed, repaired

    def target_file(self, file: str | None) -> str:
        """The category file ``file`` names (``.md`` optional, any case); the first by default."""
        if not file:
            return self.files[0]
        name = file if file.endswith(".md") else f"{file}.md"
        for candidate in self.files:
            if candidate.lower() == name.lower():
                return candidate
        choices = ", ".join(self.files)
        raise EntryRejected(f"{file} is not a category file of the {self.layer} layer ({choices})")

    def body_problem(self, body: str) -> str | None:
        return body_problem(body)

    def index_needs_entries(self) -> bool:
        """Always: ``MEMORY.md`` is derived from the category files and the recall log."""
        return True

    def refresh_index(self, entries: list[Entry], recalls: Mapping[str, int]) -> None:
        from pi_memory.layouts.categories.index import refresh_memory_md

        refresh_memory_md(self.directory, entries, recalls)

    def refresh_tally(self, tally: Tally, recalls: Mapping[str, int]) -> None:
        from pi_memory.layouts.categories.index import refresh_memory_md

        refresh_memory_md(self.directory, tally, recalls)

    def prepare_index(
        self, entries: list[Entry] | Tally, recalls: Mapping[str, int]
    ) -> StagedChange | None:
        """The new ``MEMORY.md``, rendered and staged now (the costly part)."""
        from pi_memory.layouts.categories.index import staged_memory_md

        return staged_memory_md(self.directory, entries, recalls)

    def rebuild_index(self, entries: list[Entry], recalls: Mapping[str, int]) -> IndexChange:
        """The derived ``MEMORY.md`` written afresh from ``entries``."""
        from pi_memory.layouts.categories.index import refresh_memory_md
        from pi_memory.layouts.protocol import line_change
        from pi_memory.naming.layer_files import INDEX_FILE

        path = self.directory / INDEX_FILE
        before = _read_text_or_empty(path)
        refresh_memory_md(self.directory, entries, recalls)
        return line_change(before, _read_text_or_empty(path))

    def injection(self, layers: Sequence[Injected], max_chars: int | None) -> str:
        """The contract and each layer's keyword table, shrunk until it fits ``max_chars``."""
        from pi_memory.inject.sanitize import sanitize_for_injection
        from pi_memory.launcher import this_package
        from pi_memory.layouts.categories.index import SEARCH_ARGS, layer_block, render_injection

        search = sanitize_for_injection(this_package().command(*SEARCH_ARGS))
        read = [(source.label, _tally(source), source.recalls()) for source in layers]
        budget = self.index_budget
        while True:
            blocks = [
                sanitize_for_injection(layer_block(label, entries, recalls, budget))
                for label, entries, recalls in read
            ]
            text = render_injection(blocks, search)
            if max_chars is None or len(text) <= max_chars or budget <= 200:
                return text
            budget = max(200, budget * max_chars // len(text) - 100)

    def keep_backups(self, files: Collection[str]) -> None:
        """``<FILE>.md.bak``: each category file's bytes before a consolidation rewrites it."""
        for file in sorted(set(files) & set(self.files)):
            text = self._read_text(file)
            if text:
                self._write_text(file + ".bak", text)

    def finish_consolidation(self, entries: list[Entry], recalls: Mapping[str, int]) -> None:
        from pi_memory.layouts.categories.index import refresh_memory_md

        refresh_memory_md(self.directory, entries, recalls, reset=True)

    def watermark(self) -> tuple[int, str]:
        """The consolidation watermark from the stats line of ``MEMORY.md``."""
        from pi_memory.layouts.categories.index import parse_stats
        from pi_memory.naming.layer_files import INDEX_FILE

        try:
            stats = parse_stats((self.directory / INDEX_FILE).read_text("utf-8", "replace"))
        except OSError:
            stats = None
        return (stats.since_last, stats.last_consolidated) if stats else (0, "never")

    def status(
        self,
        config: Config,
        *,
        label: str,
        lock: str,
        entry_count: int,
        lock_shown: str | None = None,
    ) -> tuple[list[str], dict[str, Any]]:
        """No status block: ``show`` prints the keyword table."""
        del config, label, lock, entry_count, lock_shown
        return [], {}

    def memory_tool(self) -> MemoryTool:
        from pi_memory.errors import UsageError

        raise UsageError(
            'the memory tool belongs to the "files" layout; this store uses '
            '"categories" (use memory_write and memory_search)'
        )


def _tally(source: Injected) -> Tally:
    from pi_memory.keywords import tally_of

    kept = source.tally()
    return kept if kept is not None else tally_of(source.entries())


def _read_text_or_empty(path: Path) -> str:
    try:
        return path.read_text("utf-8", "surrogateescape")
    except OSError:
        return ""


def _read_bounded(handle: BinaryIO, size: int) -> tuple[bytes, list[str]]:
    """The bytes of a category file, a row too large to read left out (and said):
    a file smaller than one such row is read at once."""
    from pi_memory.layouts.categories import bounded

    if size <= bounded.MAX_ROW_BYTES:
        return handle.read(), []
    read = bounded.read_bounded(handle)
    name = os.path.basename(getattr(handle, "name", ""))
    return read.data, [bounded.describe(name, row) for row in read.oversized]


def _unread_rows(data: bytes) -> list[tuple[int]]:
    from pi_memory.layouts.categories.unread import unread_lines

    return [(number,) for number in unread_lines(decode(data))]


def _unread_row(row: Sequence[Any]) -> tuple[int]:
    return (int(row[0]),)


def _remember(path: Path, data: bytes, entries: list[Entry]) -> None:
    """Tell the disk caches what ``path`` holds, if it still holds ``data``: its entries,
    their keyword facts (what the next session start sums) and its search index."""
    from pi_memory import search_index
    from pi_memory.fs.parse_cache import remember
    from pi_memory.keyword_tally import facts_of

    identity = remember(path, data, entries)
    if identity is not None:
        _keep_facts(path, identity, facts_of(fold_merged(entries), len(entries)))
        search_index.remember(path, identity, entries)


def _from_search_index(path: Path, identity: Identity) -> list[Entry] | None:
    """The entries of ``path`` decoded from its search index, when one is kept for these
    very bytes (a write follows the index, not the parse cache), kept for the next reader."""
    from pi_memory import search_index
    from pi_memory.fs.parse_cache import keep, racy

    index = search_index.load(path, identity)
    if index is None:
        return None
    entries = search_index.entries_at(index, range(index.size))
    if not racy(identity[0]):
        keep(path, identity, entries)
    return entries


class Change(NamedTuple):
    """What a write did to a category file, for the caches of its old bytes to follow."""

    #: The identity of the bytes it changed.
    before: Identity
    #: Entries appended at the end.
    appended: list[Entry]
    #: Position of a row rewritten in place -> its entry now.
    replaced: dict[int, Entry]
    #: The keyword facts of the bytes it changed, when known (else read from the cache).
    facts: FileFacts | None = None
    #: Their search index, when known (else read from the cache).
    searched: SearchIndex | None = None
    #: No row's id, keyword, time or liveness changed: the keyword facts stand as they were.
    same_facts: bool = False


def _follow(path: Path, identity: Identity, change: Change) -> None:
    """The caches of the bytes ``change`` started from, changed as the file was, kept for
    the bytes written, if ``path`` still holds them: still the file the write renamed
    into place, with the ``identity`` it had then (a writer that replaces it or writes
    into it changes that); the keyword facts and the search index; no entry of the file
    is read. The parse cache is left to the next reader, which decodes the search
    index's rows rather than parse the file."""
    from functools import partial

    from pi_memory import keyword_tally, search_index
    from pi_memory.fs.parse_cache import identity_at, lookup, rekeyed

    if identity_at(path) != identity:
        return
    kind, rules = keyword_tally.KIND, keyword_tally.RULES
    if change.same_facts and rekeyed(path, change.before, identity, kind, rules):
        rekeyed(path, change.before, identity, ROWS_KIND, rules)
        search_index.follow(
            path, change.before, identity, partial(_indexed, change), change.searched
        )
        return
    old = [change.facts] if change.facts else None
    old = old or lookup(path, change.before, keyword_tally.is_facts, kind, rules)
    if old:
        facts: FileFacts | None = old[0]
        if change.replaced:
            facts = keyword_tally.replaced(old[0], change.replaced)
        if facts is not None and change.appended:
            facts = keyword_tally.appended(facts, change.appended)
        if facts is not None:
            _keep_facts(path, identity, facts)
    search_index.follow(path, change.before, identity, partial(_indexed, change), change.searched)


def _write_pieces(pieces: Sequence[bytes | memoryview], out: BinaryIO) -> None:
    for piece in pieces:
        out.write(piece)


def _fact_fields(entry: Entry) -> tuple[str, str, str, bool]:
    """What the keyword facts hold of an entry."""
    return entry.id, entry.keyword, entry.time, bool(entry.superseded_by)


def _indexed(change: Change, index: SearchIndex) -> SearchIndex | None:
    from pi_memory import search_index

    changed: SearchIndex | None = index
    if change.replaced:
        changed = search_index.replaced(index, change.replaced)
    if changed is not None and change.appended:
        changed = search_index.appended(changed, change.appended)
    return changed


def _keep_facts(path: Path, identity: Identity, facts: FileFacts) -> None:
    """Keep the keyword facts of ``path`` at ``identity``, and beside them its rows and the
    memories they fold into (:meth:`CategoriesLayer._unfolded_rows` reads only those)."""
    from pi_memory.fs.parse_cache import keep
    from pi_memory.keyword_tally import KIND, RULES

    keep(path, identity, [facts], KIND, RULES)
    keep(path, identity, [_rows_of(facts)], ROWS_KIND, RULES)


def _rows_of(facts: FileFacts) -> tuple[int, int]:
    """A file's rows, and the memories they fold into."""
    return facts.rows, len(facts.ids)


def _rows_record(row: Sequence[Any]) -> tuple[int, int]:
    rows, memories = row
    return int(rows), int(memories)


def _positions(ids: Sequence[str], wanted: Collection[str]) -> list[int]:
    """Where each of ``wanted`` is in ``ids`` (every place: ids are looked up, not scanned
    one by one in Python)."""
    places: list[int] = []
    for entry_id in set(wanted):
        at = -1
        while True:
            try:
                at = ids.index(entry_id, at + 1)
            except ValueError:
                break
            places.append(at)
    return places


class _LayerIds:
    """The ids a layer holds, from its files' keyword facts when first asked: a write that
    repeats a memory needs no fresh id, so it never loads them. A fresh id is looked for
    in each file's ids as they are (once or twice: no set of the layer's ids is built)."""

    def __init__(self, layer: CategoriesLayer) -> None:
        self._layer = layer
        self._ids: list[tuple[str, ...]] | None = None

    def __contains__(self, item: object) -> bool:
        if self._ids is None:
            self._ids = [facts.ids for _, _, facts in self._layer.facts()]
        return any(item in ids for ids in self._ids)
