"""A store sequence's messages: a turn of the conversation, as pi records it, which the
extract agent reads in the design's structured rendering.

A sequence of ``MemoryStore`` operations may hold messages beside the store's own
operations: ``{"op": "tool_result", "content": …, "isError": …}`` (adding a tool
result), ``{"op": "user" | "assistant", …}``, ``{"op": "tool_call", "name", "arguments"}``,
or a pi message as it is (``{"role": "toolResult", …}``). They are written as a real
pi session file and read back by pi's transcript reader, then rendered by
:func:`pi_memory.transcripts.render.structured` under the case's
``extractMemories`` limits::

    [2] assistant: <text> | tool_call: memory({"action":"list"})
    [3] tool_result: <summary, cut at maxToolResultChars>
"""

from __future__ import annotations

import json
import re
from typing import Any

from pi_memory.config import defaults as d
from tests.conformance import Unmapped

#: How a message kind may be spelled in an op (case, ``_``, ``-``, spaces and an
#: ``add``/``append`` verb aside).
_KINDS = {
    "toolresult": "toolResult",
    "toolresultmessage": "toolResult",
    "tool": "toolResult",
    "user": "user",
    "usermessage": "user",
    "assistant": "assistant",
    "assistantmessage": "assistant",
    "toolcall": "toolCall",
}


def message_kind(op: dict[str, Any]) -> str | None:
    """``toolResult``, ``user``, ``assistant`` or ``toolCall`` for a message; None otherwise."""
    if "role" in op:
        role = str(op["role"])
        return _KINDS.get(re.sub(r"[^a-z]", "", role.lower()), role)
    for key in ("kind", "type", "op"):  # ``{"op": "add", "type": "tool_result"}`` too
        squashed = re.sub(r"[^a-z]", "", str(op.get(key, "")).lower())
        found = _KINDS.get(re.sub(r"^(add|append)", "", squashed))
        if found is not None and not (key == "type" and squashed == "user"):
            return found
    return None


def _text(op: dict[str, Any]) -> Any:
    for key in ("content", "text", "output", "result", "body"):
        if key in op:
            return op[key]
    raise Unmapped(f"a message without its text: {sorted(op)}")


def _call(raw: Any) -> dict[str, Any]:
    if isinstance(raw, str):
        name, _, args = raw.partition(" ")
        return {"type": "toolCall", "name": name, "arguments": json.loads(args or "{}")}
    arguments = next((raw[k] for k in ("arguments", "args", "input") if k in raw), {})
    return {"type": "toolCall", "name": raw["name"], "arguments": arguments}


def pi_message(op: dict[str, Any], kind: str) -> dict[str, Any]:
    """The op as the message pi appends to its session."""
    if "role" in op and not {"op"} & set(op):
        return {key: op[key] for key in op}
    if kind == "toolCall":
        return {"role": "assistant", "content": [_call(op)]}
    if kind == "assistant":
        calls = next((op[k] for k in ("toolCalls", "tool_calls", "calls") if k in op), [])
        text = _text(op) if {"content", "text", "body"} & set(op) else ""
        parts = [{"type": "text", "text": text}] if isinstance(text, str) and text else []
        parts = text if isinstance(text, list) else parts
        return {"role": "assistant", "content": [*parts, *(_call(c) for c in calls)]}
    if kind == "user":
        return {"role": "user", "content": _text(op)}
    error = next((op[k] for k in ("isError", "is_error", "error") if k in op), False)
    name = next((op[k] for k in ("toolName", "tool_name", "tool", "name") if k in op), "")
    return {"role": "toolResult", "toolName": name, "content": _text(op), "isError": error}


def _limit(config: dict[str, Any], key: str, default: int) -> int:
    section = config.get("extractMemories") or {}
    value = section.get(key, config.get(key, default))
    return int(value)


def rendered(messages: list[dict[str, Any]], config: dict[str, Any]) -> str:
    """The conversation as the extract agent reads it, through pi's transcript reader."""
    from pi_memory.transcripts.pi import read_pi
    from pi_memory.transcripts.render import structured

    lines = [json.dumps({"type": "session", "version": 3, "id": "s", "cwd": "/p"})]
    parent = None
    for n, message in enumerate(messages):
        entry = {"type": "message", "id": f"m{n}", "parentId": parent, "message": message}
        lines.append(json.dumps(entry, ensure_ascii=False))
        parent = f"m{n}"
    turns = read_pi("\n".join(lines) + "\n")
    tokens = _limit(config, "maxContextTokens", d.EXTRACT_MAX_CONTEXT_TOKENS)
    return structured(
        turns,
        max_chars=tokens * 4,
        max_tool_result_chars=_limit(config, "maxToolResultChars", d.EXTRACT_MAX_TOOL_RESULT_CHARS),
        max_assistant_chars=_limit(config, "maxAssistantChars", d.EXTRACT_MAX_ASSISTANT_CHARS),
    )


HEADER = "=== Conversation ===\n"


def check(text: str, expected: dict[str, Any]) -> None:
    """The rendering against what the case expects of it: the whole text (with or without
    its header), its lines, or parts it contains."""
    for key in ("rendered", "rendering", "transcript", "conversation"):
        if key in expected:
            want = expected[key]
            if isinstance(want, list):
                want = "\n".join(want)
            assert text == want or text.removeprefix(HEADER) == want, (text, want)
    if "lines" in expected:
        assert text.removeprefix(HEADER).split("\n") == expected["lines"], text
    for part in expected.get("contains", []):
        assert part in text, (part, text)
    for part in expected.get("not_contains", []):
        assert part not in text, (part, text)


EXPECTATIONS = frozenset(
    {"rendered", "rendering", "transcript", "conversation", "lines", "contains", "not_contains"}
)
