"""``search``: find memories in both layers (pi-memory-auto's ``memory_search``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_memory.retrieval import SearchResult


def search_json(result: SearchResult) -> dict[str, object]:
    return {
        "mode": result.mode,
        "query": result.query,
        "page": result.page,
        "pages": result.pages,
        "total": result.total,
        "fallback": result.fallback,
        "results": [
            {
                "id": hit.entry.id,
                "layer": hit.entry.layer,
                "file": hit.entry.file,
                "keyword": hit.entry.keyword,
                "body": hit.entry.body,
                "time": hit.entry.time,
                "last": hit.entry.last or None,
                "seen": hit.entry.seen,
                "src": hit.entry.src,
                "project": hit.entry.project,
                "stale": hit.stale,
                "supersedes": list(hit.entry.supersedes),
                "superseded_by": hit.entry.superseded_by or None,
            }
            for hit in result.hits
        ],
    }


def run_search(*, query: Sequence[str], mode: str, page: int, as_json: bool) -> int:
    from datetime import datetime

    from pi_memory.errors import UsageError
    from pi_memory.open_store import open_store
    from pi_memory.output import write, write_line
    from pi_memory.retrieval import render_search

    if page < 1:
        raise UsageError("--page counts from 1")
    result = open_store().search(" ".join(query), mode=mode, page=page, now=datetime.now())
    if as_json:
        import json

        write_line(json.dumps(search_json(result)))  # ASCII: lossless on any terminal or pipe
    else:
        text = render_search(result)
        write(text if text.endswith("\n") else text + "\n")
    return 0
