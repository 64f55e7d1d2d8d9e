"""``python -m pi_memory <command>``: one entry point for people, hooks and tools.

The parser is built only for commands a person types; ``hook`` and ``tool``
skip argparse entirely, because they run on every agent event and start-up
time is their latency.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import argparse

COMMANDS = (
    ("write", "store a memory"),
    ("search", "find memories"),
    ("show", "the keyword tables, counts, health and lock of both layers"),
    ("rebuild", "repair keywords and regenerate MEMORY.md of one layer"),
    ("compact", "merge duplicate memories of one layer (needs a model)"),
    ("extract", "learn memories from an agent transcript (needs a model)"),
    ("dream", "let a model tidy one layer with the memory tools (needs a model)"),
    ("import", "copy a layer from one layout to the other"),
    ("unlock", "remove an abandoned write lock"),
    ("restore", "bring back a memory the files layout's memory tool removed or replaced"),
    ("tool", "run an agent tool: JSON arguments on stdin, one JSON result on stdout"),
    ("hook", "handle an agent event: event JSON on stdin"),
    ("mcp", "serve the memory tools to an MCP client (JSON-RPC over stdio)"),
    ("sessions", "search past conversations of Claude Code, Codex, Gemini CLI and pi"),
    ("install", "wire hooks, tools and the MCP server into an agent's own settings"),
    ("uninstall", "remove exactly what install added"),
    ("surface", "the memories a prompt needs, as the prompt hook injects them"),
    ("doctor", "check the configuration, models, providers, locks and model spend"),
)

SEARCH_MODES = """modes:
  keyword  (default) memories that contain any word of QUERY, best match first;
           when nothing matches, the newest memories are listed and marked so
  tag      memories filed under exactly this keyword (as the index shows it:
           '#deploy (2)' and 'deploy' both work)
  recent   the newest memories, QUERY ignored
  all      every memory, matches first and then the newest
  id       one memory by its id (YYYYMMDD-xxxx); an id-shaped QUERY does this in
           every mode
Superseded memories come last, outdated ones are labelled.
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
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
            if args and args[0] == "tool":
                from pi_memory.commands.tool import run_tool

                return run_tool(args[1:])
            if args and args[0] == "mcp":
                from pi_memory.hosts.mcp import run_mcp

                return run_mcp(args[1:])
            return _dispatch(_build_parser().parse_args(args))
    except Exit as exc:
        return exc.code


def _build_parser() -> argparse.ArgumentParser:
    import argparse

    from pi_memory import __version__
    from pi_memory.errors import UsageError
    from pi_memory.hosts.registry import NAMES as HOSTS

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise UsageError(f"{message} (see: python -m pi_memory {self._sub}--help)")

        _sub = ""

    parser = Parser(
        prog="python -m pi_memory",
        description="Persistent Markdown memory for AI coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"pi_memory {__version__}")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    cmd: dict[str, argparse.ArgumentParser] = {}
    for name, help_text in COMMANDS:
        cmd[name] = subs.add_parser(name, help=help_text, description=help_text)
        cmd[name]._sub = f"{name} "  # type: ignore[attr-defined]  # our Parser subclass

    w = cmd["write"]
    w.add_argument("--layer", default="project", help="user|project (default: project)")
    w.add_argument("--file", help="category file, e.g. DECISIONS.md (categories layout)")
    w.add_argument(
        "--keyword",
        action="append",
        default=[],
        required=True,
        help="the memory's one keyword (extras are ignored)",
    )
    w.add_argument(
        "--supersedes",
        action="append",
        default=[],
        metavar="ID",
        help="id of a memory this one replaces (repeatable)",
    )
    w.add_argument("--src", default="user", help="who wrote it (default: user)")
    w.add_argument("--json", action="store_true", help="print one JSON object")
    w.add_argument("body", nargs="+", metavar="BODY", help="the memory text ('-' reads stdin)")

    s = cmd["search"]
    s.formatter_class = argparse.RawDescriptionHelpFormatter
    s.epilog = SEARCH_MODES
    s.add_argument(
        "--mode",
        default="keyword",
        choices=("keyword", "tag", "recent", "all", "id"),
        help="how QUERY is matched (default: keyword; see below)",
    )
    s.add_argument("--page", type=int, default=1, help="result page, 10 a page (default: 1)")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("query", nargs="*", metavar="QUERY", help="words, a keyword or a memory id")

    cmd["show"].add_argument("--json", action="store_true", help="print one JSON object")

    d = cmd["doctor"]
    d.add_argument("--json", action="store_true", help="print one JSON object")
    d.add_argument("--offline", action="store_true", help="send no request to any provider")

    for name in ("rebuild", "compact"):
        # Checked by _dispatch, which says why one layer (argparse would only say "required").
        cmd[name].usage = f"python -m pi_memory {name} [-h] [--dry-run] [--json] LAYER"
        cmd[name].add_argument(
            "layer", nargs="?", metavar="LAYER", help="user|project: the one layer to work on"
        )
    for name in ("rebuild", "compact", "extract", "dream"):
        cmd[name].add_argument("--dry-run", action="store_true", help="ask, but write nothing")
        cmd[name].add_argument("--json", action="store_true", help="print one JSON object")

    cmd["dream"].add_argument(
        "layer",
        nargs="?",
        default="project",
        metavar="LAYER",
        help="user|project (default: project)",
    )
    cmd["dream"].add_argument("--yes", action="store_true", help="do not ask for confirmation")
    x = cmd["extract"]
    x.add_argument("--transcript", required=True, metavar="FILE", help="the session's transcript")
    x.add_argument("--format", default="auto", choices=("auto", *HOSTS))
    x.add_argument("--layer", help="store only memories of this layer (user|project)")
    x.add_argument("--session", help="session id for the review gate (default: the file's name)")
    x.add_argument(
        "--handoff", action="store_true", help="the compaction handoff: at most 2 memories"
    )

    from pi_memory.config.schema import LAYOUTS

    i = cmd["import"]
    i.add_argument("--from", dest="source", required=True, choices=LAYOUTS)
    i.add_argument("--to", dest="target", required=True, choices=LAYOUTS)
    i.add_argument(
        "--on-conflict",
        default="keep",
        choices=("keep", "replace"),
        help="an id already in the destination with different content: keep the "
        "destination's copy (default) or replace it with the source's",
    )
    i.add_argument("layer", metavar="LAYER", help="user|project")

    u = cmd["unlock"]
    u.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    u.add_argument("--force", action="store_true", help="remove even a live holder's lock")
    u.add_argument(
        "layer",
        nargs="?",
        default="project",
        metavar="LAYER",
        help="user|project (default: project)",
    )

    sessions = cmd["sessions"].add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    found = sessions.add_parser("search", help="find sessions by content, newest first")
    found._sub = "sessions search "
    found.add_argument("query", nargs="+", metavar="QUERY")
    found.add_argument(
        "--host",
        action="append",
        choices=HOSTS,
        help="only this agent's sessions (repeatable; default: all)",
    )
    found.add_argument("--project", default="", help="only sessions whose directory contains this")
    found.add_argument("--limit", type=int, default=10, help="matching sessions to show (10)")
    found.add_argument(
        "--max-sessions", type=int, default=500, help="sessions to look at, newest first (500)"
    )
    found.add_argument("--json", action="store_true", help="print one JSON object")

    r = cmd["restore"]
    r.add_argument("--layer", default="project", help="user|project (default: project)")
    r.add_argument(
        "name", nargs="?", metavar="NAME", help="the memory's name or file; without it, list"
    )

    for name in ("install", "uninstall"):
        c = cmd[name]
        c.add_argument("host", metavar="HOST", choices=HOSTS)
        c.add_argument("--scope", default="user", choices=("user", "project"))
        c.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
    cmd["install"].add_argument(
        "--pyz", metavar="PATH", help="run the single-file build at PATH instead of this package"
    )

    cmd["tool"].add_argument("name", metavar="NAME", help="memory | memory_write | memory_search")
    cmd["hook"].add_argument("event", metavar="EVENT", help="see: hook --help")

    sf = cmd["surface"]
    sf.add_argument("--prompt", required=True, help="the user's prompt ('-' reads stdin)")
    sf.add_argument("--session", help="session id: skip and remember what it was shown")
    sf.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _dispatch(ns: argparse.Namespace) -> int:
    from pi_memory.errors import UsageError

    command = ns.command
    if command is None:
        _build_parser().print_help()
        return 0
    if command == "write":
        from pi_memory.commands.write import run_write

        return run_write(
            layer=ns.layer,
            file=ns.file,
            keywords=ns.keyword,
            supersedes=ns.supersedes,
            src=ns.src,
            body=ns.body,
            as_json=ns.json,
        )
    if command == "search":
        from pi_memory.commands.search import run_search

        return run_search(query=ns.query, mode=ns.mode, page=ns.page, as_json=ns.json)
    if command == "show":
        from pi_memory.commands.show import run_show

        return run_show(as_json=ns.json)
    if command == "doctor":
        from pi_memory.commands.doctor import run_doctor

        return run_doctor(as_json=ns.json, offline=ns.offline)
    if command in ("rebuild", "compact"):
        if ns.layer is None:
            raise UsageError(
                f"{command} needs a layer: python -m pi_memory {command} user|project "
                "(it never touches both layers at once)"
            )
        if command == "rebuild":
            from pi_memory.commands.rebuild import run_rebuild

            return run_rebuild(layer=ns.layer, dry_run=ns.dry_run, as_json=ns.json)
        from pi_memory.commands.compact import run_compact

        return run_compact(layer=ns.layer, dry_run=ns.dry_run, as_json=ns.json)
    if command == "dream":
        from pi_memory.commands.dream import run_dream

        return run_dream(layer=ns.layer, dry_run=ns.dry_run, as_json=ns.json, yes=ns.yes)
    if command == "extract":
        from pi_memory.commands.extract import run_extract

        return run_extract(
            transcript=ns.transcript,
            fmt=ns.format,
            layer=ns.layer,
            session=ns.session,
            handoff=ns.handoff,
            dry_run=ns.dry_run,
            as_json=ns.json,
        )

    if command == "import":
        from pi_memory.commands.import_layer import run_import

        return run_import(
            source=ns.source, target=ns.target, layer=ns.layer, on_conflict=ns.on_conflict
        )
    if command == "unlock":
        from pi_memory.commands.unlock import run_unlock

        return run_unlock(layer=ns.layer, yes=ns.yes, force=ns.force)
    if command == "restore":
        from pi_memory.commands.restore import run_restore

        return run_restore(layer=ns.layer, name=ns.name)
    if command == "surface":
        from pi_memory.commands.surface import run_surface

        return run_surface(prompt=ns.prompt, session=ns.session, as_json=ns.json)
    if command == "sessions":
        if ns.action != "search":
            raise UsageError("usage: python -m pi_memory sessions search QUERY...")
        from pi_memory.commands.sessions import run_sessions_search
        from pi_memory.hosts.registry import NAMES as HOSTS

        return run_sessions_search(
            ns.query,
            hosts=ns.host or HOSTS,
            project=ns.project,
            limit=ns.limit,
            max_sessions=ns.max_sessions,
            as_json=ns.json,
        )
    if command in ("install", "uninstall"):
        from pi_memory.commands.install import run_install

        return run_install(
            command, ns.host, ns.scope, dry_run=ns.dry_run, pyz=getattr(ns, "pyz", None)
        )
    raise AssertionError(f"unexpected command: {command}")
