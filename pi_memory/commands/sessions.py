"""``sessions search QUERY``: past conversations of every agent on this machine, by content."""

from __future__ import annotations

from collections.abc import Sequence


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
