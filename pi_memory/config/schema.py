"""The settings records: what ``memory.json`` and the environment can set, and their names.

One frozen :class:`Config` per process, built by :mod:`pi_memory.config.parse`
from the files :mod:`pi_memory.config.load` reads; the defaults themselves live
in :mod:`pi_memory.config.defaults`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pi_memory.config import defaults as d
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

CATEGORIES: Final = "categories"
FILES: Final = "files"
LAYOUTS: Final = (CATEGORIES, FILES)
#: ``extractMemories.approval``: write what the review proposes, or stage it in the inbox.
APPROVE_AUTO: Final = "auto"
APPROVE_INBOX: Final = "inbox"
APPROVALS: Final = (APPROVE_AUTO, APPROVE_INBOX)
#: ``worktrees``: every worktree of a repository reads the others' project layers
#: (``shared``), or each keeps to its own (``separate``).
SHARED: Final = "shared"
SEPARATE: Final = "separate"
WORKTREE_MODES: Final = (SHARED, SEPARATE)
THINK_LEVELS: Final = ("off", "minimal", "low", "medium", "high", "xhigh")
APIS: Final = ("openai", "anthropic", "claude-cli", "codex-cli", "gemini-cli")
#: The providers that run a host's own CLI instead of speaking HTTP (no ``baseUrl``).
CLI_APIS: Final = ("claude-cli", "codex-cli", "gemini-cli")
#: The ``notice`` setting's values (their meaning: :mod:`pi_memory.receipts`).
NOTICES: Final = ("off", "learned", "all")
#: The model-driven tasks, in the order their errors are reported.
TASKS: Final = ("dream", "extractMemories", "autoSurfacing")

#: The keys of memory.json that hold objects.
SECTIONS: Final = (
    "lock",
    "defaults",
    "dream",
    "sessionSearch",
    "autoSurfacing",
    "extractMemories",
    "providers",
    "redactPatterns",
)


class SessionPersistence(NamedTuple):
    enabled: bool = False
    #: Absolute directory for headless sessions; ``None`` = ``<project memory dir>/sessions/``.
    session_dir: str | None = None


class LockConfig(NamedTuple):
    #: How long a write waits for the in-process lock and for ``.lock``.
    timeout_ms: int = d.LOCK_TIMEOUT_MS
    #: Snapshots kept under ``.backups/`` (``migrate-*`` never pruned).
    snapshot_keep: int = d.SNAPSHOT_KEEP


class DefaultsConfig(NamedTuple):
    model: str | None = None
    session_persistence: SessionPersistence = SessionPersistence()


class DreamConfig(NamedTuple):
    nudge_after_sessions: int = d.DREAM_NUDGE_AFTER_SESSIONS
    nudge_after_hours: float = d.DREAM_NUDGE_AFTER_HOURS
    think_level: str = d.DREAM_THINK_LEVEL
    model: str | None = None
    #: ``None`` inherits ``defaults.sessionPersistence``.
    session_persistence: SessionPersistence | None = None


class SessionSearchConfig(NamedTuple):
    max_sessions: int = d.SESSION_SEARCH_MAX_SESSIONS
    max_matches: int = d.SESSION_SEARCH_MAX_MATCHES


class AutoSurfacingConfig(NamedTuple):
    enabled: bool = d.SURFACING_ENABLED
    think_level: str = d.SURFACING_THINK_LEVEL
    max_files: int = d.SURFACING_MAX_FILES
    max_entry_bytes: int = d.SURFACING_MAX_ENTRY_BYTES
    max_injection_bytes: int = d.SURFACING_MAX_INJECTION_BYTES
    timeout_ms: int = d.SURFACING_TIMEOUT_MS
    model: str | None = None
    session_persistence: SessionPersistence | None = None


class ExtractMemoriesConfig(NamedTuple):
    enabled: bool = d.EXTRACT_ENABLED
    think_level: str = d.EXTRACT_THINK_LEVEL
    max_context_tokens: int = d.EXTRACT_MAX_CONTEXT_TOKENS
    max_tool_result_chars: int = d.EXTRACT_MAX_TOOL_RESULT_CHARS
    max_assistant_chars: int = d.EXTRACT_MAX_ASSISTANT_CHARS
    #: ``auto`` or ``inbox`` (see :data:`APPROVALS`).
    approval: str = d.EXTRACT_APPROVAL
    model: str | None = None
    session_persistence: SessionPersistence | None = None


class Provider(NamedTuple):
    """Where a ``provider/…`` model is served: base URL, wire format, API-key variable."""

    base_url: str
    #: ``openai`` (Chat Completions), ``anthropic`` (Messages), or a host CLI (``claude-cli``…).
    api: str = "openai"
    #: Environment variable holding the key; ``""`` for a server that needs none.
    api_key_env: str = ""
    #: ``http://`` to a host other than loopback is refused unless this is set.
    allow_insecure_http: bool = False
    #: Retries after a 429, a 5xx or a connection error (the first attempt not counted).
    max_retries: int = d.PROVIDER_MAX_RETRIES
    #: The first pause between attempts; it doubles each time, ``Retry-After`` wins.
    retry_backoff_ms: int = d.PROVIDER_RETRY_BACKOFF_MS
    #: The executable of a CLI provider (default: ``claude``, ``codex``, ``gemini`` on PATH).
    command: str = ""


class Config(NamedTuple):
    #: Root of the ``files`` layout's directories (absolute).
    memory_dir: str
    #: pi-memory-auto's global directory, ``PI_MEMORY_AUTO_DIR`` (absolute).
    auto_dir: str
    layout: str = CATEGORIES
    mem_index_max_lines: int = d.MEM_INDEX_MAX_LINES
    mem_index_max_bytes: int = d.MEM_INDEX_MAX_BYTES
    mem_index_inject_max_lines: int = d.MEM_INDEX_INJECT_MAX_LINES
    mem_index_inject_max_bytes: int = d.MEM_INDEX_INJECT_MAX_BYTES
    lock: LockConfig = LockConfig()
    defaults: DefaultsConfig = DefaultsConfig()
    dream: DreamConfig = DreamConfig()
    session_search: SessionSearchConfig = SessionSearchConfig()
    auto_surfacing: AutoSurfacingConfig = AutoSurfacingConfig()
    extract_memories: ExtractMemoriesConfig = ExtractMemoriesConfig()
    providers: Mapping[str, Provider] = MappingProxyType({})
    #: Project roots whose ``.pi/memory.json`` is read (user file only), as written.
    trusted_projects: tuple[str, ...] = ()
    review_turns: int = d.REVIEW_TURNS
    consolidate_every: int = d.CONSOLIDATE_EVERY
    index_budget: int = d.INDEX_BUDGET
    llm_max_tokens: int = d.LLM_MAX_TOKENS
    review_months: int = d.REVIEW_MONTHS
    #: Whether ``memory.json`` speaks of the model tasks at all (a model anywhere, or a
    #: ``dream`` / ``extractMemories`` / ``autoSurfacing`` key, even ``null``).
    models_configured: bool = False
    #: Days a session's hook state (injected index, review gate, surfaced set) is kept.
    session_days: int = d.SESSION_DAYS
    #: Tokens (in + out) background model jobs may spend per day; 0 = no cap.
    daily_token_cap: int = d.DAILY_TOKEN_CAP
    #: Seconds one background job may run (0: each job's own deadline); past it, its
    #: worker ends and a later one takes its jobs over.
    job_seconds: int = d.JOB_SECONDS
    #: What the hooks tell the user (``off`` | ``learned`` | ``all``; :mod:`pi_memory.receipts`).
    notice: str = d.NOTICE
    #: Extra secret patterns from ``redactPatterns``: placeholder label → regular expression.
    redact_patterns: Mapping[str, str] = MappingProxyType({})
    #: Days the files layout keeps what the memory tool removed or replaced.
    keep_removed_days: int = d.KEEP_REMOVED_DAYS
    #: The largest memory body a write accepts, in UTF-8 bytes.
    memory_max_bytes: int = d.MEMORY_MAX_BYTES
    #: ``shared``: a project layer kept in the repository also reads the project layers
    #: of the repository's other worktrees; ``separate``: each worktree only its own.
    worktrees: str = SHARED


class LoadedConfig(NamedTuple):
    config: Config
    #: Values that could not be used (broken JSON, wrong types): the store is misconfigured.
    errors: tuple[str, ...] = ()
    #: Values that were clamped or files that were skipped; informative only.
    warnings: tuple[str, ...] = ()
    #: The files that were merged, in order.
    sources: tuple[str, ...] = ()

    @property
    def problems(self) -> tuple[str, ...]:
        return self.errors + self.warnings
