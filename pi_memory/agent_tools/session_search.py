"""``session_search``: past conversations of every agent here that mention something."""

from __future__ import annotations

from collections.abc import Mapping

from pi_memory.agent_tools.arguments import ToolArgumentError, text, whole_number
from pi_memory.hosts.registry import NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

#: The most matches one call may ask for.
MAX_LIMIT: Final = 50

SPEC: Final[dict[str, Any]] = {
    "description": (
        "Find past conversations (Claude Code, Codex, Gemini CLI, pi) that mention "
        "something: newest first, each with its session id, date, project and a snippet "
        "around the match. Use it to recall what was tried or decided in an earlier session."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "words to find"},
            "host": {
                "type": "string",
                "enum": list(NAMES),
                "description": "only this agent's sessions",
            },
            "project": {
                "type": "string",
                "description": "only sessions whose directory contains this text",
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}


def run(args: Mapping[str, Any]) -> tuple[bool, str]:
    """Past conversations of every agent here; at most ``sessionSearch.maxMatches`` of them."""
    import os
    from pathlib import Path

    from pi_memory.config.load import load_for
    from pi_memory.transcripts.session_search import render_sessions, search_sessions

    query = text(args, "query", required=True)
    if not query.strip():
        raise ToolArgumentError('"query" must hold the words to find')
    host = text(args, "host")
    if host and host not in NAMES:
        raise ToolArgumentError(f'"host" is one of {", ".join(NAMES)}')
    limit = args.get("limit")
    if limit is None:
        limit = load_for(Path(os.getcwd()), os.environ).config.session_search.max_matches
    else:
        limit = whole_number(limit, "limit", 1, MAX_LIMIT)
    result = search_sessions(
        query, hosts=(host,) if host else NAMES, project=text(args, "project"), limit=limit
    )
    return True, render_sessions(result)
