"""``extract --transcript FILE``: learn memories from an agent session."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pi_memory.hosts.registry import NAMES as HOSTS

    parser.add_argument("--dry-run", action="store_true", help="ask, but write nothing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--transcript", required=True, metavar="FILE", help="the session's transcript"
    )
    parser.add_argument(
        "--format",
        default="auto",
        choices=("auto", *HOSTS),
        help="the agent that wrote the transcript (default: auto, told from the file)",
    )
    parser.add_argument("--layer", help="store only memories of this layer (user|project)")
    parser.add_argument(
        "--session", help="session id for the review gate (default: the file's name)"
    )
    parser.add_argument(
        "--handoff", action="store_true", help="the compaction handoff: at most 2 memories"
    )


def run(args: argparse.Namespace) -> int:
    from datetime import datetime
    from pathlib import Path

    from pi_memory.commands.job_output import report
    from pi_memory.errors import UsageError
    from pi_memory.jobs.extract import extract
    from pi_memory.open_store import open_store
    from pi_memory.store import parse_layer
    from pi_memory.transcripts import TranscriptError

    transcript: str = args.transcript
    wanted = parse_layer(args.layer) if args.layer else None
    config, store, _, _ = open_store()
    try:
        outcome = extract(
            store,
            config,
            Path(transcript),
            now=datetime.now(),
            fmt=args.format,
            session=args.session,
            layer=wanted,
            handoff=args.handoff,
            dry_run=args.dry_run,
        )
    except TranscriptError as err:
        raise UsageError(f"{transcript}: {err}") from None
    return report(outcome, as_json=args.json)
