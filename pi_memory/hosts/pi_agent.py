"""pi: what its extension (``pi_memory/hosts/pi/extension.ts``) sends and reads back.

pi has no command hooks; the extension spawns ``hook --host pi EVENT`` itself
with a Claude-Code-shaped event (``session_id``, ``transcript_path`` = the
session file, ``cwd``, ``source``) under these names, and injects stdout
verbatim at ``before_agent_start``: the answer is the plain text, never a
JSON envelope the model would read escaped.
"""

from __future__ import annotations

from typing import Final

NAME: Final = "pi"
EVENTS: Final = {
    "start": "SessionStart",
    "turn_end": "Stop",
    "pre_compact": "PreCompact",
    "post_compact": "PostCompact",
    "end": "SessionEnd",
}
CONTEXT_EVENTS: Final = ("SessionStart",)
#: pi has no limit of its own; the same cap keeps the prompt the same size as elsewhere.
MAX_CONTEXT: Final = 9_500
PROMPT_BUDGET: Final = 4.0
TRANSCRIPT: Final = "pi"
#: The answer is the context itself, as text.
PLAIN_TEXT: Final = True
