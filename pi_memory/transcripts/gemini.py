"""Gemini CLI's chat recording (``~/.gemini/tmp/<project>/chats/session-….json``).

One JSON object: ``sessionId``, ``startTime``, ``messages``. A message is
``{"id", "timestamp", "type", "content"}`` with ``type`` ``user`` or
``gemini`` (``info``, ``error``, ``warning`` are the UI's notes); a
``gemini`` message may carry ``toolCalls``, each with its ``args`` and its
``result`` (function-response parts) and a ``status``. ``content`` is a
string, or a list of parts in newer versions. A file of one message record
per line is read the same way.
"""

from __future__ import annotations

import json
from typing import Any

from pi_memory.transcripts import ASSISTANT, TOOL, USER, Turn
from pi_memory.transcripts.own_context import strip_injected
from pi_memory.transcripts.parts import call_summary, json_lines, string, text_of


def messages(text: str) -> list[dict[str, Any]]:
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return [m for m in document["messages"] if isinstance(m, dict)]
    return [r for r in json_lines(text) if r.get("type") in (USER, "gemini")]


def read_gemini(text: str) -> list[Turn]:
    turns: list[Turn] = []
    for message in messages(text):
        kind = message.get("type")
        stamp = string(message.get("timestamp"))
        piece = strip_injected(text_of(message.get("content")))
        if kind == USER:
            if piece:
                turns.append(Turn(len(turns), USER, piece, timestamp=stamp))
            continue
        if kind != "gemini":
            continue
        calls = [c for c in message.get("toolCalls") or () if isinstance(c, dict)]
        summaries = tuple(call_summary(c.get("name"), c.get("args")) for c in calls)
        if piece or summaries:
            turns.append(Turn(len(turns), ASSISTANT, piece, summaries, timestamp=stamp))
        for call in calls:
            output = strip_injected(_result_text(call))
            error = call.get("status") in ("error", "cancelled")
            name = string(call.get("name"))
            turns.append(
                Turn(len(turns), TOOL, output, (), name, error, string(call.get("timestamp")))
            )
    return turns


def _result_text(call: dict[str, Any]) -> str:
    """A tool's output: the function responses of ``result``, else what the UI showed."""
    result = call.get("result")
    parts = result if isinstance(result, list) else [result]
    pieces: list[str] = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(part)
            continue
        if not isinstance(part, dict):
            continue
        response = part.get("functionResponse")
        if isinstance(response, dict) and isinstance(response.get("response"), dict):
            body = response["response"]
            value = body.get("output", body.get("error", body.get("content")))
            pieces.append(
                value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            )
        elif isinstance(part.get("text"), str):
            pieces.append(part["text"])
    text = "\n".join(p for p in pieces if p)
    return text or string(call.get("resultDisplay"))
