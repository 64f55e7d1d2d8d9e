"""``sessions search QUERY``: past conversations of every agent on this machine, by content."""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pi_memory.hosts.registry import NAMES as HOSTS

    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    found = actions.add_parser("search", help="find sessions by content, newest first")
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


def run(args: argparse.Namespace) -> int:
    from pi_memory.errors import UsageError
    from pi_memory.hosts.registry import NAMES as HOSTS

    if args.action != "search":
        raise UsageError("usage: python -m pi_memory sessions search QUERY...")
    return run_sessions_search(
        args.query,
        hosts=args.host or HOSTS,
        project=args.project,
        limit=args.limit,
        max_sessions=args.max_sessions,
        as_json=args.json,
    )


def run_sessions_search(
    query: Sequence[str],
    *,
    hosts: Sequence[str],
    project: str,
    limit: int,
    max_sessions: int,
    as_json: bool,
) -> int:
    from pi_memory.errors import UsageError
    from pi_memory.output import write, write_line
    from pi_memory.transcripts.session_search import (
        render_sessions,
        search_sessions,
        sessions_json,
    )

    text = " ".join(query).strip()
    if not text:
        raise UsageError("sessions search needs a QUERY (the words to find)")
    if limit < 1 or max_sessions < 1:
        raise UsageError("--limit and --max-sessions are whole numbers from 1")
    result = search_sessions(text, hosts=hosts, project=project, limit=limit, max_scan=max_sessions)
    if as_json:
        import json

        write_line(json.dumps(sessions_json(result)))  # ASCII: lossless on any terminal or pipe
    else:
        write(render_sessions(result))
    return 0
