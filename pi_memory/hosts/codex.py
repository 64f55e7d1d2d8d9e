"""Codex CLI: its hook event names and output rules.

The events and stdin mirror Claude Code's (plus ``model`` and ``turn_id``),
with ``PostCompact`` besides. Codex validates a hook's JSON answer against a
schema per event that forbids unknown keys, so an answer holds only
``hookSpecificOutput`` (``hookEventName``, ``additionalContext``) and
``systemMessage``. Context past 2,500 tokens (of four bytes) spills to a file. The
context arrives as a ``developer`` message and stays in the session's history:
``codex exec resume`` replays it, so a resumed session is not answered again.
"""

from __future__ import annotations

from typing import Final

NAME: Final = "codex"
EVENTS: Final = {
    "start": "SessionStart",
    "prompt": "UserPromptSubmit",
    "turn_end": "Stop",
    "pre_compact": "PreCompact",
    "post_compact": "PostCompact",
    "end": "SessionEnd",
}
CONTEXT_EVENTS: Final = ("SessionStart", "UserPromptSubmit")
#: About 2,500 tokens of four characters.
MAX_CONTEXT: Final = 9_500
#: Codex counts that context in tokens of four UTF-8 bytes and cuts it past 2,500 to a head
#: and a tail (0.171.0: 9,410 bytes arrived whole, 10,100 did not): a cap in bytes too, or
#: an index in Chinese, three bytes a character, loses its middle.
MAX_CONTEXT_BYTES: Final = 9_500
PROMPT_BUDGET: Final = 4.0
TRANSCRIPT: Final = "codex"
#: Codex 0.171.0 runs a hook only once the user trusted it; ``codex exec`` skips it silently.
INSTALL_NOTE: Final = (
    "codex: start codex once and trust the hooks (it says: hooks need review);"
    " codex exec skips them until then"
)
#: Seconds Codex gives a hook at most: it clamps a longer SessionEnd timeout, with a warning.
HOOK_TIMEOUT_CAPS: Final = {"SessionEnd": 3}
#: A resumed session's replayed history already holds what session start injected.
RESUME_REPLAYS_CONTEXT: Final = True
