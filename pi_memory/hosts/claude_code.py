"""Claude Code: its hook event names and what it reads back from a hook.

Hooks are configured in ``settings.json``; every event sends ``session_id``,
``transcript_path``, ``cwd`` and ``hook_event_name`` on stdin. SessionStart
and UserPromptSubmit may answer ``hookSpecificOutput.additionalContext``
(whose ``hookEventName`` must equal the event, or the answer is rejected);
``systemMessage`` is shown to the user. Context past about 10,000 characters
is replaced by a preview, so ours stays below :data:`MAX_CONTEXT`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from pi_memory.hosts.host import ConfigDir, Host

if TYPE_CHECKING:
    from pi_memory.transcripts import Reader


def transcript() -> Reader:
    from pi_memory.transcripts.claude_code import READER

    return READER


HOST: Final = Host(
    name="claude-code",
    title="Claude Code",
    events={
        "start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "turn_end": "Stop",
        "pre_compact": "PreCompact",
        "end": "SessionEnd",
    },
    context_events=("SessionStart", "UserPromptSubmit"),
    max_context=9_500,
    # Every second the surfacing side-query spends comes before each answer (the hook
    # timeout is 600 s by default).
    prompt_budget=4.0,
    config_dir=ConfigDir("CLAUDE_CONFIG_DIR", (".claude",)),
    sessions=("projects/*/*.jsonl",),
    transcript=transcript,
    model_cli="claude",
)
