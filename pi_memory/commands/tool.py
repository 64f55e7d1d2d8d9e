"""``tool <name>``: an agent tool call. JSON arguments on stdin, one JSON result on stdout.

The result is always ``{"ok": bool, "text": str}``: ``text`` is what the agent
reads. A rejected call (bad arguments, truncated text, a held lock) is
``ok: false`` with the reason, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final


class ToolArgumentError(ValueError):
    pass


def _text(args: Mapping[str, Any], key: str, *, required: bool = False, default: str = "") -> str:
    value = args.get(key, None)
    if value is None:
        if required:
            raise ToolArgumentError(f'"{key}" is required')
        return default
    if not isinstance(value, str):
        raise ToolArgumentError(f'"{key}" must be a string')
    return value


def _strings(args: Mapping[str, Any], key: str) -> list[str]:
    value = args.get(key, None)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ToolArgumentError(f'"{key}" must be a string or a list of strings')


def memory_write(args: Mapping[str, Any]) -> tuple[bool, str]:
    from pi_memory.commands.write import consolidate_if_due, describe_write
    from pi_memory.open_store import open_store
    from pi_memory.store import parse_layer

    keywords = _strings(args, "keywords") or _strings(args, "keyword")
    config, store, _, _ = open_store()
    outcome = store.write(
        parse_layer(_text(args, "layer", default="project")),
        _text(args, "body", required=True),
        keywords,
        now=datetime.now(),
        file=_text(args, "file") or None,
        supersedes=_strings(args, "supersedes"),
        src=_text(args, "src", default="agent"),
    )
    consolidate_if_due(store, config)
    return True, describe_write(outcome)


def memory_search(args: Mapping[str, Any]) -> tuple[bool, str]:
    from pi_memory.open_store import open_store
    from pi_memory.retrieval import render_search

    page = args.get("page", 1)
    if not isinstance(page, int) or isinstance(page, bool) or page < 1:
        raise ToolArgumentError('"page" must be a whole number from 1')
    mode = _text(args, "mode", default="keyword")
    if mode not in ("keyword", "tag", "recent", "all", "id"):
        raise ToolArgumentError('"mode" is one of keyword, tag, recent, all, id')
    store = open_store().store
    result = store.search(_text(args, "query"), mode=mode, page=page, now=datetime.now())
    return True, render_search(result)


def memory(args: Mapping[str, Any]) -> tuple[bool, str]:
    import os

    from pi_memory.config.messages import tool_unavailable_message
    from pi_memory.entry import PROJECT
    from pi_memory.memory_tool import run_memory_tool
    from pi_memory.open_store import SHOW_COMMAND, misconfiguration, open_store
    from pi_memory.store import parse_layer

    config, store, _, _ = open_store()
    store.layer(PROJECT).memory_tool()  # a layout without the tool says so before anything else
    errors = misconfiguration(config, store, os.environ)
    if errors:
        return False, tool_unavailable_message(errors, SHOW_COMMAND)
    if args.get("action") == "search" and args.get("scope") == "sessions":
        return session_search({"query": args.get("query")})
    layer = parse_layer(_text(args, "layer", default=PROJECT))
    clean = {
        key: store.redact(value)
        if key in ("content", "description") and isinstance(value, str)
        else value
        for key, value in args.items()
        if key != "layer"  # chosen above; the tool itself knows one layer
    }
    result = run_memory_tool(store, layer, clean, datetime.now())
    return result.ok, result.text


def session_search(args: Mapping[str, Any]) -> tuple[bool, str]:
    """Past conversations of every agent here; at most ``sessionSearch.maxMatches`` of them."""
    import os
    from pathlib import Path

    from pi_memory.config.load import load_for
    from pi_memory.hosts.registry import NAMES
    from pi_memory.transcripts.session_search import render_sessions, search_sessions

    query = _text(args, "query", required=True)
    if not query.strip():
        raise ToolArgumentError('"query" must hold the words to find')
    host = _text(args, "host")
    if host and host not in NAMES:
        raise ToolArgumentError(f'"host" is one of {", ".join(NAMES)}')
    limit = args.get("limit")
    if limit is None:
        limit = load_for(Path(os.getcwd()), os.environ).config.session_search.max_matches
    elif not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 50:
        raise ToolArgumentError('"limit" must be a whole number from 1 to 50')
    result = search_sessions(
        query, hosts=(host,) if host else NAMES, project=_text(args, "project"), limit=limit
    )
    return True, render_sessions(result)


TOOLS: Final[dict[str, Callable[[Mapping[str, Any]], tuple[bool, str]]]] = {
    "memory_write": memory_write,
    "memory_search": memory_search,
    "memory": memory,
    "session_search": session_search,
}


def call_tool(name: str, args: Mapping[str, Any]) -> tuple[bool, str]:
    """Run one tool; every failure becomes ``(False, reason)``.

    A model reads the text, so it is sanitised like the injected index: stored
    text must not forge a host tag or hide behind invisible characters.
    """
    from pi_memory.inject.sanitize import sanitize_for_injection

    ok, text = _call_tool(name, args)
    return ok, sanitize_for_injection(text)


def _call_tool(name: str, args: Mapping[str, Any]) -> tuple[bool, str]:
    from pi_memory.errors import PiMemoryError

    tool = TOOLS.get(name)
    if tool is None:
        return False, f"unknown tool {name!r}; tools: {', '.join(TOOLS)}"
    try:
        return tool(args)
    except (PiMemoryError, ToolArgumentError) as exc:
        return False, str(exc)
    except Exception as exc:
        from pi_memory.error_handler import log_exception

        path = log_exception(f"tool {name}", exc)
        return False, f"internal error: {type(exc).__name__}: {exc} (details in {path})"


USAGE: Final = "usage: python -m pi_memory tool NAME  (JSON arguments on stdin), or tool --list"


def help_text() -> str:
    """``tool --help``: each tool, what it does and the arguments it takes."""
    import textwrap

    from pi_memory.hosts.tool_specs import SPECS

    lines = [
        USAGE,
        "",
        'Run one agent tool and print one JSON object: {"ok": true|false, "text": "..."}.',
        "The text is what the agent reads. Tools:",
    ]
    for name in TOOLS:
        spec = SPECS.get(name)
        if spec is None:
            continue
        properties = spec["inputSchema"].get("properties", {})
        required = set(spec["inputSchema"].get("required", ()))
        args = ", ".join(f"{key}{'' if key in required else '?'}" for key in properties)
        what = textwrap.fill(
            spec["description"].split(". ")[0] + ".",
            width=78,
            initial_indent="    ",
            subsequent_indent="    ",
        )
        lines += ["", f"  {name}  {{{args}}}", what]
    lines += [
        "",
        "Example:",
        """  echo '{"query": "deploy"}' | python -m pi_memory tool memory_search""",
    ]
    return "\n".join(lines)


def run_tool(argv: Sequence[str]) -> int:
    import json

    from pi_memory.errors import UsageError
    from pi_memory.output import write_line

    if list(argv) == ["--list"]:
        from pi_memory.hosts.tool_specs import offered_tools

        # Names, descriptions and schemas: what a host registers.
        write_line(json.dumps(offered_tools()))
        return 0
    if list(argv) in (["-h"], ["--help"]):
        write_line(help_text())
        return 0
    if len(argv) != 1:
        raise UsageError(f"{USAGE} (see: python -m pi_memory tool --help)")
    from pi_memory.utf8 import read_stdin

    raw = read_stdin()
    try:
        args = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        ok, text = False, f"arguments are not JSON: {exc.msg} (line {exc.lineno})"
    else:
        if isinstance(args, dict):
            ok, text = call_tool(argv[0], args)
        else:
            ok, text = False, "arguments must be a JSON object"
    write_line(json.dumps({"ok": ok, "text": text}))  # ASCII: safe on any pipe encoding
    return 0
