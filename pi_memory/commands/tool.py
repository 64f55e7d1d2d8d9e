"""``tool <name>``: an agent tool call. JSON arguments on stdin, one JSON result on stdout.

The result is always ``{"ok": bool, "text": str}``: ``text`` is what the agent
reads. A rejected call (bad arguments, truncated text, a held lock) is
``ok: false`` with the reason, never a traceback. The tools themselves live in
:mod:`pi_memory.agent_tools`; this adapter only reads, calls and prints.
"""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

USAGE: Final = "usage: python -m pi_memory tool NAME  (JSON arguments on stdin), or tool --list"


def help_text() -> str:
    """``tool --help``: each tool, what it does and the arguments it takes."""
    import textwrap

    from pi_memory.agent_tools.registry import TOOLS

    lines = [
        USAGE,
        "",
        'Run one agent tool and print one JSON object: {"ok": true|false, "text": "..."}.',
        "The text is what the agent reads. Tools:",
    ]
    for name, tool in TOOLS.items():
        schema = tool.spec["inputSchema"]
        required = set(schema.get("required", ()))
        args = ", ".join(
            f"{key}{'' if key in required else '?'}" for key in schema.get("properties", {})
        )
        what = textwrap.fill(
            tool.spec["description"].split(". ")[0] + ".",
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
        from pi_memory.agent_tools.registry import offered_tools

        # Names, descriptions and schemas: what a host registers.
        write_line(json.dumps(offered_tools()))
        return 0
    if list(argv) in (["-h"], ["--help"]):
        write_line(help_text())
        return 0
    if len(argv) != 1:
        raise UsageError(f"{USAGE} (see: python -m pi_memory tool --help)")
    from pi_memory.agent_tools.registry import call_tool
    from pi_memory.json_input import loads
    from pi_memory.utf8 import read_stdin

    raw = read_stdin()
    try:
        args = loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        ok, text = False, f"arguments are not JSON: {exc.msg} (line {exc.lineno})"
    except ValueError as exc:
        ok, text = False, f"arguments are not JSON: {exc}"
    else:
        if isinstance(args, dict):
            ok, text = call_tool(argv[0], args)
            _after(ok)
        else:
            ok, text = False, "arguments must be a JSON object"
    write_line(json.dumps({"ok": ok, "text": text}))  # ASCII: safe on any pipe encoding
    return 0


def _after(ok: bool) -> None:
    """A tool that changed the store leaves the next session start its answer."""
    if ok:
        from pi_memory.hosts.after_change import after_change

        after_change()
