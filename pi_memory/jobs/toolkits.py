"""The toolkits a model job gives its agent over one layer: the one seam between the jobs
and the layouts.

A layout declares which toolkit edits it (``LayerStore.jobs``,
:class:`pi_memory.layouts.protocol.JobNeeds`); :func:`toolkit_for` hands the
jobs that toolkit's parts, so no job asks which layout it works on:

- ``review``: how a turn of the session is reviewed — pi-memory's extract agent
  with the ``memory`` tool, or pi-memory-auto's one-shot review;
- ``staging``: the dream's copy of the layer, answering the agent's calls
  without writing anything until :meth:`Staging.commit`;
- ``dream_tools`` and ``dream_system``: what the dream's agent is offered and told.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from pi_memory.layouts.protocol import ENTRY_OPERATIONS, MEMORY_TOOL
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from pi_memory.config.schema import Config
    from pi_memory.entry import Entry
    from pi_memory.inbox import Source
    from pi_memory.jobs.outcome import JobOutcome
    from pi_memory.layouts.protocol import LayerStore
    from pi_memory.model.types import ToolCall, ToolSpec
    from pi_memory.store import Store
    from pi_memory.transcripts import Turn
else:
    Protocol = object  # the type checker's structural base; typing costs a command milliseconds


class Staging(Protocol):
    """A layer's memories as an agent sees them while nothing is written yet."""

    refused: list[str]

    def answer(self, call: ToolCall) -> str:
        """The tool's answer to one call (a refusal is an answer too)."""

    def planned(self) -> list[str]:
        """One line per change staged so far."""

    def commit(self, store: Store, layer: str) -> tuple[list[str], list[str]]:
        """Apply what was staged, the caller holding the layer's lock: ``(done, refused)``."""


class Review(Protocol):
    def __call__(
        self,
        store: Store,
        config: Config,
        turns: Sequence[Turn],
        *,
        now: datetime,
        layer: str | None,
        dry_run: bool,
        background: bool,
        timeout: float | None,
        env: Mapping[str, str] | None,
        stage: Source | None = None,
    ) -> JobOutcome: ...


class Toolkit(NamedTuple):
    review: Review
    #: ``(entries, layer, now, max_body_bytes)`` → the dream's staging of that layer.
    staging: Callable[[Sequence[Entry], str, datetime, int], Staging]
    dream_tools: Callable[[], list[ToolSpec]]
    #: ``(layer, max_rounds)`` → the dream's system prompt.
    dream_system: Callable[[str, int], str]


def toolkit_for(layer: LayerStore) -> Toolkit:
    """The toolkit ``layer``'s layout declares."""
    return TOOLKITS[layer.jobs.toolkit]()


def _memory_tool() -> Toolkit:
    """pi-memory: the ``memory`` tool's actions, the extract agent, the dream's seven actions."""
    from pi_memory.jobs.extract_agent import run_extract_agent
    from pi_memory.jobs.staging import DREAM_ACTIONS, tool_spec
    from pi_memory.jobs.staging import Staging as MemoryStaging
    from pi_memory.model.prompts import fill, load

    def staging(
        entries: Sequence[Entry], layer: str, now: datetime, max_body_bytes: int
    ) -> Staging:
        del layer
        return MemoryStaging(entries, DREAM_ACTIONS, now, max_body_bytes)

    return Toolkit(
        review=run_extract_agent,
        staging=staging,
        dream_tools=lambda: [tool_spec(DREAM_ACTIONS)],
        dream_system=lambda layer, rounds: fill(load("dream"), max_turns=str(rounds)),
    )


def _entry_operations() -> Toolkit:
    """pi-memory-auto: the one-shot review, and its operations as the dream's tools."""
    from functools import partial

    from pi_memory.jobs.dream_categories import CategoriesStaging, tool_specs
    from pi_memory.jobs.review_once import review_once
    from pi_memory.model.prompts import fill, load

    def system(layer: str, rounds: int) -> str:
        return fill(load("dream_categories"), max_turns=str(rounds), layer=layer)

    return Toolkit(
        review=partial(review_once, handoff=False),
        staging=CategoriesStaging,
        dream_tools=tool_specs,
        dream_system=system,
    )


#: Each toolkit a layout may declare, by its name in :mod:`pi_memory.layouts.protocol`.
TOOLKITS: Mapping[str, Callable[[], Toolkit]] = {
    MEMORY_TOOL: _memory_tool,
    ENTRY_OPERATIONS: _entry_operations,
}
