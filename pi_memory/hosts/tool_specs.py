"""The agent tools as a host declares them: name, description, JSON schema.

One table for every adapter (the MCP server, the pi extension), so a tool
reads the same wherever the model meets it. What a tool *does* lives in
:mod:`pi_memory.commands.tool`; this module only describes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from pi_memory.entry import ALL_CATEGORY_FILES
from pi_memory.hosts.registry import NAMES

_LAYER: Final = {
    "type": "string",
    "enum": ["project", "user"],
    "description": "project (default): this repository's memory; user: facts about the user "
    "that hold in every project",
}

SPECS: Final[dict[str, dict[str, Any]]] = {
    "memory_search": {
        "description": (
            "Search the persistent memory (this project's and the user's) before you guess at "
            "a convention, a command, a past decision or a known failure. Matches any query "
            "word (identifiers such as src/app.py stay whole); ten results a page, outdated "
            "ones labelled. Use mode=tag with a keyword copied from the injected index."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "words, a keyword or a memory id"},
                "mode": {
                    "type": "string",
                    "enum": ["keyword", "tag", "recent", "all", "id"],
                    "description": "keyword (default), tag (exact keyword), recent (newest), "
                    "all (recency weighted more), id (one memory)",
                },
                "page": {"type": "integer", "minimum": 1, "description": "result page, from 1"},
            },
            "additionalProperties": False,
        },
    },
    "memory_write": {
        "description": (
            "Store one durable fact for future sessions: a convention, a decision and its "
            "reason, a failure and its fix, a user preference. One self-contained sentence or "
            "two, with exactly one keyword. Writing the same text again only confirms it. When "
            "a requirement changed, pass the old memory's id in supersedes: it is retired, "
            "never deleted."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "body": {"type": "string", "description": "the memory text, self-contained"},
                "keyword": {
                    "type": "string",
                    "description": "one short keyword the memory is filed under (e.g. deploy)",
                },
                "layer": _LAYER,
                "file": {
                    "type": "string",
                    "enum": list(ALL_CATEGORY_FILES),
                    "description": "category file; user layer: USER, TOOLING, LESSONS; "
                    "project layer: CONVENTIONS, DECISIONS, FAILURES (default chosen by layer)",
                },
                "supersedes": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "ids (YYYYMMDD-xxxx) of memories this one replaces",
                },
            },
            "required": ["body", "keyword"],
            "additionalProperties": False,
        },
    },
    "memory": {
        "description": (
            "The persistent memory of this project, one Markdown file per memory. Actions: "
            "add (name, content, description, type: creates or overwrites the memory of that "
            "name), replace (rewrites an existing one by name), remove (by name), list, search "
            "(query words, anywhere in name, description or body; scope=user for the user's "
            "own layer, scope=sessions for past conversations). The description is the only "
            "thing future sessions see before opening a memory: make it one self-contained line."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["add", "replace", "remove", "list", "search"],
                },
                "name": {"type": "string", "description": "unique readable title"},
                "description": {"type": "string", "description": "one self-contained line"},
                "content": {"type": "string", "description": "the memory text"},
                "type": {
                    "type": "string",
                    "enum": ["user", "feedback", "project", "reference"],
                    "description": "feedback (default), user, project or reference",
                },
                "query": {"type": "string", "description": "what to search for"},
                "scope": {
                    "type": "string",
                    "enum": ["memory", "project", "user", "sessions"],
                    "description": "memory (default: writes go to the project layer, list and "
                    "search cover both layers), project or user (that layer only), or sessions "
                    "(search past conversations)",
                },
            },
            "required": ["action"],
            "additionalProperties": False,
        },
    },
    "session_search": {
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
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}


#: The tools every store offers, after its layout's own.
COMMON_TOOLS: Final = ("session_search",)


def configured_tools() -> tuple[str, ...]:
    """The tools the store here offers the agent; the default layout's when the config is
    unreadable (the tool call itself then reports the configuration error)."""
    import os
    from pathlib import Path

    from pi_memory.config.load import load_for
    from pi_memory.config.schema import CATEGORIES
    from pi_memory.entry import PROJECT
    from pi_memory.layouts import open_layer

    cwd = Path(os.getcwd())
    try:
        layout = load_for(cwd, os.environ).config.layout
    except Exception:
        layout = CATEGORIES
    return (*open_layer(layout, PROJECT, cwd).agent_tools, *COMMON_TOOLS)


def offered_tools() -> list[dict[str, Any]]:
    """The tools of the layout configured for the current directory."""
    return tools_for(configured_tools())


def tools_for(names: Sequence[str]) -> list[dict[str, Any]]:
    """The declarations of the tools ``names`` (MCP's ``tools/list`` shape), in that order.

    Which tools a store offers is its layout's to say (``LayerStore.agent_tools``).
    """
    return [{"name": name, **SPECS[name]} for name in names]
