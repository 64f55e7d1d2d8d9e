"""Adapters for the agents: hook dispatch, output shapes, the MCP server, installers.

The package names the lifecycle moments the hosts' events are, so the hook's
entry point can recognise an event before it imports anything else; the hosts
themselves are in :mod:`pi_memory.hosts.registry`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs a hook's start-up milliseconds
if TYPE_CHECKING:
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


def canonical(word: str) -> str:
    """``SessionStart``, ``session_start`` and ``session-start`` are one event."""
    return word.lower().replace("-", "").replace("_", "")
