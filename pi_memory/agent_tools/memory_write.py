"""``memory_write`` (pi-memory-auto): store one memory, or confirm one already stored."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from pi_memory.entry import ALL_CATEGORY_FILES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.config.schema import Config
    from pi_memory.store import Store, WriteOutcome

LAYER: Final = {
    "type": "string",
    "enum": ["project", "user"],
    "description": "project (default): this repository's memory; user: facts about the user "
    "that hold in every project",
}

SPEC: Final[dict[str, Any]] = {
    "description": (
        "Store one durable fact for future sessions: a convention, a decision and its "
        "reason, a failure and its fix, a user preference. One self-contained sentence or "
        "two, with exactly one keyword. Writing the same text again only confirms it (a "
        "memory marked suspect is then anchored to the code as it is now). When "
        "a requirement changed, pass the old memory's id in supersedes: it is retired, "
        "never deleted."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "body": {"type": "string", "description": "the memory text, self-contained"},
            "keyword": {
                "type": "string",
                "description": "one short keyword the memory is filed under (e.g. deploy)",
            },
            "layer": LAYER,
            "file": {
                "type": "string",
                "enum": list(ALL_CATEGORY_FILES),
                "description": "category file; user layer: USER, TOOLING, LESSONS; "
                "project layer: CONVENTIONS, DECISIONS, FAILURES (default chosen by layer)",
            },
            "supersedes": {
                "type": "array",
                "items": {"type": "string"},
                "description": "ids (YYYYMMDD-xxxx) of memories this one replaces",
            },
        },
        "required": ["body", "keyword"],
        "additionalProperties": False,
    },
}


def run(args: Mapping[str, Any]) -> tuple[bool, str]:
    from pi_memory.agent_tools.arguments import strings, text
    from pi_memory.open_store import open_store
    from pi_memory.store import parse_layer

    keywords = strings(args, "keywords") or strings(args, "keyword")
    config, store, _, _ = open_store()
    outcome = store.write(
        parse_layer(text(args, "layer", default="project")),
        text(args, "body", required=True),
        keywords,
        now=datetime.now(),
        file=text(args, "file") or None,
        supersedes=strings(args, "supersedes"),
        src=text(args, "src", default="agent"),
    )
    consolidate_if_due(store, config)
    return True, describe_write(outcome)


def describe_write(outcome: WriteOutcome) -> str:
    """The one-line answer an agent or a person (``write``) reads after a write."""
    e = outcome.entry
    where = f"{e.layer}/{e.file}"
    if outcome.deduped:
        said = f"Already stored as [{e.id}] in {where} (seen {e.seen}); confirmed again"
    else:
        said = f"Saved [{e.id}] to {where} · keyword: {e.keyword}"
    if outcome.superseded:
        said += " · superseded " + ", ".join(f"[{s}]" for s in outcome.superseded)
    if outcome.unknown_supersedes:
        said += " · no such id to supersede: " + ", ".join(outcome.unknown_supersedes)
    if outcome.other_layer_supersedes:
        from pi_memory.entry import PROJECT, USER

        ids = ", ".join(outcome.other_layer_supersedes)
        other = USER if e.layer == PROJECT else PROJECT
        said += (
            f" · not superseded: {ids} is in the {other} layer, and a memory supersedes"
            " only memories of its own layer"
        )
    if outcome.note:
        said += f" · {outcome.note}"
    if outcome.dropped_keywords:
        n = outcome.dropped_keywords
        said += f" · {n} extra keyword{'s' if n != 1 else ''} ignored (one keyword per memory)"
    return said


def consolidate_if_due(store: Store, config: Config) -> None:
    """After a write (``write`` or this tool) rebuilt the index: start the automatic
    round of a layer that came due.

    The memory is stored whatever happens here, so a failure is logged, never said.
    """
    import os

    from pi_memory.config.models import background_ready
    from pi_memory.naming.workdir import working_dir

    try:
        if not background_ready(config, os.environ):
            return  # no model, no round: the job machinery is not even imported
        from pi_memory.jobs.worker import consolidate_when_due

        consolidate_when_due(store, config, working_dir(), os.environ)
    except Exception as exc:
        from pi_memory.error_handler import log_exception

        log_exception("write: consolidation check", exc)
