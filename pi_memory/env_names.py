"""The names of pi_memory's own environment variables, each spelled once (a leaf).

pi-memory-auto's knobs override ``memory.json`` (:mod:`pi_memory.config.env_overlay`
reads them); the two markers are set by pi_memory itself in a process it starts,
so that process does not start pi_memory's work again. (The pi extension's
``PI_MEMORY_PYTHON``, the interpreter it runs, is read by the extension alone.)
"""

from __future__ import annotations

TYPE_CHECKING = False  # a leaf every hook imports: typing costs milliseconds
if TYPE_CHECKING:
    from typing import Final

#: What every name here starts with: a hook's cached answer depends on all of them.
PREFIX: Final = "PI_MEMORY_"

#: pi-memory-auto's global directory (the categories layout's user layer), absolute.
AUTO_DIR: Final = "PI_MEMORY_AUTO_DIR"
#: Conversation turns between two automatic extraction reviews.
REVIEW_TURNS: Final = "PI_MEMORY_AUTO_REVIEW_TURNS"
#: New memories per layer that start a consolidation round.
CONSOLIDATE_EVERY: Final = "PI_MEMORY_AUTO_CONSOLIDATE_EVERY"
#: Characters per layer for the injected index.
INDEX_BUDGET: Final = "PI_MEMORY_AUTO_INDEX_BUDGET"
#: The output cap of one background model call.
LLM_MAX_TOKENS: Final = "PI_MEMORY_AUTO_LLM_MAX_TOKENS"
#: Months after which every file's memories are stale (0: the per-file defaults).
REVIEW_MONTHS: Final = "PI_MEMORY_AUTO_REVIEW_MONTHS"
#: Days a session's hook state is kept.
SESSION_DAYS: Final = "PI_MEMORY_SESSION_DAYS"

#: Set in a host CLI that pi_memory runs as a model: pi_memory's hooks do nothing in it.
MODEL_CHILD: Final = "PI_MEMORY_MODEL_CHILD"
#: Set in the background worker pi_memory starts: it starts no other worker.
WORKER: Final = "PI_MEMORY_WORKER"
