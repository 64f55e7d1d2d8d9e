"""Claude Code's session transcript (``~/.claude/projects/<dir>/<session>.jsonl``).

One JSON record per line. The conversation is in the ``user`` and
``assistant`` records on the live branch (``parentUuid`` from the last
message back to the root, across a compaction's ``logicalParentUuid``); the
others (attachments such as hook output, API request logs, queue and cost
records) are the host's bookkeeping. One assistant reply is streamed as
several records that share ``message.id`` and are merged back into one turn.
Sub-agent records (``isSidechain``), host-made user records (``isMeta``) and
compaction summaries are not the conversation and are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_memory.transcripts import ASSISTANT, TOOL, USER, Reader, Turn
from pi_memory.transcripts.own_context import strip_injected
from pi_memory.transcripts.parts import call_summary, json_lines, string, text_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

_SKIP_FLAGS = ("isSidechain", "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly")


def read_claude_code(text: str) -> list[Turn]:
    records = [r for r in json_lines(text) if r.get("type") in (USER, ASSISTANT)]
    records = _live_branch(list(json_lines(text)), records)
    turns: list[Turn] = []
    tool_names: dict[str, str] = {}
    merged_from: dict[str, int] = {}  # message.id → index of its turn in ``turns``
    for record in records:
        if any(record.get(flag) is True for flag in _SKIP_FLAGS):
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        stamp = string(record.get("timestamp"))
        if record["type"] == ASSISTANT:
            _add_assistant(turns, merged_from, tool_names, message, stamp)
        else:
            _add_user(turns, tool_names, message.get("content"), stamp)
    return [turn._replace(position=i) for i, turn in enumerate(turns)]


def _live_branch(
    every: Sequence[dict[str, Any]], messages: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The messages on the path from the last message back to the root, in file order.

    A file without ``uuid`` links (an older or hand-made transcript) is read whole.
    """
    by_uuid = {r["uuid"]: r for r in every if isinstance(r.get("uuid"), str)}
    leaf = next((r for r in reversed(messages) if isinstance(r.get("uuid"), str)), None)
    if leaf is None:
        return messages
    on_branch: set[str] = set()
    node: dict[str, Any] | None = leaf
    while node is not None and node["uuid"] not in on_branch:
        on_branch.add(node["uuid"])
        parent = node.get("parentUuid") or node.get("logicalParentUuid")
        node = by_uuid.get(parent) if isinstance(parent, str) else None
    return [r for r in messages if r.get("uuid") in on_branch or "uuid" not in r]


def _add_assistant(
    turns: list[Turn],
    merged_from: dict[str, int],
    tool_names: dict[str, str],
    message: dict[str, Any],
    stamp: str,
) -> None:
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": string(content)}]
    texts: list[str] = []
    calls: list[str] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            piece = strip_injected(string(block.get("text")))
            if piece:
                texts.append(piece)
        elif block.get("type") == "tool_use":
            name = string(block.get("name"))
            tool_names[string(block.get("id"))] = name
            calls.append(call_summary(name, block.get("input")))
    message_id = string(message.get("id"))
    if message_id and message_id in merged_from:
        at = merged_from[message_id]
        old = turns[at]
        new_texts = [t for t in texts if t not in old.text.split("\n\n")]
        text = "\n\n".join(t for t in [old.text, *new_texts] if t)
        extra = tuple(c for c in calls if c not in old.tool_calls)
        turns[at] = old._replace(text=text, tool_calls=old.tool_calls + extra)
        return
    if not texts and not calls:
        return
    if message_id:
        merged_from[message_id] = len(turns)
    turns.append(Turn(len(turns), ASSISTANT, "\n\n".join(texts), tuple(calls), timestamp=stamp))


def _add_user(turns: list[Turn], tool_names: dict[str, str], content: object, stamp: str) -> None:
    blocks = content if isinstance(content, list) else [content]
    texts: list[str] = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            output = strip_injected(text_of(block.get("content")))
            name = tool_names.get(string(block.get("tool_use_id")), "")
            error = block.get("is_error") is True
            turns.append(Turn(len(turns), TOOL, output, (), name, error, stamp))
        else:
            piece = strip_injected(text_of([block]))
            if piece:
                texts.append(piece)
    if texts:
        turns.append(Turn(len(turns), USER, "\n\n".join(texts), timestamp=stamp))


_TYPES: Final = frozenset({"user", "assistant", "attachment", "queue-operation", "summary"})


def recognises(record: Mapping[str, object]) -> bool:
    return record.get("type") in _TYPES and "sessionId" in record


def header(record: Mapping[str, object]) -> tuple[str, str]:
    return string(record.get("sessionId")), string(record.get("cwd"))


READER: Final = Reader(read_claude_code, recognises, header)
