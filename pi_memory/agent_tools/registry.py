"""Every agent tool by name: what a store offers, how a host declares it, one call run.

One table for every adapter (the MCP server, ``python -m pi_memory tool`` that
the pi extension spawns), so a tool reads and behaves the same wherever the
model meets it. Which tools a store offers is its layout's to say
(``LayerStore.agent_tools``); the tools every store offers follow.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pi_memory.agent_tools import memory, memory_search, memory_write, session_search
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final


class Tool(NamedTuple):
    #: The declaration a host registers: description and ``inputSchema``.
    spec: Mapping[str, Any]
    #: The action: arguments in, ``(ok, text)`` out; may raise a reason to refuse.
    run: Callable[[Mapping[str, Any]], tuple[bool, str]]


TOOLS: Final[dict[str, Tool]] = {
    "memory_write": Tool(memory_write.SPEC, memory_write.run),
    "memory_search": Tool(memory_search.SPEC, memory_search.run),
    "memory": Tool(memory.SPEC, memory.run),
    "session_search": Tool(session_search.SPEC, session_search.run),
}

#: What an answer clipped at ``TOOL_RESULT_MAX_BYTES`` tells the model to do instead.
TOO_LONG_HINT: Final = "ask for less: a narrower query, a later page, or one memory by id"

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
    """The declarations of the tools ``names`` (MCP's ``tools/list`` shape), in that order."""
    return [{"name": name, **TOOLS[name].spec} for name in names]


def call_tool(name: str, args: Mapping[str, Any]) -> tuple[bool, str]:
    """Run one tool; every failure becomes ``(False, reason)``, never an exception.

    A model reads the text, so it is sanitised like the injected index: stored
    text must not forge a host tag or hide behind invisible characters. And it
    is at most ``TOOL_RESULT_MAX_BYTES`` long: a store holding a huge memory
    cannot flood the model's context.
    """
    from pi_memory.config.defaults import TOOL_RESULT_MAX_BYTES
    from pi_memory.inject.sanitize import sanitize_for_injection
    from pi_memory.memory_size import clipped

    ok, text = _call_tool(name, args)
    return ok, sanitize_for_injection(clipped(text, TOOL_RESULT_MAX_BYTES, TOO_LONG_HINT))


def _call_tool(name: str, args: Mapping[str, Any]) -> tuple[bool, str]:
    from pi_memory.agent_tools.arguments import ToolArgumentError
    from pi_memory.errors import PiMemoryError

    tool = TOOLS.get(name)
    if tool is None:
        return False, f"unknown tool {name!r}; tools: {', '.join(TOOLS)}"
    try:
        return tool.run(args)
    except (PiMemoryError, ToolArgumentError) as exc:
        return False, str(exc)
    except Exception as exc:
        from pi_memory.error_handler import log_exception

        path = log_exception(f"tool {name}", exc)
        return False, f"internal error: {type(exc).__name__}: {exc} (details in {path})"
