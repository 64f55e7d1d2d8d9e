"""Gemini CLI's chat recording (``~/.gemini/tmp/<project>/chats/session-….json``).

One JSON object: ``sessionId``, ``startTime``, ``messages``. A message is
``{"id", "timestamp", "type", "content"}`` with ``type`` ``user`` or
``gemini`` (``info``, ``error``, ``warning`` are the UI's notes); a
``gemini`` message may carry ``toolCalls``, each with its ``args`` and its
``result`` (function-response parts) and a ``status``. ``content`` is a
string, or a list of parts in newer versions.

Gemini CLI 0.61 appends records to ``session-….jsonl`` instead: a header, a
message record per message, and again whenever a message changes (a reply
is recorded first without, then with its ``toolCalls``: the same ``id``), a
``{"$rewindTo": id}`` that removes that message and everything after it, and
``{"$set": {...}}`` updates. ``$set.messages`` is the CLI's own view of the
history (its context preamble, a compression's summary), not something said,
so only message records count: each once, at its first place, as last written.
A ``{"$set": {"sessionId"}}`` after the first prompt means the CLI started a
new chat on this recording, which is what a compression does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from pi_memory.transcripts import ASSISTANT, TOOL, USER, Reader, Turn
from pi_memory.transcripts.own_context import strip_injected
from pi_memory.transcripts.parts import call_summary, json_lines, string, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final


def messages(text: str) -> list[dict[str, Any]]:
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return [m for m in document["messages"] if isinstance(m, dict)]
    latest: dict[str, dict[str, Any]] = {}
    for record in json_lines(text):
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str) and rewind in latest:
            ids = list(latest)
            for gone in ids[ids.index(rewind) :]:
                del latest[gone]
        elif record.get("type") in (USER, "gemini"):
            key = record.get("id")
            latest[key if isinstance(key, str) else f"#{len(latest)}"] = record
    return list(latest.values())


def restarted(text: str) -> bool:
    """Whether ``text``, records appended after a prompt, begins a new chat (a compression)."""
    for record in json_lines(text):
        update = record.get("$set")
        if isinstance(update, dict) and "sessionId" in update:
            return True
    return False


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


def recognises(record: Mapping[str, object]) -> bool:
    """A whole session document (before 0.61), or one of its appended records."""
    if isinstance(record.get("messages"), list):
        return True
    kind = record.get("type")
    return kind == "gemini" or (kind == USER and "content" in record and "message" not in record)


def header(record: Mapping[str, object]) -> tuple[str, str]:
    return string(record.get("sessionId")), string(record.get("cwd"))


def project_beside(path: Path) -> str:
    """Newer Gemini CLI names its project's directory in ``<project>/.project_root``."""
    try:
        return (path.parent.parent / ".project_root").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


READER: Final = Reader(read_gemini, recognises, header, project_beside)
