"""``show`` for the ``files`` layout: pi-memory's ``/memory`` status block.

Healthy, seven lines::

    Dir: /home/you/.pi/memory/git/github.com__owner__repo
    Index: 38/200 lines, 2841/25600 bytes, 1 unrecognized lines
    Inject: 39/50 lines, 2841/16384 bytes
    Entries: 37
    Modules: dream=on(provider/model-a) extractMemories=off autoSurfacing=on(provider/model-b)
    Last dream: 2026-10-01T22:10:04.882Z
    Lock: free

Misconfigured: ``Memory: misconfigured``, ``Dir: not initialized`` and one
``- <error>`` line per problem.

``Index:`` is the write capacity (non-blank lines after newline normalisation,
raw file bytes, lines the index parser does not recognise); ``Inject:`` is the
window that reaches the prompt, computed by the code that builds it.

Where this package differs from pi-memory, because models are optional here: a
task without a model shows ``off``, except surfacing, which then runs on the
retrieval scorer and shows ``on(scorer)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_memory.config.models import task_model
from pi_memory.inject.inject_window import index_injection_capacity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.config.schema import Config

NEVER: Final = "never"
SCORER: Final = "scorer"


@dataclass(frozen=True)
class IndexFacts:
    line_count: int
    byte_length: int
    unrecognized: int
    inject_lines: int
    inject_bytes: int
    inject_truncated: bool


def index_facts(config: Config, index: str | bytes | None) -> IndexFacts:
    """Both capacities of a raw ``MEMORY.md`` (``None`` when the file does not exist).

    Bytes are counted on the raw file, so pass ``bytes`` when the file may not be UTF-8.
    """
    from pi_memory.layouts.files.index import (
        index_capacity,
        parse_entry_index,
    )

    if index is None:
        return IndexFacts(0, 0, 0, 0, 0, inject_truncated=False)
    text = index.decode("utf-8", "replace") if isinstance(index, bytes) else index
    capacity = index_capacity(text, config.mem_index_max_lines, config.mem_index_max_bytes)
    raw_bytes = len(index) if isinstance(index, bytes) else capacity.byte_length
    inject = index_injection_capacity(
        text, config.mem_index_inject_max_lines, config.mem_index_inject_max_bytes
    )
    return IndexFacts(
        line_count=capacity.line_count,
        byte_length=raw_bytes,
        unrecognized=parse_entry_index(text).unrecognized,
        inject_lines=inject.line_count,
        inject_bytes=inject.byte_length,
        inject_truncated=inject.truncated,
    )


def last_dream(dream_meta: str | None) -> str | None:
    """``lastDreamAt`` of ``.dream-meta.json``; ``None`` when absent or unreadable."""
    if not dream_meta:
        return None
    import json

    try:
        data = json.loads(dream_meta)
    except ValueError:
        return None
    value = data.get("lastDreamAt") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else None


def module_states(config: Config) -> dict[str, str | None]:
    """Each model-driven task → the model it runs with, ``"scorer"``, or ``None`` for off."""
    surfacing = task_model(config, "autoSurfacing") or SCORER
    return {
        "dream": task_model(config, "dream"),
        "extractMemories": (
            task_model(config, "extractMemories") if config.extract_memories.enabled else None
        ),
        "autoSurfacing": surfacing if config.auto_surfacing.enabled else None,
    }


def _module(state: str | None) -> str:
    return "off" if state is None else f"on({state})"


def misconfigured_lines(errors: Sequence[str]) -> list[str]:
    return ["Memory: misconfigured", "Dir: not initialized", *(f"- {e}" for e in errors)]


def status_lines(
    config: Config,
    *,
    directory: str,
    index: str | bytes | None,
    entry_count: int,
    dream_meta: str | None,
    lock: str,
    errors: Sequence[str] = (),
) -> list[str]:
    """The status block; ``lock`` is the value of the ``Lock:`` line (``free``, ``held by …``)."""
    if errors:
        return misconfigured_lines(errors)
    facts = index_facts(config, index)
    modules = " ".join(f"{task}={_module(state)}" for task, state in module_states(config).items())
    return [
        f"Dir: {directory}",
        f"Index: {facts.line_count}/{config.mem_index_max_lines} lines, "
        f"{facts.byte_length}/{config.mem_index_max_bytes} bytes, "
        f"{facts.unrecognized} unrecognized lines",
        f"Inject: {facts.inject_lines}/{config.mem_index_inject_max_lines} lines, "
        f"{facts.inject_bytes}/{config.mem_index_inject_max_bytes} bytes",
        f"Entries: {entry_count}",
        f"Modules: {modules}",
        f"Last dream: {last_dream(dream_meta) or NEVER}",
        f"Lock: {lock}",
    ]


def status_json(
    config: Config,
    *,
    directory: str,
    index: str | bytes | None,
    entry_count: int,
    dream_meta: str | None,
    lock: str,
    errors: Sequence[str] = (),
) -> dict[str, Any]:
    """The facts of :func:`status_lines` as one JSON-ready object."""
    if errors:
        return {"state": "misconfigured", "dir": None, "errors": list(errors)}
    facts = index_facts(config, index)
    return {
        "state": "healthy",
        "dir": directory,
        "index": {
            "lines": facts.line_count,
            "maxLines": config.mem_index_max_lines,
            "bytes": facts.byte_length,
            "maxBytes": config.mem_index_max_bytes,
            "unrecognized": facts.unrecognized,
        },
        "inject": {
            "lines": facts.inject_lines,
            "maxLines": config.mem_index_inject_max_lines,
            "bytes": facts.inject_bytes,
            "maxBytes": config.mem_index_inject_max_bytes,
            "truncated": facts.inject_truncated,
        },
        "entries": entry_count,
        "modules": {
            task: {"enabled": state is not None, "model": state}
            for task, state in module_states(config).items()
        },
        "lastDream": last_dream(dream_meta),
        "lock": lock,
    }
