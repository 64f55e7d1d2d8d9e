"""The engine: one store of two layers, in either layout.

Everything that changes a memory goes through here, under the layer's write
lock: the write path of pi-memory-auto (normalise, de-duplicate across the layer,
bump ``seen``/``last`` in place or append, mark superseded rows), the recall
log, and the derived ``MEMORY.md``. The layouts do the bytes; the pure modules
(keywords, retrieval, staleness, detectors) do the deciding.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import MappingProxyType

from pi_memory.config import defaults
from pi_memory.entry import LAYERS, PROJECT, USER, Entry
from pi_memory.errors import ConfigError, EntryRejected, PiMemoryError, UsageError
from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.layer_files import RECALLS_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Final

    from pi_memory.anchors.project import Found
    from pi_memory.fs.lock import StoreLock
    from pi_memory.fs.parse_cache import Identity
    from pi_memory.fs.staged_change import StagedChange
    from pi_memory.keyword_tally import FileFacts
    from pi_memory.keywords import Tally
    from pi_memory.layouts.protocol import IndexChange, Injected, LayerStore
    from pi_memory.plan import ImportOutcome, WritePlan, WriteRequest
    from pi_memory.provenance import Provenance, TrustRecord
    from pi_memory.ready_index import Ready
    from pi_memory.retrieval import Candidates, SearchResult
    from pi_memory.search_index import Brief, SearchIndex, Signals
    from pi_memory.worktree_memories import WorktreeSource

LAYER_ALIASES: Final = {
    "user": USER,
    "global": USER,
    "g": USER,
    "project": PROJECT,
    "proj": PROJECT,
    "p": PROJECT,
}


def parse_layer(word: str) -> str:
    """``user``/``global``/``g`` or ``project``/``proj``/``p``; anything else is an error."""
    layer = LAYER_ALIASES.get(word.strip().lower())
    if layer is None:
        raise UsageError(f"unknown layer {word!r}: use user (global, g) or project (proj, p)")
    return layer


class Settings(NamedTuple):
    """What the engine needs to know, resolved from ``memory.json`` and the environment."""

    layout: str
    dirs: Mapping[str, Path]
    project_name: str
    lock_timeout_ms: int = defaults.LOCK_TIMEOUT_MS
    snapshot_keep: int = defaults.SNAPSHOT_KEEP
    keep_removed_days: int = defaults.KEEP_REMOVED_DAYS
    #: The largest body a write accepts, in UTF-8 bytes (``memoryMaxBytes``).
    max_body_bytes: int = defaults.MEMORY_MAX_BYTES
    review_months: int = defaults.REVIEW_MONTHS
    index_budget: int = defaults.INDEX_BUDGET
    inject_max_lines: int = defaults.MEM_INDEX_INJECT_MAX_LINES
    index_max_lines: int = defaults.MEM_INDEX_MAX_LINES
    index_max_bytes: int = defaults.MEM_INDEX_MAX_BYTES
    inject_max_bytes: int = defaults.MEM_INDEX_INJECT_MAX_BYTES
    #: Extra secret patterns (``redactPatterns``): label → regular expression.
    redact_patterns: Mapping[str, str] = MappingProxyType({})
    #: Layers that cannot be used from here, with the reason (a deleted working directory).
    unavailable: Mapping[str, str] = MappingProxyType({})
    #: The git repository the project layer lies in (its memories may come from others).
    repository: Path | None = None
    #: Where this user's trust records are kept (``~/.pi/agent/memory-trust/``): the home.
    home: Path | None = None
    #: The project root is in ``trustedProjects``: its layer is trusted without ``trust``.
    trusted_project: bool = False
    #: The project's top directory (git's top level, else the working directory): what
    #: a project memory is anchored to (:mod:`pi_memory.anchors`); ``None``: nothing.
    project_root: Path | None = None
    #: The project layers of the repository's other worktrees (``worktrees: shared``):
    #: read beside the project layer, never written (:meth:`Store.worktree_sources`).
    worktree_dirs: tuple[Path, ...] = ()
    #: The other worktrees whose project layer a link leads out of their repository,
    #: ``(worktree, why)``: left out of :attr:`worktree_dirs`, and said.
    worktrees_refused: tuple[tuple[Path, str], ...] = ()


class WriteOutcome(NamedTuple):
    entry: Entry
    deduped: bool
    superseded: tuple[str, ...]
    #: Ids to supersede that name no memory of either layer.
    unknown_supersedes: tuple[str, ...]
    dropped_keywords: int
    #: What did not happen although the memory is stored ("" when everything did).
    note: str = ""
    #: Ids to supersede that are memories of the other layer: a memory supersedes only
    #: memories of its own layer.
    other_layer_supersedes: tuple[str, ...] = ()


class RebuildReport(NamedTuple):
    collapsed: int
    repaired: int
    entries: int
    #: Lines of ``MEMORY.md`` added and removed by the regeneration.
    index_change: IndexChange


class Store:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._layers: dict[str, LayerStore] = {}
        #: Entries read since the last write of this process (a hook reads a layer once).
        self._read_cache: dict[str, list[Entry]] = {}
        #: While set, a layout's changes leave no rollback point of their own (an
        #: import took one of the whole directory first).
        self._rollback_paused = False
        #: Which project memories came from the repository (see :mod:`pi_memory.provenance`).
        self._provenance: Provenance | None = None
        #: What decides it per file: this user's own ids, and the files git tracks
        #: (``None``: every file counts as tracked).
        self._own: tuple[frozenset[str], frozenset[str] | None] = (frozenset(), None)
        #: Keyword tallies worked out since the last write, per (layer, part).
        self._tallies: dict[tuple[str, str], Tally | None] = {}
        #: The identity of each file the tallies and the provenance were worked out
        #: from (``None``: no such file), for :mod:`pi_memory.ready_index`.
        self._sources: dict[Path, Identity | None] = {}
        #: The other worktrees' project layers and what this worktree reads of them.
        self._worktrees: list[WorktreeSource] | None = None
        #: This user's trust record of the project layer as a write's change found it and
        #: left it: its path and identity before and after (the ready tallies follow).
        self._record_moved: tuple[str, Identity | None, Identity | None] | None = None

    def renewed(self) -> Store:
        """A store of the same settings that reads afresh, sharing this one's layer objects
        (whose caches are checked against each file's identity on every read)."""
        fresh = Store(self.settings)
        fresh._layers = self._layers
        return fresh

    # -- reading ------------------------------------------------------------

    def directory(self, layer: str) -> Path:
        return self.settings.dirs[layer]

    def layer(self, layer: str) -> LayerStore:
        if layer not in self._layers:
            opened = self._open_layer(layer, self.directory(layer))
            if opened.snapshot_on_write:
                opened.before_change = self._rollback_point_of(opened.directory)
            self._layers[layer] = opened
        return self._layers[layer]

    def _open_layer(self, layer: str, directory: Path) -> LayerStore:
        from pi_memory.layouts import open_layer

        s = self.settings
        return open_layer(
            s.layout,
            layer,
            directory,
            index_max_lines=s.index_max_lines,
            index_max_bytes=s.index_max_bytes,
            index_budget=s.index_budget,
            inject_max_lines=s.inject_max_lines,
            inject_max_bytes=s.inject_max_bytes,
            keep_removed_days=s.keep_removed_days,
            max_body_bytes=s.max_body_bytes,
        )

    def read(self, layer: str) -> list[Entry]:
        """Every entry of ``layer``, read once per process until a write; do not mutate it."""
        if layer not in self._read_cache:
            if layer in self.settings.unavailable:
                return []
            self._check_directory(layer)
            entries = self.layer(layer).read()
            if layer == PROJECT and self.settings.repository is not None:
                entries = self._as_trusted(entries)
            self._read_cache[layer] = entries
        return self._read_cache[layer]

    # -- provenance ---------------------------------------------------------

    def provenance(self) -> Provenance:
        """Which project memories came from the repository, and whether they are trusted."""
        if self._provenance is None:
            from pi_memory.provenance import Provenance, read_record, tracked_files

            s = self.settings
            if s.repository is None or s.home is None or PROJECT in s.unavailable:
                return Provenance(True, frozenset())
            store = self.layer(PROJECT)
            directory = self.directory(PROJECT)
            from pi_memory.fs.parse_cache import identity_at
            from pi_memory.provenance import record_path

            trust_file = record_path(s.home, directory)
            self._sources[trust_file] = identity_at(trust_file)  # before it is read
            record = read_record(s.home, directory)
            tracked = tracked_files(s.repository, directory)
            trusted = record.trusted or s.trusted_project
            self._own = (record.own, tracked)
            self._provenance = self._provenance_of(store, record, trusted, tracked)
        return self._provenance

    @staticmethod
    def _provenance_of(
        store: LayerStore,
        record: TrustRecord,
        trusted: bool,
        tracked: frozenset[str] | None,
    ) -> Provenance:
        """:func:`~pi_memory.provenance.provenance` of the layer ``store``, from its keyword
        facts when it keeps them (no entry is read then)."""
        from pi_memory.provenance import Provenance, provenance

        if tracked == frozenset():
            return provenance(record, trusted, tracked, [])
        facts = store.facts()
        if facts is None:
            return provenance(record, trusted, tracked, [(e.id, e.file) for e in store.read()])
        committed = [f.ids for file, _, f in facts if tracked is None or file in tracked]
        foreign = frozenset().union(*committed) - record.own
        return Provenance(trusted, foreign, record.declined)

    def suspects(self) -> dict[str, str]:
        """The project memories whose anchored code changed since (id → what changed),
        as the last background check found (:mod:`pi_memory.anchors`; no git runs)."""
        if self.settings.project_root is None or PROJECT in self.settings.unavailable:
            return {}
        from pi_memory import anchors

        found = anchors.suspects(self.directory(PROJECT))
        return {e.id: found[e.id] for e in self.read(PROJECT) if e.id in found} if found else {}

    def _as_trusted(self, entries: list[Entry]) -> list[Entry]:
        """The project memories a model may read: those from the repository only once
        the layer is trusted."""
        known = self.provenance()
        if known.trusted or not known.foreign:
            return entries
        return [e for e in entries if e.id not in known.foreign]

    def foreign_among(self, entries: Iterable[Entry]) -> frozenset[str]:
        """Which of ``entries`` are :meth:`foreign` (used memories from the repository),
        decided for them alone: no other entry's id is looked at."""
        s = self.settings
        if s.repository is None or s.home is None or PROJECT in s.unavailable:
            return frozenset()
        project = [e for e in entries if e.layer == PROJECT]
        if not project:
            return frozenset()
        if self._provenance is not None:
            return self.foreign() & {e.id for e in project}
        from pi_memory.provenance import read_record, tracked_files

        directory = self.directory(PROJECT)
        record = read_record(s.home, directory)
        if not (record.trusted or s.trusted_project):
            return frozenset()
        tracked = tracked_files(s.repository, directory)
        return frozenset(
            e.id
            for e in project
            if (tracked is None or e.file in tracked) and e.id not in record.own
        )

    def foreign(self) -> frozenset[str]:
        """Ids of the memories that came from the repository and are used (trusted)."""
        known = self.provenance()
        return known.foreign if known.trusted else frozenset()

    def withheld(self) -> int:
        """How many memories from the repository are left out until ``trust`` (none in a
        trusted layer: which they are is not worked out then)."""
        s = self.settings
        if self._provenance is None and s.home is not None and s.repository is not None:
            from pi_memory.provenance import read_record

            if s.trusted_project or read_record(s.home, self.directory(PROJECT)).trusted:
                return 0
        known = self.provenance()
        return 0 if known.trusted else len(known.foreign)

    def _remember_own(self, layer: str, ids: Sequence[str]) -> None:
        """Record this user's writes to a repository's layer (under its lock)."""
        s = self.settings
        if layer != PROJECT or s.repository is None or s.home is None or not ids:
            return
        from pi_memory.fs.parse_cache import identity_at
        from pi_memory.provenance import record_path, remember_own

        path = record_path(s.home, self.directory(layer))
        before = identity_at(path)
        try:
            remember_own(s.home, self.directory(layer), ids)
        except OSError:
            pass  # the memory is stored; it counts as from the repository until trusted
        self._record_moved = (str(path), before, identity_at(path))
        self._provenance = None

    def _check_directory(self, layer: str) -> None:
        """A layer directory that is a file is a person's mistake: say which, and how out."""
        directory = self.directory(layer)
        if directory.exists() and not directory.is_dir():
            raise ConfigError(
                f"the {layer} memory directory {directory} is a file, not a directory: "
                "move it away or configure another directory"
            )

    def tally(self, layer: str, part: str = "read") -> Tally | None:
        """The keyword tally of :meth:`read` (``part`` ``"own"`` / ``"theirs"``: of the
        project memories not from / from the repository; ``"all"``: of the layer as
        stored, trusted or not), summed from each file's facts
        without reading an entry of an unchanged file; ``None`` when the layout keeps no
        facts (its index is not a keyword table)."""
        key = (layer, part)
        if key not in self._tallies:
            self._tallies[key] = self._tally(layer, part)
        return self._tallies[key]

    def _tally(self, layer: str, part: str) -> Tally | None:
        from pi_memory.keyword_tally import layer_tally, split_tally

        if layer in self.settings.unavailable:
            return layer_tally([])
        self._check_directory(layer)
        facts = self.layer(layer).facts()
        if facts is None:
            return None
        known = self.provenance() if layer == PROJECT else None
        here = self.directory(layer)
        self._sources.update((here / file, identity) for file, identity, _ in facts)
        if part == "all" or (
            part == "read" and (known is None or known.trusted or not known.foreign)
        ):
            return layer_tally([f for _, _, f in facts])
        own, tracked = self._own
        mine = [None if tracked is not None and f not in tracked else own for f, _, _ in facts]
        return split_tally([f for _, _, f in facts], mine, foreign=part == "theirs")

    def sources(self) -> dict[Path, Identity | None]:
        """The identity of each file the tallies and the provenance so far were worked out
        from (``None``: no such file)."""
        return dict(self._sources)

    def keep_ready(self) -> str:
        """Keep this store's tallies ready for the next session start
        (:mod:`pi_memory.ready_index`); returns the signature they are kept under ("" when
        not kept: a layout without tallies, or a start that has something to say)."""
        from pi_memory import ready_index

        try:
            # Asked first: a start that says so is never answered from its note, and the
            # tallies of its blocks cost a sum of every file's facts. The next write still
            # finds its MEMORY.md's tally kept, with no block (no note is rendered from it).
            if self.withheld() and not self.provenance().declined:
                self._keep_indexes()
                return ""
            if self.suspects():
                return ""  # their block is rendered from the entries: the full work
            blocks = [(b.layer, b.label, str(b.directory), b.tally()) for b in self.injected()]
            indexes = self._index_tallies("read")
            if self.read_problems():
                return ""
        except (OSError, PiMemoryError):
            return ""
        ready = self._ready(indexes, blocks)
        if len(ready.blocks) != len(blocks) or len(ready.indexes) != len(indexes):
            return ""
        return ready.signature if ready_index.save(ready) else ""

    def _keep_indexes(self) -> None:
        """Keep each layer's ``MEMORY.md`` tally ready, and no block to inject: for the next
        write into a repository's layer that is not trusted yet (its ``MEMORY.md`` holds
        every memory, the injection only this user's)."""
        from pi_memory import ready_index

        indexes = self._index_tallies("all")
        if self.read_problems() or any(tally is None for _, _, tally in indexes):
            return
        ready_index.save(self._ready(indexes, []))

    def _index_tallies(self, part: str) -> list[tuple[str, str, Tally | None]]:
        """Each existing layer's ``MEMORY.md`` tally (``part`` as :meth:`tally` takes it)."""
        return [
            (layer, str(self.directory(layer)), self.tally(layer, part))
            for layer in LAYERS
            if layer not in self.settings.unavailable and self.directory(layer).is_dir()
        ]

    def _ready(
        self,
        indexes: list[tuple[str, str, Tally | None]],
        blocks: list[tuple[str, str, str, Tally | None]],
    ) -> Ready:
        """What :mod:`pi_memory.ready_index` keeps of these tallies (those that are
        ``None`` left out) under this store's signature and sources."""
        from pi_memory import ready_index

        s = self.settings
        return ready_index.Ready(
            self.ready_signature(),
            tuple((str(path), identity) for path, identity in self._sources.items()),
            s.layout,
            s.index_budget,
            s.lock_timeout_ms,
            tuple((layer, d, t) for layer, d, t in indexes if t is not None),
            tuple((layer, label, d, t) for layer, label, d, t in blocks if t is not None),
        )

    def _index_after(
        self,
        store: LayerStore,
        after: list[Entry],
        layer: str,
        plan: WritePlan,
        tokens: tuple[object, object],
    ) -> str:
        """``MEMORY.md`` and the ready tallies after a write that changed the files from
        the first of ``tokens`` to the second; what is said of ``MEMORY.md``."""
        if plan.deduped and not plan.retire:
            # No keyword, time or liveness changed: the tallies held before stand.
            tally = self._ready_moved(store, layer, *tokens)
        else:
            tally = self._ready_advanced(store, layer, plan, *tokens)
        if tally is not None:
            return self._refresh_after(store, after, layer, tokens[1], tally)
        note = self._refresh_after(store, after, layer, tokens[1])
        self.keep_ready()  # the next session start reads the tallies, not the layer
        return note

    def _ready_moved(
        self, store: LayerStore, layer: str, before: object, after: object
    ) -> Tally | None:
        """After a write that changed no tally: the ready tallies moved to the new identity
        of the files it rewrote (:func:`ready_index.moved`), when they held before it;
        returns the tally of ``layer``'s ``MEMORY.md`` they hold (``None``: not moved, or
        a layout whose change tokens are not its files' identities)."""
        from pi_memory import ready_index

        was, now_all = store.token_files(before), store.token_files(after)
        if was is None or now_all is None:
            return None
        changed = [
            (path, identity) for path, identity in now_all.items() if was.get(path) != identity
        ]
        now = {path: identity for path, identity in changed if identity is not None}
        if not now or len(now) != len(changed):
            return None
        ready = ready_index.moved(self.ready_signature(), was, now)
        indexes = ready.indexes if ready is not None else ()
        return next((tally for name, _, tally in indexes if name == layer), None)

    def _ready_advanced(
        self, store: LayerStore, layer: str, plan: WritePlan, before: object, after: object
    ) -> Tally | None:
        """After a write that added a memory or retired some: the ready tallies held before
        it, with the groups of the keywords it changed worked out again from the files'
        facts and the others kept (:func:`keywords.reach_after`), kept for the files as
        they are now; returns the tally of ``layer``'s ``MEMORY.md`` they hold. ``None``
        (the caller sums the layers): they did not hold, the layer is read in part (not
        trusted), or keywords they left out may now make the table."""
        from pi_memory import ready_index

        was, now = store.token_files(before), store.token_files(after)
        facts = store.facts()
        if was is None or now is None or facts is None:
            return None
        if {str(self.directory(layer) / f): i for f, i, _ in facts} != now:
            return None  # the facts are of other bytes than the write left
        record = self._record_moved if layer == PROJECT else None
        if record is not None:
            was, now = {**was, record[0]: record[1]}, {**now, record[0]: record[2]}
        ready = ready_index.load(self.ready_signature(), was)
        if ready is None or not {path for path, _ in ready.sources} >= set(now):
            return None
        part = self._changed_part(layer, plan, facts, ready)
        if part is None:
            return None
        directory = str(self.directory(layer))
        indexes, blocks = [], []
        for name, where, tally in ready.indexes:
            changed = part(tally, "") if where == directory else tally
            indexes.append((name, where, changed))
        for name, label, where, tally in ready.blocks:
            changed = part(tally, label) if where == directory else tally
            blocks.append((name, label, where, changed))
        kept = ready._replace(
            sources=tuple((path, now.get(path, identity)) for path, identity in ready.sources),
            indexes=tuple((n, d, t) for n, d, t in indexes if t is not None),
            blocks=tuple((n, lb, d, t) for n, lb, d, t in blocks if t is not None),
        )
        if (len(kept.indexes), len(kept.blocks)) != (len(indexes), len(blocks)):
            return None
        if not ready_index.save(kept):
            return None
        return next((t for _, d, t in kept.indexes if d == directory), None)

    def _changed_part(
        self,
        layer: str,
        plan: WritePlan,
        facts: Sequence[tuple[str, Identity | None, FileFacts]],
        ready: Ready,
    ) -> Callable[[Tally, str], Tally | None] | None:
        """How a ready tally of ``layer`` (its ``MEMORY.md``'s: label ``""``, or a block's)
        changes with the write of ``plan``, the layer's files having ``facts`` now;
        ``None`` when the layer is read in part (from a repository not trusted) and
        ``ready`` holds blocks of that part (it holds none when kept for the
        ``MEMORY.md`` files alone: :meth:`keep_ready`)."""
        from pi_memory.keyword_tally import groups_of
        from pi_memory.keywords import canonical_key, reach_after

        files = [f for _, _, f in facts]
        own_of: list[Collection[str] | None] = [None] * len(files)
        own: Collection[str] = ()
        theirs_label = ""
        s = self.settings
        if layer == PROJECT and s.repository is not None and s.home is not None:
            from pi_memory.provenance import REPOSITORY_MARK, read_record, tracked_files

            record = read_record(s.home, self.directory(layer))
            if record.trusted or s.trusted_project:
                tracked = tracked_files(s.repository, self.directory(layer))
                own = record.own
                own_of = [
                    None if tracked is not None and f not in tracked else own for f, _, _ in facts
                ]
                theirs_label = f"{self.label(layer)} ({REPOSITORY_MARK})"
            elif ready.blocks:
                return None  # a block of the part read (not the repository's) was kept
        split = any(label == theirs_label for _, label, _, _ in ready.blocks)
        names = [name for name, _, _ in facts]
        changed = [*(() if plan.deduped else (plan.entry,)), *plan.retire]
        if any(e.file not in names for e in changed):
            return None
        foreign = (
            {e.id for e in changed if own_of[names.index(e.file)] is not None and e.id not in own}
            if split
            else set()
        )

        def part(tally: Tally, label: str) -> Tally | None:
            if label and label not in (self.label(layer), theirs_label):
                return None
            theirs = bool(label) and label == theirs_label
            mine = own_of if split and label else [None] * len(files)
            members = [e for e in changed if not split or not label or (e.id in foreign) == theirs]
            if not members:
                return tally
            keys = {canonical_key(e.keyword) for e in members}
            entries, live, found = groups_of(files, mine, keys, foreign=theirs)
            return reach_after(tally, entries, live, found)

        return part

    def ready_signature(self) -> str:
        """What the ready tallies of this store depend on (:func:`ready_index.signature`)."""
        from pi_memory.ready_index import signature

        s = self.settings
        dirs = {layer: str(path) for layer, path in sorted(s.dirs.items())}
        where = [str(s.repository), str(s.home), s.trusted_project, sorted(s.unavailable)]
        return signature([s.layout, dirs, s.project_name, s.index_budget, *where])

    def read_all(self) -> list[Entry]:
        """Every entry of both layers (what a write or a review works on)."""
        return [entry for layer in LAYERS for entry in self.read(layer)]

    def visible(self) -> list[Entry]:
        """Every memory a model may be shown: both layers, then what the project layer
        reads from the repository's other worktrees (:meth:`worktree_sources`)."""
        shared = [entry for source in self.worktree_sources() for entry in source.entries]
        return [*self.read_all(), *shared]

    # -- other worktrees ----------------------------------------------------

    def worktree_sources(self) -> list[WorktreeSource]:
        """The project layers of the repository's other worktrees (``worktrees: shared``),
        each with the memories this worktree reads from it: each id once, none the
        project layer holds. Read only: no write, lock or index refresh reaches them."""
        if self._worktrees is None:
            from pi_memory.worktree_memories import read_worktrees

            s = self.settings
            if not s.worktree_dirs or PROJECT in s.unavailable:
                self._worktrees = []
            else:
                own = {entry.id for entry in self.read(PROJECT)}
                layers = [self._open_layer(PROJECT, d) for d in s.worktree_dirs]
                in_repository = s.home if s.repository is not None else None
                self._worktrees = read_worktrees(layers, own, in_repository)
        return self._worktrees

    def notes(self) -> tuple[str, ...]:
        """What the reads so far left out, one line each: a layer refused here, with
        why, memories from the repository not trusted yet, and each file that could not
        be read. Whoever shows memories says these."""
        untrusted = [self.withheld_note()] if self.withheld() else []
        return (*self.refused_notes(), *untrusted, *self.read_problems())

    def refused_notes(self) -> tuple[str, ...]:
        """Each layer this store leaves out and why, one line each (read nothing)."""
        own = [
            f"the {layer} layer is not used: {why}"
            for layer, why in self.settings.unavailable.items()
        ]
        others = [
            f"the worktree {root}'s project layer is not used: {why}"
            for root, why in self.settings.worktrees_refused
        ]
        return (*own, *others)

    def withheld_note(self) -> str:
        from pi_memory.launcher import this_package

        n = self.withheld()
        memories = "memory" if n == 1 else "memories"
        return (
            f"{n} {memories} committed to this repository by others "
            f"({self.directory(PROJECT)}) are not used until you trust them: "
            f"read them, then run {this_package().command('trust')}"
        )

    def read_problems(self) -> list[str]:
        """Each file the reads so far could not open, and why."""
        return [
            line
            for layer in LAYERS
            if layer in self._layers
            for line in self._layers[layer].read_problems()
        ]

    def recalls(self, layer: str) -> dict[str, int]:
        if layer in self.settings.unavailable:
            return {}
        from pi_memory.ready_index import recalls_in

        return recalls_in(self.directory(layer))

    # -- writing ------------------------------------------------------------

    def lock(self, layer: str, op: str) -> StoreLock:
        from pi_memory.fs.lock import StoreLock

        if layer in self.settings.unavailable:
            raise UsageError(self.settings.unavailable[layer])
        self._check_directory(layer)
        directory = self.directory(layer)
        directory.mkdir(parents=True, exist_ok=True)
        if layer == PROJECT:
            from pi_memory.fs.layer_gitignore import ensure_gitignore

            ensure_gitignore(directory)
        self._read_cache.pop(layer, None)  # whatever happens under the lock, read afresh
        self._tallies = {key: kept for key, kept in self._tallies.items() if key[0] != layer}
        return StoreLock(directory, op, self.settings.lock_timeout_ms)

    def _rollback_point_of(self, directory: Path) -> Callable[[str, Sequence[str]], None]:
        """pi-memory's snapshot-on-write: copy the files a change is about to touch."""

        def rollback_point(label: str, files: Sequence[str]) -> None:
            if self._rollback_paused:
                return
            from pi_memory.fs.snapshot import take_snapshot

            paths = [Path(name) for name in files]
            take_snapshot(directory, label, paths, keep=self.settings.snapshot_keep)

        return rollback_point

    def one_rollback_point(self, layer: str, label: str) -> None:
        """pi-memory's dream: one copy of the whole directory, then no point per change
        until :meth:`end_rollback_point`. Call with the layer's lock held."""
        from pi_memory.fs.snapshot import memory_files, whole_dir_snapshot

        directory = self.directory(layer)
        if self.layer(layer).snapshot_on_write and memory_files(directory):
            whole_dir_snapshot(directory, label, self.settings.snapshot_keep)
        self._rollback_paused = True

    def end_rollback_point(self) -> None:
        self._rollback_paused = False

    def redact(self, text: str) -> str:
        """``text`` with its secrets as ``[REDACTED:kind]``, counted in the spend ledger.

        Every body passes here before it is stored; a body that was nothing but
        secrets or ``<private>`` text is refused rather than stored as placeholders.
        """
        from pi_memory.model.redact import redact

        done = redact(text, self.settings.redact_patterns)
        if not done.hits:
            return text
        import re

        if not re.sub(r"\[REDACTED:[a-z0-9-]+\]", "", done.text).strip():
            raise EntryRejected("the memory holds nothing but secrets or <private> text")
        from pi_memory.model import ledger

        when = ledger.now_local()
        spent = ledger.LedgerLine(ledger.stamp(when), "store", "", outcome=ledger.REDACTED)
        try:
            ledger.record(self.settings.dirs[USER], spent._replace(redactions=done.hits))
        except OSError:
            pass  # the count is a statistic; the write goes on
        return done.text

    def write(
        self,
        layer: str,
        body: str,
        keywords: Sequence[str],
        *,
        now: datetime,
        file: str | None = None,
        supersedes: Sequence[str] = (),
        src: str = "user",
    ) -> WriteOutcome:
        """pi-memory-auto's ``appendEntry``: validate, then de-duplicate or append, then supersede.

        What to write is decided by :func:`pi_memory.plan.plan_write` on the
        layer as it is when the change is made; this method only checks and does it.
        """
        from pi_memory.entry import format_time
        from pi_memory.keywords import sanitize_keywords
        from pi_memory.plan import WriteRequest, checked_supersedes, entries_after

        body = self.redact(validate_body(body, max_bytes=self.settings.max_body_bytes))
        pick = sanitize_keywords(keywords)
        if pick.keyword is None:
            reasons = "; ".join(pick.issues) or "none given"
            raise EntryRejected(f"no usable keyword ({reasons})")
        wanted = checked_supersedes(supersedes)
        store = self.layer(layer)
        request = WriteRequest(
            layer=layer,
            body=body,
            keyword=pick.keyword,
            file=store.target_file(file),
            supersedes=wanted,
            src=src,
            project=self.settings.project_name if layer == PROJECT else "",
            stamp=format_time(now),
        )
        anchor = self._anchoring(layer, body, request.stamp)
        self._record_moved = None
        store.hold_caching()
        try:
            entries, plan, stored, tokens, note = self._change(store, request, now, anchor)
        finally:
            store.settle()
        if tokens is not None:
            after = entries_after(entries, stored, plan.deduped, plan.retire)
            note = self._index_after(store, after, layer, plan, tokens)
        else:
            self.keep_ready()  # the next session start reads the tallies, not the layer
        elsewhere = self._ids_in_other_layer(layer, plan.unknown)
        return WriteOutcome(
            entry=stored,
            deduped=plan.deduped,
            superseded=tuple(e.id for e in plan.retire),
            unknown_supersedes=tuple(i for i in plan.unknown if i not in elsewhere),
            dropped_keywords=pick.dropped,
            note=note,
            other_layer_supersedes=elsewhere,
        )

    def _change(
        self,
        store: LayerStore,
        request: WriteRequest,
        now: datetime,
        anchor: Callable[[str], object],
    ) -> tuple[list[Entry], WritePlan, Entry, tuple[object, object] | None, str]:
        """Make the write's change, holding the lock only for the change itself.

        The layer is read, the write decided and its files staged before the lock
        is taken; under it, a few ``stat`` calls check that nothing changed since,
        and the staged files are put in place. When something did change, the
        preparation is made again; after :data:`PREPARE_ATTEMPTS` tries, the write
        decides and changes under the lock. Returns what it decided on, the plan,
        the entry stored, the layer's tokens just before and after the change
        (``None``: the index was already brought up to date, under the lock) and the
        index's note.
        """
        from pi_memory.plan import entries_after

        layer = request.layer
        for attempt in range(PREPARE_ATTEMPTS + 1):
            token = store.change_token() if attempt < PREPARE_ATTEMPTS else None
            ahead = _planned(store, request, now) if token is not None else None
            staged = _staged(store, ahead)
            try:
                with self.lock(layer, "add"):
                    if staged is not None and not _still(store, token, staged[1]):
                        continue  # changed meanwhile: prepare again
                    held = token
                    if staged is not None and ahead is not None:
                        entries, plan = ahead
                        stored = staged[0]
                        staged[1].commit()
                    else:
                        held = store.change_token()
                        if ahead is None or held != token:
                            ahead = _planned(store, request, now)
                        entries, plan = ahead
                        stored = self._change_held(store, entries, plan)
                    anchor(stored.id)
                    if not plan.deduped:
                        self._remember_own(layer, [stored.id])
                    written = store.change_token()
                    if held is not None and written is not None:
                        return entries, plan, stored, (held, written), ""
                    after = entries_after(entries, stored, plan.deduped, plan.retire)
                    return entries, plan, stored, None, self._refresh_or_note(store, after, layer)
            finally:
                if staged is not None:
                    staged[1].discard()  # nothing left to discard once put in place
                    staged[1].sync()  # the lock is let go by now
        raise AssertionError("the last attempt always writes")  # pragma: no cover

    def _change_held(self, store: LayerStore, entries: list[Entry], plan: WritePlan) -> Entry:
        """The write's change made with the lock held, the layout reading what it needs."""
        if plan.deduped:
            store.update([plan.entry])
            stored = plan.entry
        else:
            stored = store.append(plan.entry)
        if plan.retire:
            self._retire_or_undo(store, plan.retire, stored, entries, plan.deduped)
        return stored

    def _anchoring(self, layer: str, body: str, stamp: str) -> Callable[[str], object]:
        """What anchors the memory about to be written, found before the lock and
        recorded under it (see :mod:`pi_memory.anchors`): project memories only."""
        root = self.settings.project_root
        if layer != PROJECT or root is None:
            return lambda memory_id: None
        from pi_memory import anchors

        directory = self.directory(layer)
        found = anchors.find(root, body, directory)
        return lambda memory_id: anchors.keep(directory, memory_id, found, stamp)

    def anchor(
        self, memory_id: str, now: datetime, *, held: bool = False, entry: Entry | None = None
    ) -> Found | None:
        """Anchor a project memory (again) to the code as it is now: after the ``files``
        layout's memory tool wrote it, or once a person or an agent confirmed it still
        holds (``verify``); ``held``: the caller holds the layer's lock; ``entry``: the
        memory as the caller just read it (the layer is not read again to find it).
        Returns what it is anchored to (``None``: nothing)."""
        from contextlib import nullcontext

        from pi_memory import anchors
        from pi_memory.entry import format_time

        directory = self.directory(PROJECT)
        held_lock = nullcontext() if held else None
        if entry is None or entry.id != memory_id:
            entries = self.layer(PROJECT).read() if directory.is_dir() else []
            entry = next((e for e in entries if e.id == memory_id), None)
        if entry is None or self.settings.project_root is None:
            raise UsageError(f"no project memory has the id {memory_id}")
        found = anchors.find(self.settings.project_root, entry.body, directory)
        with held_lock or self.lock(PROJECT, "anchor"):
            anchors.keep(directory, memory_id, found, format_time(now))
        return found

    def _ids_in_other_layer(self, layer: str, ids: Sequence[str]) -> tuple[str, ...]:
        """Which of ``ids`` are memories of the layer that is not ``layer`` (read without
        its lock: this only words a message; an unreadable layer finds none)."""
        if not ids:
            return ()
        other = USER if layer == PROJECT else PROJECT
        if other in self.settings.unavailable or not self.directory(other).is_dir():
            return ()
        try:
            known = {entry.id for entry in self.layer(other).read()}
        except (OSError, PiMemoryError):
            return ()
        return tuple(i for i in ids if i in known)

    @staticmethod
    def _retire_or_undo(
        store: LayerStore,
        retire: Sequence[Entry],
        stored: Entry,
        entries: Sequence[Entry],
        deduped: bool,
    ) -> None:
        """Retire the superseded memories, or take the write back: a write that fails
        stores nothing. If even that fails, say exactly what is on disk."""
        try:
            store.update(retire)
        except OSError as exc:
            try:
                if deduped:
                    store.update([e for e in entries if e.id == stored.id])
                else:
                    store.remove([stored.id])
            except OSError:
                raise EntryRejected(
                    f"stored [{stored.id}], but could not retire "
                    f"{', '.join(e.id for e in retire)} ({exc}); write it again to finish"
                ) from exc
            raise

    def _refresh_after(
        self,
        store: LayerStore,
        after: list[Entry],
        layer: str,
        written: object,
        tally: Tally | None = None,
    ) -> str:
        """:meth:`_refresh_or_note` with the lock taken again only to put in place the
        index staged without it (from ``tally`` when given, the layer's tally the write
        kept); skipped when another write came since ours (that write brings the index
        up to date, with ours in it)."""
        from pi_memory.errors import LockError

        try:
            if tally is None:
                change = self._prepared_index(store, after, layer)
            else:
                change = store.prepare_index(tally, self.recalls(layer))
            if change is None:
                return ""
            try:
                with self.lock(layer, "add"):
                    if store.change_token() == written and change.unchanged():
                        change.commit()
            finally:
                change.discard()
                change.sync()
        except OSError as exc:
            return f"MEMORY.md was not rewritten ({_describe(exc)}); the next write redoes it"
        except LockError as exc:
            return f"MEMORY.md was not rewritten ({exc}); the next write redoes it"
        return ""

    def _prepared_index(
        self, store: LayerStore, after: list[Entry], layer: str
    ) -> StagedChange | None:
        """The new ``MEMORY.md`` after a write, staged now: rendered from the layer's
        tally (the facts the write kept for the file it changed), or from ``after``,
        the layer's entries, when the layout keeps no tallies."""
        tally = self.tally(layer, "all")
        return store.prepare_index(after if tally is None else tally, self.recalls(layer))

    def _refresh_or_note(self, store: LayerStore, after: list[Entry], layer: str) -> str:
        """Bring the index file up to date; the memory is stored whatever happens here, so a
        failure is said, not raised (the next write or session start regenerates it)."""
        try:
            store.refresh_index(after, self.recalls(layer))
        except OSError as exc:
            return f"MEMORY.md was not rewritten ({_describe(exc)}); the next write redoes it"
        return ""

    def rebuild(self, layer: str) -> RebuildReport:
        """Repair the layer (persist the read path's keyword repair), then regenerate
        its ``MEMORY.md`` from what is on disk; says what changed."""
        store = self.layer(layer)
        with self.lock(layer, "rebuild"):
            import time

            from pi_memory.fs.leftovers import sweep

            sweep(self.directory(layer), time.time())  # whatever the directory's size
            collapsed, repaired = store.repair_keywords()
            entries = store.read()
            change = store.rebuild_index(entries, self.recalls(layer))
        return RebuildReport(collapsed, repaired, len(entries), change)

    def import_entries(
        self, layer: str, entries: Sequence[Entry], *, replace: bool = False
    ) -> ImportOutcome:
        """Copy memories read from another layout into ``layer``.

        New ids are added; an id already there is replaced only when ``replace``.
        Refused whole, before anything is written, if one cannot be stored here.
        The import takes one rollback point of the whole directory, not one per memory.
        """
        from pi_memory.plan import ImportOutcome, plan_import

        store = self.layer(layer)
        problems = [problem for e in entries for problem in self._import_problems(store, e)]
        if problems:
            raise EntryRejected("cannot import, nothing written: " + "; ".join(problems))
        directory = self.directory(layer)
        with self.lock(layer, "import"):
            plan = plan_import(entries, store.read(), store.default_src)
            outcome = ImportOutcome(
                new=len(plan.new),
                identical=plan.identical,
                differing=tuple(e.id for e in plan.differing),
                replaced=replace,
            )
            changed = plan.differing if replace else ()
            if not plan.new and not changed:
                return outcome
            from pi_memory.fs.snapshot import memory_files, whole_dir_snapshot

            if memory_files(directory):
                whole_dir_snapshot(directory, "import", self.settings.snapshot_keep)
            self._rollback_paused = True
            try:
                for entry in plan.new:
                    store.append(entry)
                self._remember_own(layer, [entry.id for entry in plan.new])
                if changed:
                    store.update(changed)
            finally:
                self._rollback_paused = False
            store.refresh_index(store.read(), self.recalls(layer))
        return outcome

    def _import_problems(self, store: LayerStore, entry: Entry) -> list[str]:
        """Why ``entry`` cannot be imported into ``store``: too large, or unreadable back."""
        from pi_memory.memory_size import size_issue

        too_large = size_issue(entry.body, self.settings.max_body_bytes)
        unreadable = store.body_problem(entry.body)
        return [
            f"{entry.id}: {problem}"
            for problem in (too_large and f"the body {too_large}", unreadable)
            if problem
        ]

    def refresh_indexes(self, layers: Sequence[str] = LAYERS, *, wait: bool = True) -> None:
        """Rewrite each layer's ``MEMORY.md`` from its entries (session start, ``rebuild``).

        ``wait=False`` (a hook) skips a layer whose lock is busy instead of waiting.
        """
        for layer in layers:
            store = self.layer(layer)
            if layer in self.settings.unavailable or not store.directory.is_dir():
                continue
            if not store.index_needs_entries():
                continue
            lock = self.lock(layer, "rebuild")
            if not lock.acquire(blocking=wait):
                continue
            try:
                tally = self.tally(layer)
                if tally is None:
                    store.refresh_index(self.read(layer), self.recalls(layer))
                else:
                    store.refresh_tally(tally, self.recalls(layer))
            finally:
                lock.release()

    # -- injecting ----------------------------------------------------------

    def label(self, layer: str) -> str:
        return "global" if layer == USER else f"project: {self.settings.project_name}"

    def injection(self, max_chars: int | None = None) -> str:
        """What the host puts in the prompt at session start ("" when nothing is stored)."""
        sources = self.injected()
        suspect = self._suspect_block()
        if max_chars is not None and suspect:
            max_chars = max(200, max_chars - len(suspect) - 1)
        text = self.layer(USER).injection(sources, max_chars)
        return f"{text}\n{suspect}" if text and suspect else text

    def injected(self) -> list[Injected]:
        """The blocks of the injection, in order: each layer, and the repository's
        memories of the project layer in a block of their own."""
        from functools import partial

        from pi_memory.layouts.protocol import Injected

        sources = [
            Injected(
                layer,
                self.label(layer),
                self.directory(layer),
                partial(self.read, layer),
                partial(self.recalls, layer),
                partial(self.tally, layer),
            )
            for layer in LAYERS
        ]
        foreign = self.foreign()
        if foreign:
            # The repository's memories in a block of their own, said to be others' notes.
            own, theirs = self._split(PROJECT, foreign)
            sources[-1] = sources[-1]._replace(
                entries=own, tally=partial(self.tally, PROJECT, "own")
            )
            from pi_memory.provenance import REPOSITORY_MARK

            label = f"{self.label(PROJECT)} ({REPOSITORY_MARK})"
            mark = partial(self.tally, PROJECT, "theirs")
            sources.append(sources[-1]._replace(label=label, entries=theirs, tally=mark))
        sources.extend(self._worktree_injected())
        return sources

    def _suspect_block(self) -> str:
        """The injected index's few words on suspect memories ("" when none)."""
        suspects = self.suspects()
        if not suspects:
            return ""
        from pi_memory.anchors.notice import block
        from pi_memory.launcher import this_package

        return block(self.read(PROJECT), suspects, this_package().command("verify", "ID"))

    def _worktree_injected(self) -> list[Injected]:
        """The other worktrees' memories, a block each, said to be from another checkout."""
        from functools import partial

        from pi_memory.layouts.protocol import Injected

        label = f"{self.label(PROJECT)} (from another worktree of this repository)"
        return [
            Injected(PROJECT, label, source.directory, partial(list, source.entries), dict)
            for source in self.worktree_sources()
            if source.entries
        ]

    def _split(
        self, layer: str, ids: frozenset[str]
    ) -> tuple[Callable[[], list[Entry]], Callable[[], list[Entry]]]:
        def own() -> list[Entry]:
            return [e for e in self.read(layer) if e.id not in ids]

        def theirs() -> list[Entry]:
            return [e for e in self.read(layer) if e.id in ids]

        return own, theirs

    # -- searching ----------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        mode: str = "keyword",
        page: int = 1,
        now: datetime,
        credit: bool = True,
    ) -> SearchResult:
        """One page of ``search``'s results; ``credit=False`` leaves the recall log alone
        (a person browsing in the viewer is not a recall)."""
        from pi_memory.retrieval import search

        suspect = self.suspects()
        result = self._indexed_search(query, page, now, suspect) if mode == "keyword" else None
        if result is None:
            result = search(
                self.visible(),
                query,
                mode=mode,
                page=page,
                now=now,
                review_months=self.settings.review_months,
                suspect=suspect,
            )
        if credit:
            self.credit(query, result)
        marked = self.foreign_among(hit.entry for hit in result.hits)
        return result._replace(notes=self.notes(), foreign=marked)

    def _indexed_search(
        self, query: str, page: int, now: datetime, suspect: Mapping[str, str]
    ) -> SearchResult | None:
        """A keyword search that reads only the postings it needs, through each file's
        search index, and decodes only what can reach the page; ``None`` when it cannot
        answer (nothing matched, so the newest entries are listed, or a layout without
        files to index)."""
        from pi_memory import search_index
        from pi_memory.retrieval import Corpus, search_candidates, search_index_terms

        terms = search_index_terms(query, "keyword")
        if terms is None:
            return None
        found = _Found()
        size = total_length = 0
        layers = [self.layer(layer) for layer in LAYERS if layer not in self.settings.unavailable]
        allowed: list[Collection[str] | None] = [None] * len(layers)
        for source in self.worktree_sources():
            layers.append(source.layer)
            allowed.append({entry.id for entry in source.entries})
        for store, only in zip(layers, allowed):
            if only is None:
                self._check_directory(store.layer)
            sources = store.search_sources()
            if sources is None:
                return None
            for path, entries_of in sources:
                index = search_index.for_file(path, entries_of)
                if index is None:
                    continue
                size += index.size
                total_length += index.total_length
                found.add(index, search_index.signals(index, *terms), only)
        if not found.where:
            return None
        return search_candidates(
            found.candidates(),
            query,
            page=page,
            now=now,
            review_months=self.settings.review_months,
            corpus=Corpus(size, total_length),
            suspect=suspect,
        )

    def credit(self, query: str, result: SearchResult) -> bool:
        """Credit the keywords that found something; a failure here never fails a search.
        Whether any was to be credited (a recall log may have changed: what the next
        session start injects may be ordered anew; nothing else a search does changes it)."""
        from pi_memory.recalls import apply_credits, credited_keywords, render_recalls

        credited = False
        for layer in LAYERS:
            hits = [hit for hit in result.hits if hit.entry.layer == layer]
            keywords = credited_keywords(query, hits, result.mode, result.page, result.fallback)
            if not keywords:
                continue
            credited = True
            try:
                from pi_memory.fs.atomic import atomic_write_text

                with self.lock(layer, "recalls"):
                    counts = apply_credits(self.recalls(layer), keywords)
                    # Atomic, not durable: the log churns on every search and is
                    # disposable (a lost or damaged one reads as "no data").
                    atomic_write_text(
                        self.directory(layer) / RECALLS_FILE, render_recalls(counts), durable=False
                    )
            except (OSError, TimeoutError):
                continue
        return credited


#: How many times a write prepares its change before it makes it under the lock.
PREPARE_ATTEMPTS: Final = 3


def _staged(
    store: LayerStore, ahead: tuple[list[Entry], WritePlan] | None
) -> tuple[Entry, StagedChange] | None:
    """The planned change, staged by the layout (``None``: to be made under the lock)."""
    if ahead is None:
        return None
    entries, plan = ahead
    return store.prepare_write(entries, plan.entry, plan.deduped, plan.retire)


def _still(store: LayerStore, token: object, change: StagedChange) -> bool:
    """Whether the layer is as the staged change was worked out from (with the lock held)."""
    return store.change_token() == token and change.unchanged()


def _planned(
    store: LayerStore, request: WriteRequest, now: datetime
) -> tuple[list[Entry], WritePlan]:
    """What the write decides on (the layer as it is now, or only the entries it may
    touch, when the layout can find them), and what the write would do."""
    from pi_memory.entry import new_id
    from pi_memory.plan import plan_write, repeated

    found = store.candidates(request.body, request.supersedes)
    if found is None:
        entries = store.read()
        return entries, plan_write(entries, request, new_id(now, {e.id for e in entries}))
    entries, taken = found
    # A repeat keeps its id: the layer's ids are looked up only for a new memory.
    fresh = "" if repeated(entries, request) else new_id(now, taken)
    return entries, plan_write(entries, request, fresh)


_BOUNDARY_HINT: Final = "<!-- mid:"


def validate_body(body: str, *, max_bytes: int) -> str:
    """The body as it will be stored, or :class:`EntryRejected` with the reason.

    A body over ``max_bytes`` (``memoryMaxBytes``) is refused before anything
    else looks at it: none of the checks below need to read a flood to say no.
    """
    from pi_memory.control_chars import control_issue
    from pi_memory.memory_size import size_issue
    from pi_memory.truncation import truncation_issue
    from pi_memory.utf8 import utf8_issue

    problem = size_issue(body.strip(), max_bytes)
    if problem is not None:
        raise EntryRejected(f"the memory body {problem}")
    text = body.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise EntryRejected("the memory body is empty")
    problem = utf8_issue(text)
    if problem is not None:
        raise EntryRejected(f"the memory body is {problem}")
    problem = control_issue(text)
    if problem is not None:
        raise EntryRejected(f"the memory body {problem}")
    if _BOUNDARY_HINT in text or "-->" in text:
        raise EntryRejected("the body may not contain an HTML comment marker (<!-- or -->)")
    issue = truncation_issue(text)
    if issue is not None:
        raise EntryRejected(f"rejected as truncated: {issue}")
    return text


def _describe(exc: OSError) -> str:
    where = f": {exc.filename}" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"


class _Found:
    """What the search indexes of a store's files found for a query, file after file,
    in :meth:`Store.read_all`'s order; nothing decoded until asked."""

    def __init__(self) -> None:
        self.where: list[tuple[SearchIndex, int]] = []
        self.counts: list[list[int]] = []
        self.in_keyword: list[tuple[bool, ...] | None] = []
        self.lengths: list[int] = []
        self.moments: list[int] = []
        self.keys: list[str] = []
        self.possible: list[int] = []

    def add(self, index: SearchIndex, signals: Signals, only: Collection[str] | None) -> None:
        """The entries of one file's index; ``only``: the ids to keep (another worktree's)."""
        from pi_memory.search_index import Signals, briefs_at

        if only is not None:
            briefs = briefs_at(index, signals.positions)
            kept = [n for n, brief in enumerate(briefs) if brief.id in only]
            signals = Signals._make([column[n] for n in kept] for column in signals)
        self.where.extend((index, position) for position in signals.positions)
        self.counts.extend(signals.counts)
        self.in_keyword.extend(signals.in_keyword)
        self.lengths.extend(signals.lengths)
        self.moments.extend(signals.moments)
        self.keys.extend(signals.keys)
        self.possible.extend(signals.possible)

    def brief(self, n: int) -> Brief:
        from pi_memory.search_index import briefs_at

        index, position = self.where[n]
        return briefs_at(index, [position])[0]

    def entry(self, n: int) -> Entry:
        from pi_memory.search_index import entries_at

        index, position = self.where[n]
        return entries_at(index, [position])[0]

    def candidates(self) -> Candidates:
        from pi_memory.retrieval import Candidates

        return Candidates(
            self.counts,
            self.in_keyword,
            self.lengths,
            self.moments,
            self.keys,
            self.possible,
            self.brief,
            self.entry,
        )
