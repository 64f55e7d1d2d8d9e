"""Anthropic Messages. Pure: a request body from plain records, a :class:`Parsed` back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_memory.model.types import Message, ToolCall
from pi_memory.model.wire import (
    CUT,
    REFUSED,
    THINK_BUDGET,
    Ask,
    Parsed,
    checked,
    count,
    malformed,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

VERSION: Final = "2023-06-01"
#: The smallest thinking budget the API accepts.
MIN_THINKING: Final = 1024


def endpoint(base_url: str) -> str:
    """``baseUrl`` is the host root, as ``ANTHROPIC_BASE_URL`` (a trailing ``/v1`` is accepted)."""
    root = base_url.rstrip("/")
    return root + ("/messages" if root.endswith("/v1") else "/v1/messages")


def headers(key: str) -> dict[str, str]:
    out = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "anthropic-version": VERSION,
    }
    if key:
        out["x-api-key"] = key
    return out


def request_body(ask: Ask) -> dict[str, Any]:
    model_id, system, messages, tools, max_tokens, think = ask
    body: dict[str, Any] = {"model": model_id, "max_tokens": max_tokens}
    if system:
        body["system"] = system
    body["messages"] = _messages(messages)
    if tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
            for t in tools
        ]
    # Thinking counts against max_tokens: at most half of it, so the answer has room.
    budget = min(THINK_BUDGET.get(think, 0), max_tokens // 2)
    # A tool loop would have to send the thinking blocks back; our records do not keep
    # them, so thinking is asked for only before the first tool call.
    replays_tools = any(m.tool_calls for m in messages)
    if budget >= MIN_THINKING and not replays_tools:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return body


def _messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Roles alternate on this API: tool results and the user's next words share one turn."""
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message.content,
            }
            last = wire[-1] if wire else None
            if last and last["role"] == "user" and isinstance(last["content"], list):
                last["content"].append(block)
            else:
                wire.append({"role": "user", "content": [block]})
            continue
        if message.tool_calls:
            blocks: list[dict[str, Any]] = []
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks.extend(
                {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
                for c in message.tool_calls
            )
            wire.append({"role": message.role, "content": blocks})
        elif wire and wire[-1]["role"] == message.role == "user":
            # After tool results: one user turn, results first, then the text.
            last = wire[-1]
            if isinstance(last["content"], str):
                last["content"] = [{"type": "text", "text": last["content"]}]
            last["content"].append({"type": "text", "text": message.content})
        else:
            wire.append({"role": message.role, "content": message.content})
    return wire


def parse_reply(data: object) -> Parsed:
    if not isinstance(data, Mapping) or data.get("type") not in ("message", None):
        return malformed("the reply is not a message")
    usage = data.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    tin = (
        count(usage.get("input_tokens"))
        + count(usage.get("cache_creation_input_tokens"))
        + count(usage.get("cache_read_input_tokens"))
    )
    tout = count(usage.get("output_tokens"))
    content = data.get("content")
    if not isinstance(content, list):
        return malformed("the reply has no content", tin, tout)
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in content:
        if not isinstance(block, Mapping):
            return malformed("a content block is malformed", tin, tout)
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            name, arguments = block.get("name"), block.get("input")
            if not isinstance(name, str) or not isinstance(arguments, Mapping):
                return malformed("a tool call is malformed", tin, tout)
            calls.append(ToolCall(str(block.get("id") or ""), name, dict(arguments)))
    text = "".join(texts)
    stop = data.get("stop_reason")
    if stop == "max_tokens":
        return Parsed(text, (), "", tin, tout, CUT, "the reply hit max_tokens")
    if stop == "refusal":
        return Parsed(text, (), "", tin, tout, REFUSED, "the model refused")
    if stop not in ("end_turn", "tool_use", "stop_sequence"):
        return malformed(f"unexpected stop_reason {stop!r}", tin, tout)
    return checked(Parsed(text, tuple(calls), "tool_use" if calls else "end", tin, tout))


def relax(body: Mapping[str, Any], message: str) -> dict[str, Any] | None:
    """The body without ``thinking`` when a 400 says the model does not take it, else None."""
    if "thinking" in body and "thinking" in message.lower():
        return {k: v for k, v in body.items() if k != "thinking"}
    return None


def error_message(data: object) -> str:
    """``{"type": "error", "error": {"type": …, "message": …}}``."""
    if isinstance(data, Mapping):
        error = data.get("error")
        if isinstance(error, Mapping):
            kind, message = error.get("type"), error.get("message")
            return ": ".join(str(part) for part in (kind, message) if isinstance(part, str))
    return ""
