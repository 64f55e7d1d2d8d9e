"""Claude Code: its hook event names and what it reads back from a hook.

Hooks are configured in ``settings.json``; every event sends ``session_id``,
``transcript_path``, ``cwd`` and ``hook_event_name`` on stdin. SessionStart
and UserPromptSubmit may answer ``hookSpecificOutput.additionalContext``
(whose ``hookEventName`` must equal the event, or the answer is rejected);
``systemMessage`` is shown to the user. Context past about 10,000 characters
is replaced by a preview, so ours stays below :data:`MAX_CONTEXT`.
"""

from __future__ import annotations

from typing import Final

NAME: Final = "claude-code"
#: Lifecycle moment → the event that carries it.
EVENTS: Final = {
    "start": "SessionStart",
    "prompt": "UserPromptSubmit",
    "turn_end": "Stop",
    "pre_compact": "PreCompact",
    "end": "SessionEnd",
}
#: Events whose answer may carry ``additionalContext``.
CONTEXT_EVENTS: Final = ("SessionStart", "UserPromptSubmit")
MAX_CONTEXT: Final = 9_500
#: Seconds a prompt hook may spend on the surfacing side-query (the default hook
#: timeout is 600 s, but every second here is a second before each answer).
PROMPT_BUDGET: Final = 4.0
#: The transcript format of ``transcript_path``.
TRANSCRIPT: Final = "claude-code"
