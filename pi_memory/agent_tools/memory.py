"""The agent's ``memory`` tool (pi-memory): add, replace, remove, list, search.

The layout that has it does the work (:meth:`LayerStore.memory_tool`); this
module declares the tool, checks the arguments and runs each write under the
store's lock, so the engine's rollback point comes first.

The agent sends one JSON object of arguments and reads one text back. Every
failure — a missing or mistyped argument, an unknown name, a held lock — comes
back as ``ok=False`` with a sentence the agent can act on, never as an
exception, so a tool host can pass the result straight through.

``rename`` and ``rebuild_index`` belong to the consolidation agent alone and
are not accepted here.

``scope`` picks the layer: ``memory`` (the default) writes to the project
layer and lists and searches both, ``project`` or ``user`` name one layer,
``sessions`` searches past conversations. ``search`` matches the query's
words wherever they are in a memory's name, description or body (the
engine's ranking: more of the query first, then newer), not one exact
phrase. Superseded memories come last in ``list`` and ``search``, labelled
with what replaced them; a user-layer memory is labelled as such.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from pi_memory.errors import PiMemoryError
from pi_memory.layouts.carry import ENTRY_TYPES
from pi_memory.named_tuple import NamedTuple
from pi_memory.text import js_trim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.entry import Entry
    from pi_memory.store import Store

ACTIONS: Final = ("add", "replace", "remove", "list", "search")
MEMORY: Final = "memory"
PROJECT_SCOPE: Final = "project"
USER_SCOPE: Final = "user"
SESSIONS: Final = "sessions"
SCOPES: Final = (MEMORY, PROJECT_SCOPE, USER_SCOPE, SESSIONS)
PARAMETERS: Final = ("action", "name", "description", "content", "type", "query", "scope")
SESSIONS_UNAVAILABLE: Final = "session search is not available in this host"

SPEC: Final[dict[str, Any]] = {
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
            "action": {"type": "string", "enum": list(ACTIONS)},
            "name": {"type": "string", "description": "unique readable title"},
            "description": {"type": "string", "description": "one self-contained line"},
            "content": {"type": "string", "description": "the memory text"},
            "type": {
                "type": "string",
                "enum": list(ENTRY_TYPES),
                "description": "feedback (default), user, project or reference",
            },
            "query": {"type": "string", "description": "what to search for"},
            "scope": {
                "type": "string",
                "enum": list(SCOPES),
                "description": "memory (default: writes go to the project layer, list and "
                "search cover both layers), project or user (that layer only), or sessions "
                "(search past conversations)",
            },
        },
        "required": ["action"],
        "additionalProperties": False,
    },
}


class ToolResult(NamedTuple):
    # A named tuple, not a dataclass: dataclasses imports inspect, paid by every start
    # of the MCP server before it can answer tools/list.
    ok: bool
    text: str


class _BadArguments(Exception):
    """Arguments the tool cannot run with; the message is what the agent reads."""


class _Call(NamedTuple):
    action: str
    name: str | None = None
    description: str | None = None
    content: str | None = None
    type: str | None = None
    query: str | None = None
    scope: str | None = None


def run(args: Mapping[str, Any]) -> tuple[bool, str]:
    """One call from a host: on the store here, its text fields redacted first."""
    import os

    from pi_memory.agent_tools.arguments import text
    from pi_memory.config.messages import tool_unavailable_message
    from pi_memory.entry import PROJECT
    from pi_memory.open_store import SHOW_COMMAND, misconfiguration, open_store
    from pi_memory.store import parse_layer

    config, store, _, _ = open_store()
    store.layer(PROJECT).memory_tool()  # a layout without the tool says so before anything else
    errors = misconfiguration(config, store, os.environ)
    if errors:
        return False, tool_unavailable_message(errors, SHOW_COMMAND)
    if args.get("action") == "search" and args.get("scope") == SESSIONS:
        from pi_memory.agent_tools import session_search

        return session_search.run({"query": args.get("query")})
    layer = parse_layer(text(args, "layer", default=PROJECT))
    clean = {
        key: store.redact(value)
        if key in ("content", "description") and isinstance(value, str)
        else value
        for key, value in args.items()
        if key != "layer"  # chosen above; the tool itself knows one layer
    }
    result = run_memory_tool(store, layer, clean, datetime.now())
    return result.ok, result.text


def run_memory_tool(
    store: Store, layer: str, args: Mapping[str, object], now: datetime
) -> ToolResult:
    """Run one ``memory`` call on ``store``; ``now`` stamps what it writes.

    Writes go to ``layer`` unless ``scope`` is ``user``.
    """
    try:
        store.layer(layer).memory_tool()  # a layout without the tool says so first
        call = parse_arguments(args)
        return ToolResult(True, _run(store, layer, call, now))
    except _BadArguments as err:
        return ToolResult(False, str(err))
    except PiMemoryError as err:
        return ToolResult(False, str(err))
    except OSError as err:
        return ToolResult(False, f"memory {_action_of(args)} failed: {err}")


def _action_of(args: object) -> str:
    action = args.get("action") if isinstance(args, Mapping) else None
    return action if isinstance(action, str) else "call"


def parse_arguments(args: object) -> _Call:
    """Check every argument's presence and type; JSON ``null`` counts as absent."""
    if not isinstance(args, Mapping):
        raise _BadArguments("memory arguments must be a JSON object")
    unknown = sorted(str(key) for key in args if key not in PARAMETERS)
    if unknown:
        raise _BadArguments(
            f"unknown argument {unknown[0]!r} for memory (expected: {', '.join(PARAMETERS)})"
        )
    values: dict[str, str | None] = {}
    for key in PARAMETERS:
        value = args.get(key)
        if value is not None and not isinstance(value, str):
            raise _BadArguments(f"{key} must be a string, not {_json_type(value)}")
        values[key] = value
    action = values.pop("action")
    if action is None:
        raise _BadArguments(f"action is required (one of {', '.join(ACTIONS)})")
    if action not in ACTIONS:
        raise _BadArguments(f"Unknown action: {action}")
    kind = values["type"]
    if kind is not None and kind not in ENTRY_TYPES:
        raise _BadArguments(f"type must be one of {', '.join(ENTRY_TYPES)}")
    scope = values["scope"]
    if scope is not None and scope not in SCOPES:
        raise _BadArguments(f"scope must be one of {', '.join(SCOPES)}")
    return _Call(action=action, **values)


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return type(value).__name__


def _required(value: str | None, what: str, action: str, *, blank_ok: bool = False) -> str:
    if value is None or not (value if blank_ok else js_trim(value)):
        raise _BadArguments(f"{what} is required for {action}")
    return value


def _target(layer: str, call: _Call) -> str:
    """The one layer a write goes to."""
    if call.scope == SESSIONS:
        raise _BadArguments(f"scope sessions is for search; {call.action} takes memory or user")
    return USER_SCOPE if call.scope == USER_SCOPE else layer


def _read(store: Store, layer: str, scope: str | None) -> list[Entry]:
    """What a list or search covers: ``layer``'s memories, then the user layer's."""
    from pi_memory.entry import USER

    if scope == SESSIONS:
        raise _BadArguments("scope sessions is for search; list takes memory, project or user")
    layers = [layer, *([USER] if layer != USER else [])]
    if scope == PROJECT_SCOPE:
        layers = [layer]
    elif scope == USER_SCOPE:
        layers = [USER]
    return [entry for name in layers for entry in store.layer(name).read()]


def _run(store: Store, layer: str, call: _Call, now: datetime) -> str:
    if call.action == "add":
        name = _required(call.name, "name", "add")
        content = _required(call.content, "content", "add", blank_ok=True)
        target = _target(layer, call)
        with store.lock(target, "add"):
            tool = store.layer(target).memory_tool()
            result = tool.add(name, content, call.description, call.type, now)
        _anchor(store, target, result.file, now)
        return _with_warning(f'Saved "{js_trim(name)}" ({result.file}).', result.capacity_warning)
    if call.action == "replace":
        name = _required(call.name, "name", "replace")
        if call.content is None and call.description is None and call.type is None:
            raise _BadArguments("replace needs content, description or type")
        target = _target(layer, call)
        with store.lock(target, "replace"):
            tool = store.layer(target).memory_tool()
            result = tool.replace(name, call.content, call.description, call.type, now)
        _anchor(store, target, result.file, now)
        return _with_warning(
            f'Replaced "{js_trim(name)}" ({result.file}).', result.capacity_warning
        )
    if call.action == "remove":
        name = _required(call.name, "name", "remove")
        target = _target(layer, call)
        with store.lock(target, "remove"):
            store.layer(target).memory_tool().remove_by_name(name)
        return f'Removed "{js_trim(name)}".'
    if call.action == "list":
        from pi_memory.memory_listing import list_text

        return list_text(_read(store, layer, call.scope))
    query = _required(call.query, "query", "search")
    if call.scope == SESSIONS:
        raise _BadArguments(SESSIONS_UNAVAILABLE)
    from pi_memory.memory_listing import search_text

    return search_text(_read(store, layer, call.scope), query, now, store.settings.max_body_bytes)


def _anchor(store: Store, layer: str, file: str, now: datetime) -> None:
    """Anchor the project memory just written to the code it mentions (see
    :mod:`pi_memory.anchors`); the memory is stored whatever happens here."""
    from pi_memory.entry import PROJECT

    if layer != PROJECT:
        return
    try:
        # That one file, read through the layer's catalog: not every memory, twice.
        written = store.layer(layer).memory_tool().find(file)
        if written is not None and written.file == file:
            store.anchor(written.id, now, entry=written)
    except (OSError, PiMemoryError):
        pass


def _with_warning(text: str, warning: str | None) -> str:
    # Over capacity the write has succeeded; the warning tells the agent to shrink the index.
    return text if warning is None else f"{text}\n\n{warning}"
