"""Every configuration default, each stated once (pi-memory's table plus pi-memory-auto's knobs).

A leaf (it imports only ``typing``), so the lock, the layouts and the engine take their
defaults from here without loading the configuration reader.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Final

MEMORY_DIR: Final = "~/.pi/memory"
AUTO_DIR: Final = "~/.pi/agent/memory-auto"
MEM_INDEX_MAX_LINES: Final = 200
MEM_INDEX_MAX_BYTES: Final = 25600
MEM_INDEX_INJECT_MAX_LINES: Final = 50
MEM_INDEX_INJECT_MAX_BYTES: Final = 16384
#: How long a write waits for the in-process lock and for ``.lock``.
LOCK_TIMEOUT_MS: Final = 5000
#: Snapshots kept under ``.backups/`` (``migrate-*`` never pruned).
SNAPSHOT_KEEP: Final = 5
#: Days the files layout keeps what the memory tool removed or replaced (``.removed/``).
KEEP_REMOVED_DAYS: Final = 30
#: The largest memory body a write accepts, in UTF-8 bytes (``memoryMaxBytes``), and the
#: smallest limit the setting may ask for.
MEMORY_MAX_BYTES: Final = 4096
MEMORY_MAX_BYTES_LOW: Final = 256
#: The most text one agent tool call hands back to the model, in UTF-8 bytes.
TOOL_RESULT_MAX_BYTES: Final = 16384

DREAM_NUDGE_AFTER_SESSIONS: Final = 5
DREAM_NUDGE_AFTER_HOURS: Final = 24
DREAM_THINK_LEVEL: Final = "high"
SESSION_SEARCH_MAX_SESSIONS: Final = 10
SESSION_SEARCH_MAX_MATCHES: Final = 5
SURFACING_ENABLED: Final = True
SURFACING_THINK_LEVEL: Final = "off"
SURFACING_MAX_FILES: Final = 3
SURFACING_MAX_ENTRY_BYTES: Final = 3072
SURFACING_MAX_INJECTION_BYTES: Final = 10240
#: How long a prompt waits for the surfacing side-query before the scorer answers
#: (``autoSurfacing.timeoutMs``, pi_memory's own: not in pi-memory's defaults below).
SURFACING_TIMEOUT_MS: Final = 4000
#: At most: the hooks are installed with a 30 s timeout, and start-up comes first.
SURFACING_TIMEOUT_MS_MAX: Final = 20000
EXTRACT_ENABLED: Final = False
EXTRACT_THINK_LEVEL: Final = "high"
EXTRACT_MAX_CONTEXT_TOKENS: Final = 2000
EXTRACT_MAX_TOOL_RESULT_CHARS: Final = 500
EXTRACT_MAX_ASSISTANT_CHARS: Final = 2000
#: What the background review proposes is written at once (``auto``) or waits in the
#: inbox for a person (``inbox``).
EXTRACT_APPROVAL: Final = "auto"

#: pi-memory-auto's knobs (also ``PI_MEMORY_AUTO_*`` variables).
REVIEW_TURNS: Final = 10
CONSOLIDATE_EVERY: Final = 20
INDEX_BUDGET: Final = 3000
LLM_MAX_TOKENS: Final = 10000
REVIEW_MONTHS: Final = 0
#: Days a session's hook state is kept (``PI_MEMORY_SESSION_DAYS``).
SESSION_DAYS: Final = 14
#: Tokens a day that background jobs may spend before they stop until tomorrow.
DAILY_TOKEN_CAP: Final = 2_000_000
#: What a hook tells the user in the host's own line (never the model's context):
#: ``off``, ``learned`` (what background jobs learned) or ``all`` (also what went into prompts).
NOTICE: Final = "learned"
#: Seconds one background job may run, its model calls included (0: each job's own
#: deadline, 120 s for a review, 180 s for a consolidation).
JOB_SECONDS: Final = 0
#: A provider's retries after a 429, a 5xx or a connection error, and the first pause.
PROVIDER_MAX_RETRIES: Final = 3
PROVIDER_RETRY_BACKOFF_MS: Final = 1000

#: pi-memory's configuration with its defaults, in pi-memory's JSON shape.
#: There is deliberately no model anywhere: models must be configured explicitly.
DEFAULT_CONFIG: Final[Mapping[str, Any]] = {
    "memoryDir": MEMORY_DIR,
    "memIndexMaxLines": MEM_INDEX_MAX_LINES,
    "memIndexMaxBytes": MEM_INDEX_MAX_BYTES,
    "memIndexInjectMaxLines": MEM_INDEX_INJECT_MAX_LINES,
    "memIndexInjectMaxBytes": MEM_INDEX_INJECT_MAX_BYTES,
    "lock": {"timeoutMs": LOCK_TIMEOUT_MS, "snapshotKeep": SNAPSHOT_KEEP},
    "defaults": {"sessionPersistence": {"enabled": False}},
    "dream": {
        "nudgeAfterSessions": DREAM_NUDGE_AFTER_SESSIONS,
        "nudgeAfterHours": DREAM_NUDGE_AFTER_HOURS,
        "thinkLevel": DREAM_THINK_LEVEL,
    },
    "sessionSearch": {
        "maxSessions": SESSION_SEARCH_MAX_SESSIONS,
        "maxMatches": SESSION_SEARCH_MAX_MATCHES,
    },
    "autoSurfacing": {
        "enabled": SURFACING_ENABLED,
        "thinkLevel": SURFACING_THINK_LEVEL,
        "maxFiles": SURFACING_MAX_FILES,
        "maxEntryBytes": SURFACING_MAX_ENTRY_BYTES,
        "maxInjectionBytes": SURFACING_MAX_INJECTION_BYTES,
    },
    "extractMemories": {
        "enabled": EXTRACT_ENABLED,
        "thinkLevel": EXTRACT_THINK_LEVEL,
        "maxContextTokens": EXTRACT_MAX_CONTEXT_TOKENS,
        "maxToolResultChars": EXTRACT_MAX_TOOL_RESULT_CHARS,
        "maxAssistantChars": EXTRACT_MAX_ASSISTANT_CHARS,
    },
}
