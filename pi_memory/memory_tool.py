"""The agent's ``memory`` tool (seed 004): add, replace, remove, list, search.

The layout that has it does the work (:meth:`LayerStore.memory_tool`); this
module checks the arguments and runs each write under the store's lock, so
the engine's rollback point comes first.

The agent sends one JSON object of arguments and reads one text back. Every
failure — a missing or mistyped argument, an unknown name, a held lock — comes
back as ``ok=False`` with a sentence the agent can act on, never as an
exception, so a tool host can pass the result straight through.

``rename`` and ``rebuild_index`` belong to the consolidation agent alone and
are not accepted here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Final

from pi_memory.errors import PiMemoryError
from pi_memory.layouts.carry import ENTRY_TYPES
from pi_memory.text import js_trim

if TYPE_CHECKING:
    from pi_memory.layouts.protocol import MemoryTool
    from pi_memory.store import Store

ACTIONS: Final = ("add", "replace", "remove", "list", "search")
SCOPES: Final = ("memory", "sessions")
PARAMETERS: Final = ("action", "name", "description", "content", "type", "query", "scope")
SESSIONS_UNAVAILABLE: Final = "session search is not available in this host"


@dataclass(frozen=True)
class ToolResult:
    ok: bool
    text: str


class _BadArguments(Exception):
    """Arguments the tool cannot run with; the message is what the agent reads."""


@dataclass(frozen=True)
class _Call:
    action: str
    name: str | None = None
    description: str | None = None
    content: str | None = None
    type: str | None = None
    query: str | None = None
    scope: str | None = None


def run_memory_tool(
    store: Store, layer: str, args: Mapping[str, object], now: datetime
) -> ToolResult:
    """Run one ``memory`` call against ``layer`` of ``store``; ``now`` stamps what it writes."""
    try:
        tool = store.layer(layer).memory_tool()
        call = parse_arguments(args)
        return ToolResult(True, _run(store, layer, tool, call, now))
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


def _run(store: Store, layer: str, tool: MemoryTool, call: _Call, now: datetime) -> str:
    if call.action == "add":
        name = _required(call.name, "name", "add")
        content = _required(call.content, "content", "add", blank_ok=True)
        with store.lock(layer, "add"):
            result = tool.add(name, content, call.description, call.type, now)
        return _with_warning(f'Saved "{js_trim(name)}" ({result.file}).', result.capacity_warning)
    if call.action == "replace":
        name = _required(call.name, "name", "replace")
        if call.content is None and call.description is None and call.type is None:
            raise _BadArguments("replace needs content, description or type")
        with store.lock(layer, "replace"):
            result = tool.replace(name, call.content, call.description, call.type, now)
        return _with_warning(
            f'Replaced "{js_trim(name)}" ({result.file}).', result.capacity_warning
        )
    if call.action == "remove":
        name = _required(call.name, "name", "remove")
        with store.lock(layer, "remove"):
            tool.remove_by_name(name)
        return f'Removed "{js_trim(name)}".'
    if call.action == "list":
        return tool.list_text()
    query = _required(call.query, "query", "search")
    if call.scope == "sessions":
        raise _BadArguments(SESSIONS_UNAVAILABLE)
    return tool.search_text(query)


def _with_warning(text: str, warning: str | None) -> str:
    # Over capacity the write has succeeded; the warning tells the agent to shrink the index.
    return text if warning is None else f"{text}\n\n{warning}"
