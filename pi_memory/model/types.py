"""The plain records every caller of the model client speaks: messages, tools, replies."""

from __future__ import annotations

from collections.abc import Mapping

from pi_memory.named_tuple import NamedTuple


class ToolCall(NamedTuple):
    """One call the model asked for; ``id`` is echoed back in the tool result's message."""

    id: str
    name: str
    arguments: Mapping[str, object]


class Message(NamedTuple):
    """One turn of the conversation sent to the model.

    ``role`` is ``user``, ``assistant`` or ``tool``. An assistant turn that called
    tools carries them in ``tool_calls``; a ``tool`` turn answers the call named by
    ``tool_call_id`` with ``content``.
    """

    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""


class ToolSpec(NamedTuple):
    """A tool the model may call: ``parameters`` is a JSON Schema object."""

    name: str
    description: str
    parameters: Mapping[str, object]


class Reply(NamedTuple):
    """A complete answer: text and/or tool calls, why it stopped, what it cost."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    #: ``end`` (finished) or ``tool_use`` (wants its tool calls answered).
    stop: str
    tokens_in: int
    tokens_out: int
    #: The ``provider/id`` name the reply came from.
    model: str
