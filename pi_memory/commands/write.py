"""``write``: store one memory (pi-memory-auto's ``memory_write``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from pi_memory.config.schema import Config
    from pi_memory.store import Store, WriteOutcome


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--layer", default="project", help="user|project (default: project)")
    parser.add_argument("--file", help="category file, e.g. DECISIONS.md (categories layout)")
    parser.add_argument(
        "--keyword",
        action="append",
        default=[],
        required=True,
        help="the memory's one keyword (extras are ignored)",
    )
    parser.add_argument(
        "--supersedes",
        action="append",
        default=[],
        metavar="ID",
        help="id of a memory this one replaces (repeatable)",
    )
    parser.add_argument("--src", default="user", help="who wrote it (default: user)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("body", nargs="+", metavar="BODY", help="the memory text ('-' reads stdin)")


def describe_write(outcome: WriteOutcome) -> str:
    """The one-line answer an agent or a person reads after a write."""
    e = outcome.entry
    where = f"{e.layer}/{e.file}"
    if outcome.deduped:
        text = f"Already stored as [{e.id}] in {where} (seen {e.seen}); confirmed again"
    else:
        text = f"Saved [{e.id}] to {where} · keyword: {e.keyword}"
    if outcome.superseded:
        text += " · superseded " + ", ".join(f"[{s}]" for s in outcome.superseded)
    if outcome.unknown_supersedes:
        text += " · no such id to supersede: " + ", ".join(outcome.unknown_supersedes)
    if outcome.other_layer_supersedes:
        from pi_memory.entry import PROJECT, USER

        ids = ", ".join(outcome.other_layer_supersedes)
        other = USER if e.layer == PROJECT else PROJECT
        text += (
            f" · not superseded: {ids} is in the {other} layer, and a memory supersedes"
            " only memories of its own layer"
        )
    if outcome.note:
        text += f" · {outcome.note}"
    if outcome.dropped_keywords:
        n = outcome.dropped_keywords
        text += f" · {n} extra keyword{'s' if n != 1 else ''} ignored (one keyword per memory)"
    return text


def consolidate_if_due(store: Store, config: Config) -> None:
    """After a write rebuilt the index: start the automatic round of a layer that came due.

    The memory is stored whatever happens here, so a failure is logged, never said.
    """
    import os

    from pi_memory.jobs.worker import consolidate_when_due
    from pi_memory.naming.workdir import working_dir

    try:
        consolidate_when_due(store, config, working_dir(), os.environ)
    except Exception as exc:
        from pi_memory.error_handler import log_exception

        log_exception("write: consolidation check", exc)


def write_json(outcome: WriteOutcome) -> dict[str, object]:
    e = outcome.entry
    return {
        "id": e.id,
        "layer": e.layer,
        "file": e.file,
        "deduped": outcome.deduped,
        "superseded": list(outcome.superseded),
        "dropped_keywords": outcome.dropped_keywords,
        "note": outcome.note or None,
    }


def run(args: argparse.Namespace) -> int:
    from datetime import datetime

    from pi_memory.open_store import open_store
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer
    from pi_memory.utf8 import read_stdin

    body: Sequence[str] = args.body
    text = read_stdin() if list(body) == ["-"] else " ".join(body)
    config, store, _, _ = open_store()
    outcome = store.write(
        parse_layer(args.layer),
        text,
        args.keyword,
        now=datetime.now(),
        file=args.file,
        supersedes=args.supersedes,
        src=args.src,
    )
    consolidate_if_due(store, config)
    if args.json:
        import json

        write_line(json.dumps(write_json(outcome)))  # ASCII: lossless on any terminal or pipe
    else:
        write_line(describe_write(outcome))
    return 0
