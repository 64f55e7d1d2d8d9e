"""``python -m pi_memory <command>``: one entry point for people, hooks and tools.

:data:`COMMANDS` is the table of commands. Each command's module declares its
own arguments (``add_arguments(parser)``) and runs them (``run(args)``); only
the module of the command typed is imported, so the top-level ``--help`` (which
lists every command with its summary from the table) imports none of them.
``hook``, ``tool`` and ``mcp`` read their own arguments and skip argparse
entirely: they run on every agent event or serve one, and start-up time is
their latency. A command whose module offers ``words_only(words)`` (``search``)
is given its arguments from it when no word starts with ``-``: what argparse
would give, without importing it; one whose module offers ``plain_options(args)``
(``write``) is given what that reads, when it can read the line exactly as
argparse would (else ``None``, and argparse reads it).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Callable, NoReturn

PROG = "python -m pi_memory"


#: Every command: its name, the one line the top-level ``--help`` shows (and its own
#: description), and the module that declares its arguments (``add_arguments``) and runs
#: it (``run``). Plain tuples: a hook imports this module on every agent event.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("write", "store a memory", "pi_memory.commands.write"),
    ("search", "find memories", "pi_memory.commands.search"),
    (
        "show",
        "the keyword tables, counts, health and lock of both layers",
        "pi_memory.commands.show",
    ),
    (
        "rebuild",
        "repair keywords and regenerate MEMORY.md of one layer",
        "pi_memory.commands.rebuild",
    ),
    (
        "compact",
        "merge duplicate memories of one layer (needs a model)",
        "pi_memory.commands.compact",
    ),
    (
        "extract",
        "learn memories from an agent transcript (needs a model)",
        "pi_memory.commands.extract",
    ),
    (
        "dream",
        "let a model tidy one layer with the memory tools (needs a model)",
        "pi_memory.commands.dream",
    ),
    (
        "import",
        "copy a layer from one layout to the other, or what an agent remembered natively",
        "pi_memory.commands.import_layer",
    ),
    (
        "promote",
        "copy a memory into the project's AGENTS.md/CLAUDE.md/GEMINI.md, in a marked section",
        "pi_memory.commands.promote",
    ),
    (
        "export",
        "write the memory index into the instruction files of agents without hooks",
        "pi_memory.commands.export",
    ),
    (
        "inbox",
        "list, accept or reject what the background review proposed",
        "pi_memory.commands.inbox",
    ),
    ("unlock", "remove an abandoned write lock", "pi_memory.commands.unlock"),
    (
        "verify",
        "check which project memories describe code that changed since (suspect); "
        "anchor confirmed ones again",
        "pi_memory.commands.verify",
    ),
    (
        "trust",
        "use the project memories this repository's other contributors committed",
        "pi_memory.commands.trust",
    ),
    (
        "restore",
        "bring back a memory the files layout's memory tool removed or replaced",
        "pi_memory.commands.restore",
    ),
    (
        "tool",
        "run an agent tool: JSON arguments on stdin, one JSON result on stdout",
        "pi_memory.commands.tool",
    ),
    (
        "hook",
        "handle an agent event: event JSON on stdin",
        "pi_memory.hosts.hooks",
    ),
    (
        "mcp",
        "serve the memory tools to an MCP client (JSON-RPC over stdio)",
        "pi_memory.hosts.mcp",
    ),
    (
        "sessions",
        "search past conversations of Claude Code, Codex, Gemini CLI and pi",
        "pi_memory.commands.sessions",
    ),
    (
        "install",
        "wire hooks, tools and the MCP server into an agent's own settings",
        "pi_memory.commands.install",
    ),
    ("uninstall", "remove exactly what install added", "pi_memory.commands.install"),
    (
        "surface",
        "the memories a prompt needs, as the prompt hook injects them",
        "pi_memory.commands.surface",
    ),
    ("log", "what the memory did: injected, surfaced, learned, spent", "pi_memory.commands.log"),
    (
        "doctor",
        "check the configuration, models, providers, locks and model spend",
        "pi_memory.commands.doctor",
    ),
    ("ui", "see, search and fix the memories in the browser", "pi_memory.commands.ui"),
    (
        "sync",
        "keep the user layer in a git repository with a remote, on every machine",
        "pi_memory.commands.sync",
    ),
)
#: Commands that take their raw arguments (this function of their module), not argparse.
OWN_ARGV: dict[str, str] = {"tool": "run_tool", "hook": "run_hook", "mcp": "run_mcp"}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    # A hook and the background worker answer no person: no error handler, no UTF-8
    # streams, nothing imported before they know the event is theirs.
    if args and args[0] == "hook":
        from pi_memory.hosts.hooks import run_hook

        return run_hook(args[1:])
    if args and args[0] == "worker":
        from pi_memory.fs.termination import Terminated
        from pi_memory.jobs.worker import run_worker

        try:
            return run_worker(args[1:])
        except Terminated as exc:  # its lock and its claim were let go on the way out
            return exc.exit_code
    from pi_memory.error_handler import Exit, error_handler
    from pi_memory.utf8 import from_os, utf8_streams

    utf8_streams()
    args = [from_os(arg) for arg in args]
    try:
        with error_handler(" ".join(args[:1]) or "pi_memory"):
            return _run(args)
    except Exit as exc:
        return exc.code


def _run(args: list[str]) -> int:
    import importlib

    chosen = next((row for row in COMMANDS if args and row[0] == args[0]), None)
    if chosen is None:  # no command, --help, --version or a mistake: argparse says which
        parser = build_parser()
        parser.parse_args(args)
        parser.print_help()
        return 0
    name, _, module_name = chosen
    module = importlib.import_module(module_name)
    if name in OWN_ARGV:
        run_argv: Callable[[list[str]], int] = getattr(module, OWN_ARGV[name])
        return run_argv(args[1:])
    run: Callable[[argparse.Namespace], int] = module.run
    words_only: Callable[[list[str]], argparse.Namespace] | None
    words_only = getattr(module, "words_only", None)
    if words_only is not None and not any(arg.startswith("-") for arg in args[1:]):
        return run(words_only(args[1:]))  # argparse would give the same, and costs more
    plain_options: Callable[[list[str]], argparse.Namespace | None] | None
    plain_options = getattr(module, "plain_options", None)
    plain = plain_options(args[1:]) if plain_options is not None else None
    if plain is not None:
        return run(plain)  # as above
    return run(build_parser(name).parse_args(args))


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command's name and summary; given ``chosen``, the parser of
    that command alone, with its arguments (what parsing a command line needs).

    A mistake is one line and a pointer to the help of the (sub)command it was made in.
    """
    import argparse
    import importlib

    from pi_memory import __version__
    from pi_memory.errors import UsageError

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise UsageError(f"{message} (see: {self.prog} --help)")

        def _get_formatter(self) -> argparse.HelpFormatter:
            # argparse makes a formatter for every argument added, and a formatter
            # without a width imports shutil (and bz2 and lzma) to measure the terminal.
            formatter = self.formatter_class(prog=self.prog, width=_help_width())  # type: ignore[call-arg]
            color = getattr(self, "color", None)
            if color is not None and hasattr(formatter, "_set_color"):
                formatter._set_color(color)
            return formatter

    parser = Parser(prog=PROG, description="Persistent Markdown memory for AI coding agents.")
    parser.add_argument("--version", action="version", version=f"pi_memory {__version__}")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, summary, module in COMMANDS:
        if chosen is not None and name != chosen:
            continue
        sub = subs.add_parser(name, help=summary, description=summary)
        if name == chosen and name not in OWN_ARGV:
            add: Callable[[argparse.ArgumentParser], None]
            add = importlib.import_module(module).add_arguments
            add(sub)
    return parser


def _help_width() -> int:
    """The width argparse gives help text (``shutil.get_terminal_size`` less 2, without
    importing shutil): ``COLUMNS``, else the terminal of standard output, else 80."""
    import os

    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2
