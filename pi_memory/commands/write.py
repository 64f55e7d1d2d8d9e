"""``write``: store one memory (pi-memory-auto's ``memory_write``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_memory.config.schema import Config
    from pi_memory.store import Store, WriteOutcome


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


def run_write(
    *,
    layer: str,
    file: str | None,
    keywords: Sequence[str],
    supersedes: Sequence[str],
    src: str,
    body: Sequence[str],
    as_json: bool,
) -> int:
    from datetime import datetime

    from pi_memory.open_store import open_job
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer
    from pi_memory.utf8 import read_stdin

    text = read_stdin() if list(body) == ["-"] else " ".join(body)
    store, config = open_job()
    outcome = store.write(
        parse_layer(layer),
        text,
        keywords,
        now=datetime.now(),
        file=file,
        supersedes=supersedes,
        src=src,
    )
    consolidate_if_due(store, config)
    if as_json:
        import json

        write_line(json.dumps(write_json(outcome)))  # ASCII: lossless on any terminal or pipe
    else:
        write_line(describe_write(outcome))
    return 0
