"""Adapters for the agents: hook dispatch, output shapes, the MCP server, installers.

The package names the hosts and the lifecycle moments their events are, so the
hook's entry point can recognise an event before it imports anything else.
"""

from __future__ import annotations

from types import ModuleType
from typing import Final

#: Every handled event name (canonical form) → the lifecycle moment it is.
MOMENTS: Final = {
    "sessionstart": "start",
    "userpromptsubmit": "prompt",
    "beforeagent": "prompt",
    "stop": "turn_end",
    "afteragent": "turn_end",
    "precompact": "pre_compact",
    "precompress": "pre_compact",
    "postcompact": "post_compact",
    "sessionend": "end",
}
HOSTS: Final = ("claude-code", "codex", "gemini", "pi")


def canonical(word: str) -> str:
    """``SessionStart``, ``session_start`` and ``session-start`` are one event."""
    return word.lower().replace("-", "").replace("_", "")


def host_module(host: str) -> ModuleType:
    """The module of ``host``'s spellings and output shapes (Claude Code's by default)."""
    if host == "codex":
        from pi_memory.hosts import codex

        return codex
    if host == "gemini":
        from pi_memory.hosts import gemini

        return gemini
    if host == "pi":
        from pi_memory.hosts import pi_agent

        return pi_agent
    from pi_memory.hosts import claude_code

    return claude_code
