"""``extract --transcript FILE``: learn memories from an agent session."""

from __future__ import annotations


def run_extract(
    *,
    transcript: str,
    fmt: str,
    layer: str | None,
    session: str | None,
    handoff: bool,
    dry_run: bool,
    as_json: bool,
) -> int:
    from datetime import datetime
    from pathlib import Path

    from pi_memory.commands.job_output import report
    from pi_memory.errors import UsageError
    from pi_memory.jobs.extract import extract
    from pi_memory.open_store import open_job
    from pi_memory.store import parse_layer
    from pi_memory.transcripts import TranscriptError

    wanted = parse_layer(layer) if layer else None
    store, config = open_job()
    try:
        outcome = extract(
            store,
            config,
            Path(transcript),
            now=datetime.now(),
            fmt=fmt,
            session=session,
            layer=wanted,
            handoff=handoff,
            dry_run=dry_run,
        )
    except TranscriptError as err:
        raise UsageError(f"{transcript}: {err}") from None
    return report(outcome, as_json=as_json)
