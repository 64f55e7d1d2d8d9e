"""What runs outside the conversation: background jobs, their records and worker, session state.

The model-driven jobs (extraction, handoff, consolidation, keyword rebuild,
dream) each read the store, ask the model, validate the reply against what
exists, and only then write under the store's lock. A job is a function (hooks
and the background worker call it) and a command (a person runs it).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: The model task each job runs as (``memory.json``: the task's ``model``, else ``defaults.model``).
EXTRACT_TASK: Final = "extractMemories"
DREAM_TASK: Final = "dream"
CONSOLIDATE_TASK: Final = "consolidate"
