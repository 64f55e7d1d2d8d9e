"""pi's session file (``~/.pi/agent/sessions/<dir>/<time>_<id>.jsonl``).

The first line is the ``session`` header; every other line is an entry with
``id`` and ``parentId``, so a session is a tree: going back and branching
appends entries whose parent is an earlier one. The conversation is the live
branch, walked from the last entry back to the root. ``message`` entries hold
``user``, ``assistant`` (text, thinking, ``toolCall`` parts) and
``toolResult`` messages; ``custom_message`` entries are what extensions
injected (ours among them), and ``compaction`` / ``branch_summary`` entries
are summaries. Only messages are the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_memory.transcripts import ASSISTANT, TOOL, USER, Reader, Turn
from pi_memory.transcripts.own_context import strip_injected
from pi_memory.transcripts.parts import call_summary, json_lines, string, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final


def live_branch(text: str) -> list[dict[str, Any]]:
    """The entries from the root to the last one, following ``parentId``."""
    entries = [
        r for r in json_lines(text) if isinstance(r.get("id"), str) and r.get("type") != "session"
    ]
    if not entries:
        return []
    by_id = {e["id"]: e for e in entries}
    branch: list[dict[str, Any]] = []
    seen: set[str] = set()
    node: dict[str, Any] | None = entries[-1]
    while node is not None and node["id"] not in seen:
        seen.add(node["id"])
        branch.append(node)
        parent = node.get("parentId")
        node = by_id.get(parent) if isinstance(parent, str) else None
    branch.reverse()
    return branch


def read_pi(text: str) -> list[Turn]:
    turns: list[Turn] = []
    for entry in live_branch(text):
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            continue
        stamp = string(entry.get("timestamp"))
        role = message.get("role")
        if role == USER:
            piece = strip_injected(text_of(message.get("content")))
            if piece:
                turns.append(Turn(len(turns), USER, piece, timestamp=stamp))
        elif role == ASSISTANT:
            _add_assistant(turns, message.get("content"), stamp)
        elif role == "toolResult":
            output = strip_injected(text_of(message.get("content")))
            name = string(message.get("toolName"))
            error = message.get("isError") is True
            turns.append(Turn(len(turns), TOOL, output, (), name, error, stamp))
    return turns


def _add_assistant(turns: list[Turn], content: object, stamp: str) -> None:
    parts = content if isinstance(content, list) else [content]
    texts: list[str] = []
    calls: list[str] = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "toolCall":
            calls.append(call_summary(part.get("name"), part.get("arguments")))
        else:
            piece = strip_injected(text_of([part]))
            if piece:
                texts.append(piece)
    if texts or calls:
        turns.append(Turn(len(turns), ASSISTANT, "\n\n".join(texts), tuple(calls), timestamp=stamp))


def recognises(record: Mapping[str, object]) -> bool:
    return record.get("type") == "session" and "version" in record


def header(record: Mapping[str, object]) -> tuple[str, str]:
    """The session header's id and directory."""
    if record.get("type") != "session":
        return "", ""
    return string(record.get("id")), string(record.get("cwd"))


READER: Final = Reader(read_pi, recognises, header)
