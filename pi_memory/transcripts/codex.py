"""Codex CLI's rollout file (``~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl``).

One JSON record per line, ``{"timestamp", "type", "payload"}``. The
conversation is in the ``response_item`` records: ``message`` (user /
assistant; ``developer`` and ``system`` ones are instructions),
``function_call`` / ``custom_tool_call`` / ``local_shell_call`` and their
``…_output`` records. ``event_msg`` repeats the same messages for the UI and
is skipped. A local compaction records the summary the model wrote as an
assistant ``message`` and then a ``compacted`` record whose ``message`` ends
with that same text: the summary is the host's, so that message is dropped
too. Older rollouts wrote the items bare, without the envelope; those are
read too.

The user messages Codex makes itself (``<environment_context>``,
``<user_instructions>``, the ``AGENTS.md`` instructions) are not the user's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from pi_memory.transcripts import ASSISTANT, TOOL, USER, Reader, Turn
from pi_memory.transcripts.own_context import strip_injected
from pi_memory.transcripts.parts import call_summary, json_lines, string, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

ITEM_TYPES: Final = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "web_search_call",
    }
)
_HOST_SPANS: Final = re.compile(
    r"<(environment_context|user_instructions|turn_aborted)\b[^>]*>.*?</\1>", re.DOTALL
)
_AGENTS_MD: Final = "# AGENTS.md instructions for "
_TEXT_TYPES: Final = ("input_text", "output_text", "text")


def items(text: str) -> list[tuple[str, dict[str, Any]]]:
    """``(timestamp, item)`` of every conversation item, enveloped or bare."""
    found: list[tuple[str, dict[str, Any]]] = []
    for record in json_lines(text):
        stamp = string(record.get("timestamp"))
        payload = record.get("payload")
        if record.get("type") == "response_item" and isinstance(payload, dict):
            found.append((stamp, payload))
        elif record.get("type") == "compacted" and isinstance(payload, dict):
            if found and _is_summary(found[-1][1], string(payload.get("message"))):
                found.pop()
        elif record.get("type") in ITEM_TYPES and "payload" not in record:
            found.append((stamp, record))
    return found


def _is_summary(item: dict[str, Any], compacted: str) -> bool:
    """Whether ``item`` is the assistant message a ``compacted`` record repeats."""
    if item.get("type") != "message" or item.get("role") != ASSISTANT:
        return False
    text = text_of(item.get("content"), _TEXT_TYPES).strip()
    return bool(text) and compacted.rstrip().endswith(text)


def read_codex(text: str) -> list[Turn]:
    turns: list[Turn] = []
    tool_names: dict[str, str] = {}
    for stamp, item in items(text):
        kind = item.get("type")
        if kind == "message":
            _add_message(turns, item, stamp)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            name, args = _call(item)
            tool_names[string(item.get("call_id"))] = name
            summary = call_summary(name, args)
            if turns and turns[-1].role == ASSISTANT:
                turns[-1] = turns[-1]._replace(tool_calls=(*turns[-1].tool_calls, summary))
            else:
                turns.append(Turn(len(turns), ASSISTANT, "", (summary,), timestamp=stamp))
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            output, error = _output(item.get("output"))
            name = tool_names.get(string(item.get("call_id")), "")
            turns.append(Turn(len(turns), TOOL, strip_injected(output), (), name, error, stamp))
    return turns


def _add_message(turns: list[Turn], item: dict[str, Any], stamp: str) -> None:
    role = item.get("role")
    if role not in (USER, ASSISTANT):
        return  # developer / system: instructions, not conversation
    raw = text_of(item.get("content"), _TEXT_TYPES)
    if role == USER:
        if raw.lstrip().startswith(_AGENTS_MD):
            return
        raw = _HOST_SPANS.sub("", raw)
    piece = strip_injected(raw)
    if piece:
        turns.append(Turn(len(turns), role, piece, timestamp=stamp))


def _call(item: dict[str, Any]) -> tuple[str, object]:
    kind = item.get("type")
    if kind == "local_shell_call":
        action = item.get("action")
        return "local_shell", action.get("command") if isinstance(action, dict) else None
    if kind == "web_search_call":
        action = item.get("action")
        return "web_search", action.get("query") if isinstance(action, dict) else None
    args = item.get("arguments") if kind == "function_call" else item.get("input")
    return string(item.get("name")) or "tool", args


def _output(output: object) -> tuple[str, bool]:
    """The text of a tool output and whether it failed.

    ``function_call_output`` holds a string, often itself JSON with ``output``
    and ``metadata.exit_code``; newer rollouts hold ``{"content", "success"}``.
    """
    if isinstance(output, str):
        try:
            decoded = json.loads(output)
        except ValueError:
            return output, False
        if not isinstance(decoded, dict) or "output" not in decoded:
            return output, False
        output = decoded
    if not isinstance(output, dict):
        return "", False
    body = output.get("output", output.get("content"))
    meta = output.get("metadata")
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    failed = output.get("success") is False or (isinstance(code, int) and code != 0)
    return text_of(body, _TEXT_TYPES) if not isinstance(body, str) else body, failed


_ENVELOPES: Final = frozenset({"session_meta", "response_item", "turn_context", "event_msg"})


def recognises(record: Mapping[str, object]) -> bool:
    kind = record.get("type")
    if kind in _ENVELOPES and "payload" in record:
        return True
    return kind == "message" and "role" in record and "payload" not in record  # before the envelope


def header(record: Mapping[str, object]) -> tuple[str, str]:
    """The ``session_meta`` record's id and directory."""
    meta = record.get("payload")
    if record.get("type") != "session_meta" or not isinstance(meta, Mapping):
        return "", ""
    return string(meta.get("id")), string(meta.get("cwd"))


READER: Final = Reader(read_codex, recognises, header)
