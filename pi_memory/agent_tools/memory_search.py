"""``memory_search`` (pi-memory-auto): search both layers, ten results a page."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from pi_memory.agent_tools.arguments import ToolArgumentError, text, whole_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

MODES: Final = ("keyword", "tag", "recent", "all", "id")

SPEC: Final[dict[str, Any]] = {
    "description": (
        "Search the persistent memory (this project's and the user's) before you guess at "
        "a convention, a command, a past decision or a known failure. Matches any query "
        "word (identifiers such as src/app.py stay whole); ten results a page, outdated "
        "ones labelled. Use mode=tag with a keyword copied from the injected index."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "words, a keyword or a memory id"},
            "mode": {
                "type": "string",
                "enum": list(MODES),
                "description": "keyword (default), tag (exact keyword), recent (newest), "
                "all (recency weighted more), id (one memory)",
            },
            "page": {"type": "integer", "minimum": 1, "description": "result page, from 1"},
        },
        "additionalProperties": False,
    },
}


def run(args: Mapping[str, Any]) -> tuple[bool, str]:
    from pi_memory.open_store import open_store
    from pi_memory.retrieval import render_search

    page = whole_number(args.get("page", 1), "page", 1)
    mode = text(args, "mode", default="keyword")
    if mode not in MODES:
        raise ToolArgumentError(f'"mode" is one of {", ".join(MODES)}')
    store = open_store().store
    result = store.search(text(args, "query"), mode=mode, page=page, now=datetime.now())
    return True, render_search(result, store.settings.max_body_bytes)
