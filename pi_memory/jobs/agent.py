"""A headless agent: the model calls tools, the code answers, for a bounded number of rounds.

The extract-memories agent and the dream both run here. Tools are answered by
a :class:`Staging` (see :mod:`pi_memory.jobs.staging`): nothing is written
while the model works, so a model that stops answering half-way leaves the
store exactly as it was; the caller commits the staged actions afterwards.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from pi_memory.config.schema import Config
    from pi_memory.model.types import ToolCall, ToolSpec


class AgentRun(NamedTuple):
    #: The model's last text (its summary).
    text: str
    #: Rounds of tool calls answered.
    rounds: int
    #: True when the round limit stopped a model that still wanted tools.
    cut: bool


def run_agent(
    config: Config,
    task: str,
    *,
    job: str,
    system: str,
    prompt: str,
    tools: Sequence[ToolSpec],
    answer: Callable[[ToolCall], str],
    max_rounds: int,
    seconds: float,
    background: bool,
    env: Mapping[str, str] | None = None,
) -> AgentRun:
    """Talk to the model until it answers without tool calls, or ``max_rounds`` are used.

    Raises the model client's errors (the caller's store is untouched by then).
    """
    from pi_memory.model.client import chat
    from pi_memory.model.errors import ModelUnavailable
    from pi_memory.model.types import Message

    deadline = time.monotonic() + seconds
    messages = [Message("user", prompt)]
    rounds = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ModelUnavailable(f"{job} ran out of its {seconds:g} s")
        reply = chat(
            config,
            task,
            messages,
            system=system,
            tools=tools if rounds < max_rounds else (),
            job=job,
            background=background,
            timeout=left,
            env=env,
        )
        if not reply.tool_calls:
            return AgentRun(reply.text.strip(), rounds, False)
        if rounds >= max_rounds:
            return AgentRun(reply.text.strip(), rounds, True)
        rounds += 1
        messages.append(Message("assistant", reply.text, reply.tool_calls))
        for call in reply.tool_calls:
            messages.append(Message("tool", _capped(answer(call)), tool_call_id=call.id))


def _capped(text: str) -> str:
    """A tool's answer as the model reads it: at most ``TOOL_RESULT_MAX_BYTES``, as the
    agent tools answer the host's model."""
    from pi_memory.config.defaults import TOOL_RESULT_MAX_BYTES
    from pi_memory.memory_size import clipped

    return clipped(text, TOOL_RESULT_MAX_BYTES, "ask for less: a narrower search")


def arguments_text(arguments: Mapping[str, object]) -> str:
    return json.dumps(dict(arguments), ensure_ascii=False, sort_keys=True)
