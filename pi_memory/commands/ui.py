"""``ui``: the memories in the browser, served on the loopback interface.

The first line printed is the URL to open, with its token; every request must
carry it. ``--host`` serves on another interface (a container's, a LAN's):
then anyone who reaches it still needs the token.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=0, help="the port to serve on (default: 0, a free one)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the interface to serve on (default: 127.0.0.1; the token is required anyway)",
    )
    parser.add_argument("--no-browser", action="store_true", help="only print the URL")
    parser.add_argument(
        "--project", metavar="DIR", help="the project whose memories to show (default: here)"
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pi_memory.errors import UsageError
    from pi_memory.output import error_line, write_line
    from pi_memory.viewer.security import LOOPBACK
    from pi_memory.viewer.server import serve

    project = Path(args.project).expanduser().resolve() if args.project else Path.cwd()
    if not project.is_dir():
        raise UsageError(f"--project {args.project}: no such directory")
    if not 0 <= args.port <= 65535:
        raise UsageError("--port takes 0 (a free port) to 65535")
    if args.host not in (*LOOPBACK, "::1"):
        error_line(
            f"serving on {args.host}: whoever reaches it and has the token can edit memories"
        )
    try:
        return serve(
            project,
            host=args.host,
            port=args.port,
            open_browser=not args.no_browser,
            say=write_line,
        )
    except OSError as exc:
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from exc
