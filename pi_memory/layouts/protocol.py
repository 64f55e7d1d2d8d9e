"""What the engine asks of a layout: the protocol of one layer directory.

A layout is a persistence adapter for one layer directory. It is the only code
that knows a file format; everything above it works on :class:`Entry` records.
A layout knows nothing of locks or rollback points, nor of a tool's
arguments: the engine (:mod:`pi_memory.store`, :mod:`pi_memory.agent_tools.memory`)
takes the store's write lock before calling any method that writes, and
decides from :attr:`LayerStore.snapshot_on_write` whether a rollback point is
taken before each change (such a layout announces the files it is about to
change through :attr:`LayerStore.before_change`). Every method that writes
does so atomically.

A layout is opened by :func:`pi_memory.layouts.open_layer`.
"""

from __future__ import annotations

from collections.abc import Collection, Container, Mapping, Sequence
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any, Callable, Final, Protocol

    from pi_memory.config.schema import Config
    from pi_memory.entry import Entry
    from pi_memory.fs.parse_cache import Identity
    from pi_memory.fs.staged_change import StagedChange
    from pi_memory.keyword_tally import FileFacts
    from pi_memory.keywords import Tally
else:
    Protocol = object  # the type checker's structural base; typing costs a command milliseconds


class Kept(NamedTuple):
    """A copy of a memory's file that the ``memory`` tool deleted or overwrote."""

    path: Path
    #: When it was removed or replaced (UTC).
    when: datetime
    #: ``remove`` or ``replace``.
    action: str


#: ``(label, file names)``: called just before a layout changes those files of its directory.
if TYPE_CHECKING:
    BeforeChange = Callable[[str, Sequence[str]], None]


def no_rollback(label: str, files: Sequence[str]) -> None:
    """The default :attr:`LayerStore.before_change`: nothing to do."""
    del label, files


class Injected(NamedTuple):
    """One layer as the session-start injection sees it; read only when the layout asks."""

    layer: str
    label: str
    directory: Path
    entries: Callable[[], list[Entry]]
    recalls: Callable[[], Mapping[str, int]]
    #: The keyword tally of ``entries`` (``None``: work it out from them).
    tally: Callable[[], Tally | None] = lambda: None


#: The toolkits a model job can give its agent over a layer (:mod:`pi_memory.jobs.toolkits`):
#: pi-memory's ``memory`` tool and its actions, or pi-memory-auto's operations on entries
#: (write with supersedes, merge, rename) with its one-shot review.
MEMORY_TOOL: Final = "memory-tool"
ENTRY_OPERATIONS: Final = "entry-operations"


class JobNeeds(NamedTuple):
    """What the model jobs and the session start need of a layout, declared by it: the
    one seam where they meet the layout (no job asks which layout it works on)."""

    #: The toolkit the review and the dream give their agent (a key of
    #: :data:`pi_memory.jobs.toolkits.TOOLKITS`): it brings the review of a turn,
    #: the dream's staging, its tools and its prompt.
    toolkit: str
    #: Session starts count toward the reminder to dream (pi-memory's nudge).
    dream_reminder: bool


class IndexChange(NamedTuple):
    """What regenerating a layer's ``MEMORY.md`` changed, in lines."""

    added: int
    removed: int


class ToolWrite(NamedTuple):
    file: str
    #: The over-capacity warning for the agent, ``None`` while the index is within its limits.
    capacity_warning: str | None = None


class MemoryTool(Protocol):
    """The agent's ``memory`` tool on one layer (pi-memory); the engine holds the lock."""

    @property
    def entry_types(self) -> tuple[str, ...]: ...

    def add(
        self,
        name: str,
        content: str,
        description: str | None = None,
        type: str | None = None,
        now: datetime | None = None,
    ) -> ToolWrite:
        """Create the memory ``name``, or overwrite the one of exactly that name."""

    def replace(
        self,
        ref: str,
        content: str | None,
        description: str | None = None,
        type: str | None = None,
        now: datetime | None = None,
    ) -> ToolWrite:
        """Rewrite an existing memory's body, description and type."""

    def rename(self, ref: str, new_name: str, now: datetime | None = None) -> ToolWrite:
        """Give a memory a new name (the dream's action only): its file and index line
        follow, and the line keeps its place."""

    def remove_by_name(self, ref: str) -> str:
        """Delete the memory ``ref`` (file name or name); returns its file."""

    def find(self, ref: str) -> Entry | None:
        """The memory whose file name, else whose name, is exactly ``ref`` (that file
        read alone)."""

    #: Days a removed or replaced memory stays recoverable.
    keep_removed_days: int

    def kept(self) -> list[tuple[Kept, Entry | None]]:
        """Copies of what ``remove`` and ``replace`` deleted or overwrote, newest first."""

    def restore(self, ref: str) -> tuple[Entry, Kept, str]:
        """Bring back the newest kept copy of ``ref``: (memory, copy, file it is in now)."""


class LayerStore(Protocol):
    """One layer directory in one layout."""

    layer: str
    directory: Path
    #: Set by the engine; a layout with ``snapshot_on_write`` calls it before it changes
    #: files (see :data:`BeforeChange`).
    before_change: BeforeChange

    @property
    def snapshot_on_write(self) -> bool:
        """pi-memory: the engine leaves a rollback point in ``.backups/`` before each change."""

    @property
    def status_block(self) -> bool:
        """``show`` prints :meth:`status` instead of the keyword table, and a
        misconfigured store shows only that it is misconfigured."""

    @property
    def files_by_category(self) -> bool:
        """A memory goes to the category file it names (pi-memory-auto); else the layout picks."""

    @property
    def agent_tools(self) -> tuple[str, ...]:
        """The tools a store of this layout offers the agent, in the order a host lists them."""

    @property
    def jobs(self) -> JobNeeds:
        """What the model jobs need of this layout (see :class:`JobNeeds`)."""

    @property
    def default_src(self) -> str:
        """The ``src`` a memory without one is stored with (``""``: kept empty)."""

    @property
    def merge_rules(self) -> str:
        """The ``.gitattributes`` text that lets git merge two copies of this layer's
        directory without a conflict where the format allows (``sync``, a team's commits)."""

    def read(self) -> list[Entry]:
        """Every entry of the layer, superseded ones included, in file order.

        Never raises on damaged content: what cannot be read as an entry is
        left on disk untouched.
        """

    def unreadable(self) -> list[str]:
        """Where (``FILE:LINE``) the layer holds text no memory was read from, and which
        files (``FILE: REASON``) could not be read at all."""

    def read_problems(self) -> list[str]:
        """What the reads of this process left out, one line each (``""``-free)."""

    def append(self, entry: Entry) -> Entry:
        """Store a new entry; returns it as stored (with ``file`` filled in)."""

    def update(self, entries: Collection[Entry]) -> None:
        """Rewrite existing entries (matched by id) in place, every other byte kept."""

    def remove(self, ids: Collection[str]) -> None:
        """Delete entries by id (a validated merge or an explicit remove)."""

    def target_file(self, file: str | None) -> str:
        """The file a new entry asked to go to ``file`` is stored in (``""``: the layout picks).

        Raises :class:`~pi_memory.errors.EntryRejected` for a file the layer does not have.
        """

    def body_problem(self, body: str) -> str | None:
        """Why ``body`` cannot be stored and read back the same, or None."""

    def index_needs_entries(self) -> bool:
        """Whether :meth:`refresh_index` would use its entries; ``False`` lets a session
        start skip reading the layer (an index that is kept, not derived, and exists)."""

    def refresh_index(self, entries: list[Entry], recalls: Mapping[str, int]) -> None:
        """Bring the layer's ``MEMORY.md`` up to date with ``entries``."""

    def candidates(
        self, body: str, ids: Collection[str]
    ) -> tuple[list[Entry], Container[str]] | None:
        """What a write of ``body`` superseding ``ids`` must decide on, without reading the
        layer: every entry whose body may normalise the same and every entry with one of
        ``ids`` (in :meth:`read`'s order), and the ids the layer holds; ``None`` when the
        layout cannot say (the write reads the layer then)."""

    def facts(self) -> list[tuple[str, Identity | None, FileFacts]] | None:
        """Each entry file, the identity its keyword facts belong to (``None``: no such
        file) and the facts (:mod:`pi_memory.keyword_tally`), in :meth:`read`'s order;
        ``None`` when the layout's index is not a keyword table."""

    def refresh_tally(self, tally: Tally, recalls: Mapping[str, int]) -> None:
        """:meth:`refresh_index` from the tally of the entries (a layout whose :meth:`facts`
        is not ``None``)."""

    def prepare_index(
        self, entries: list[Entry] | Tally, recalls: Mapping[str, int]
    ) -> StagedChange | None:
        """:meth:`refresh_index` (or :meth:`refresh_tally`, given the tally) worked out
        and staged now, without the lock, to be put in place with it held (``None``:
        there is nothing to write)."""

    def change_token(self) -> object | None:
        """What changes whenever an entry file of the layer changes (its files'
        identities), read without the lock and compared with ``==``; ``None`` when the
        layout cannot tell cheaply, and a write then reads and decides again under the
        lock."""

    def token_files(self, token: object) -> dict[str, Identity | None] | None:
        """Each entry file's path -> identity in ``token`` (one :meth:`change_token`
        returned); ``None`` when the layout's token does not name its files' identities
        (a write then keeps the ready tallies afresh instead of moving them)."""

    def prepare_write(
        self, entries: Sequence[Entry], entry: Entry, deduped: bool, retire: Sequence[Entry]
    ) -> tuple[Entry, StagedChange] | None:
        """A write's change worked out from ``entries`` (what it decided on) and staged
        beside the files, to be put in place under the lock: ``entry`` appended (with
        ``deduped``: rewritten where it is), ``retire`` rewritten; the entry as it will
        be stored. ``None`` when the layout cannot now, and the write is made under the
        lock by :meth:`append` and :meth:`update`."""

    def hold_caching(self) -> None:
        """Keep what the next writes would record in the disk caches for :meth:`settle`,
        so that the lock is not held while they are written."""

    def settle(self) -> None:
        """Record what :meth:`hold_caching` kept (call without the lock); caching goes on
        as before."""

    def rebuild_index(self, entries: list[Entry], recalls: Mapping[str, int]) -> IndexChange:
        """Regenerate ``MEMORY.md`` from ``entries`` (``rebuild``); returns what changed."""

    def search_sources(self) -> list[tuple[Path, Callable[[], list[Entry] | None]]] | None:
        """Each file that holds entries, with how to read its entries (``None``: the file
        could not be read), in :meth:`read`'s order; ``None`` when the layout keeps no
        files a search index could follow."""

    def repair_keywords(self) -> tuple[int, int]:
        """Persist the read path's keyword repair; ``(collapsed, repaired)`` rows."""

    def injection(self, layers: Sequence[Injected], max_chars: int | None) -> str:
        """What a store of this layout injects at session start ("" when nothing is stored).

        ``layers`` are all the store's layers, this one among them.
        """

    def watermark(self) -> tuple[int, str]:
        """``(memories since the last consolidation, when that was)`` from the index."""

    def keep_backups(self, files: Collection[str]) -> None:
        """Before a consolidation rewrites ``files``: pi-memory-auto keeps a ``.bak`` of each
        (a layout that leaves rollback points on every change does nothing more)."""

    def finish_consolidation(self, entries: list[Entry], recalls: Mapping[str, int]) -> None:
        """Bring ``MEMORY.md`` up to date after a consolidation pass that changed
        something, resetting the watermark where the layout keeps one."""

    def status(
        self,
        config: Config,
        *,
        label: str,
        lock: str,
        entry_count: int,
        lock_shown: str | None = None,
    ) -> tuple[list[str], dict[str, Any]]:
        """The layer's status block and its facts as JSON (``([], {})`` without one).

        ``lock_shown`` is what the text says of the lock, when it says more than ``lock``.
        """

    def memory_tool(self) -> MemoryTool:
        """The ``memory`` tool of this layer; :class:`UsageError` for a layout without one."""


def line_change(before: str, after: str) -> IndexChange:
    """Lines of ``after`` not in ``before`` and lines of ``before`` not in ``after`` (multisets)."""
    from collections import Counter

    old = Counter(before.splitlines())
    new = Counter(after.splitlines())
    return IndexChange(sum((new - old).values()), sum((old - new).values()))
