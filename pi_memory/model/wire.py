"""What both wire formats share: the parsed reply record and small readers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_memory.model.types import Message, ToolCall, ToolSpec
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: Why a reply cannot be used: ``""`` (it can), or one of these.
CUT: Final = "cut"
REFUSED: Final = "refused"
EMPTY: Final = "empty"
MALFORMED: Final = "malformed"

#: pi-memory's think levels → Anthropic thinking budget (tokens); ``off`` sends none.
THINK_BUDGET: Final[Mapping[str, int]] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 32768,
}
#: pi-memory's think levels → Chat Completions ``reasoning_effort``; ``off`` sends none.
THINK_EFFORT: Final[Mapping[str, str]] = {
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
}


class Ask(NamedTuple):
    """One request, already redacted, in the terms both wire formats share."""

    model_id: str
    system: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    max_tokens: int
    #: pi-memory's think level (``off`` … ``xhigh``).
    think: str


class Parsed(NamedTuple):
    text: str
    tool_calls: tuple[ToolCall, ...]
    #: ``end`` or ``tool_use``.
    stop: str
    tokens_in: int
    tokens_out: int
    #: ``""`` when usable, else CUT / REFUSED / EMPTY / MALFORMED.
    problem: str = ""
    #: What the provider said, for the one-line error.
    detail: str = ""


def malformed(detail: str, tokens_in: int = 0, tokens_out: int = 0) -> Parsed:
    return Parsed("", (), "", tokens_in, tokens_out, MALFORMED, detail)


def count(value: object) -> int:
    """A token count from a usage field; anything odd counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def checked(parsed: Parsed) -> Parsed:
    """An otherwise fine reply with neither text nor tool calls is empty."""
    if not parsed.problem and not parsed.text.strip() and not parsed.tool_calls:
        return parsed._replace(problem=EMPTY, detail="the reply was empty")
    return parsed
