"""Chat Completions (OpenAI and every compatible server: Ollama, vLLM, llama.cpp, …).

Pure: a request body from plain records, a :class:`Parsed` from the decoded reply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from pi_memory.model.types import Message, ToolCall
from pi_memory.model.wire import (
    CUT,
    REFUSED,
    THINK_EFFORT,
    Ask,
    Parsed,
    checked,
    count,
    malformed,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def endpoint(base_url: str) -> str:
    """``baseUrl`` is the API root with its version, as the SDKs take it (``…/v1``)."""
    return base_url.rstrip("/") + "/chat/completions"


def headers(key: str) -> dict[str, str]:
    out = {"Content-Type": "application/json", "Accept": "application/json"}
    if key:
        out["Authorization"] = f"Bearer {key}"
    return out


def request_body(ask: Ask) -> dict[str, Any]:
    model_id, system, messages, tools, max_tokens, think = ask
    wire: list[dict[str, Any]] = []
    if system:
        wire.append({"role": "system", "content": system})
    for message in messages:
        wire.append(_message(message))
    body: dict[str, Any] = {"model": model_id, "messages": wire, "max_tokens": max_tokens}
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": dict(tool.parameters),
                },
            }
            for tool in tools
        ]
    effort = THINK_EFFORT.get(think)
    if effort:
        body["reasoning_effort"] = effort
    body["stream"] = False
    return body


def _message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(dict(call.arguments), ensure_ascii=False),
                },
            }
            for call in message.tool_calls
        ]
    return out


def parse_reply(data: object) -> Parsed:
    if not isinstance(data, Mapping):
        return malformed("the reply is not a JSON object")
    usage = data.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    tin, tout = count(usage.get("prompt_tokens")), count(usage.get("completion_tokens"))
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        said = error_message(data)  # some routers answer 200 with an error body
        return malformed(f"the provider said: {said}" if said else "the reply has no choices")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, Mapping):
        return malformed("the reply's choice has no message", tin, tout)
    finish = choice.get("finish_reason")
    text = _without_thinking(_text(message.get("content")))
    calls: list[ToolCall] = []
    for raw in message.get("tool_calls") or ():
        call = _tool_call(raw)
        if call is None:
            return malformed("a tool call is malformed", tin, tout)
        calls.append(call)
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        return Parsed(text, (), "", tin, tout, REFUSED, refusal.strip())
    if finish == "content_filter":
        return Parsed(text, (), "", tin, tout, REFUSED, "the provider's content filter")
    if finish == "length":
        return Parsed(text, (), "", tin, tout, CUT, "the reply hit max_tokens")
    stop = "tool_use" if calls else "end"
    return checked(Parsed(text, tuple(calls), stop, tin, tout))


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # a list of parts, as some servers answer
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") in ("text", "output_text")
        )
    return ""


def _without_thinking(text: str) -> str:
    """Local reasoning models (Qwen3, DeepSeek-R1 on Ollama, llama.cpp) may put their
    thinking inline as a leading ``<think>…</think>``; the answer is what follows."""
    stripped = text.lstrip()
    if not stripped.startswith("<think>"):
        return text
    end = stripped.find("</think>")
    return "" if end < 0 else stripped[end + len("</think>") :].lstrip()


def _tool_call(raw: object) -> ToolCall | None:
    if not isinstance(raw, Mapping):
        return None
    function = raw.get("function")
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        return None
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return None
    if not isinstance(arguments, Mapping):
        return None
    return ToolCall(str(raw.get("id") or ""), function["name"], dict(arguments))


def relax(body: Mapping[str, Any], message: str) -> dict[str, Any] | None:
    """The body without the optional field a 400 complained about, or None.

    Servers differ: a model without reasoning rejects ``reasoning_effort``, and
    OpenAI's newer models want ``max_completion_tokens`` instead of ``max_tokens``.
    """
    said = message.lower()
    if "reasoning_effort" in body and "reasoning" in said:
        return {k: v for k, v in body.items() if k != "reasoning_effort"}
    if "max_tokens" in body and "max_completion_tokens" in said:
        return {("max_completion_tokens" if k == "max_tokens" else k): v for k, v in body.items()}
    return None


def error_message(data: object) -> str:
    """The provider's own words from an error body (``{"error": {"message": …}}``)."""
    if isinstance(data, Mapping):
        error = data.get("error")
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return ""
