"""Turns rendered as the text a model reviews; pure.

Two renderings, one per reference design:

- :func:`serialize` is pi-memory-auto's review transcript: one labelled line per
  message (``[User]:``, ``[Assistant]:``, ``[Assistant tool calls]:``,
  ``[Tool result]:``), so the model sees what was done, not only what was
  said; :func:`keep_tail` then caps it keeping the end.
- :func:`structured` is pi-memory's rendering of a whole turn for the extract
  agent: numbered messages, user text never cut, assistant text and tool
  results cut to their limits, and over the total budget the middle goes
  first, user messages last.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_memory.transcripts import ASSISTANT, TOOL, USER, Turn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: Characters of one tool result kept in the review transcript.
TOOL_RESULT_CHARS: Final = 2000
#: pi-memory-auto: the review transcript keeps its last 60,000 characters.
REVIEW_TAIL_CHARS: Final = 60_000
CUT: Final = "…"


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + CUT


def serialize(turns: Sequence[Turn], tool_chars: int = TOOL_RESULT_CHARS) -> str:
    lines: list[str] = []
    for turn in turns:
        if turn.role == USER:
            lines.append(f"[User]: {turn.text}")
        elif turn.role == ASSISTANT:
            if turn.text:
                lines.append(f"[Assistant]: {turn.text}")
            if turn.tool_calls:
                lines.append("[Assistant tool calls]: " + "; ".join(turn.tool_calls))
        elif turn.role == TOOL:
            label = "[Tool error]" if turn.is_error else "[Tool result]"
            name = f" {turn.tool_name}" if turn.tool_name else ""
            lines.append(f"{label}{name}: {clip(turn.text, tool_chars)}")
    return "\n\n".join(lines)


def keep_tail(text: str, limit: int = REVIEW_TAIL_CHARS) -> str:
    """The last ``limit`` characters, starting at a line when one begins close enough."""
    if len(text) <= limit:
        return text
    tail = text[len(text) - limit + 1 :]
    newline = tail.find("\n")
    if 0 <= newline < limit // 10:
        tail = tail[newline + 1 :]
    return CUT + tail


def call_expression(summary: str) -> str:
    """A ``name {args}`` call summary as the design writes a call: ``name({args})``."""
    name, _, args = summary.partition(" ")
    return f"{name}({args})"


def structured(
    turns: Sequence[Turn],
    *,
    max_chars: int,
    max_tool_result_chars: int,
    max_assistant_chars: int,
) -> str:
    """``=== Conversation ===`` and one ``[n] role: …`` line per message.

    An assistant's tool call reads ``tool_call: memory({"action":"list"})``.
    """
    lines: list[tuple[str, str]] = []
    for n, turn in enumerate(turns, start=1):
        if turn.role == USER:
            lines.append((USER, f"[{n}] user: {turn.text}"))
        elif turn.role == ASSISTANT:
            parts = [clip(turn.text, max_assistant_chars)] if turn.text else []
            parts += [f"tool_call: {call_expression(call)}" for call in turn.tool_calls]
            lines.append((ASSISTANT, f"[{n}] assistant: " + " | ".join(parts)))
        else:
            mark = " (error)" if turn.is_error else ""
            lines.append(
                (TOOL, f"[{n}] tool_result{mark}: {clip(turn.text, max_tool_result_chars)}")
            )
    return "=== Conversation ===\n" + "\n".join(_fit(lines, max_chars))


def _fit(lines: list[tuple[str, str]], budget: int) -> list[str]:
    """Drop whole lines from the middle outwards until the rest fits; user lines go last."""
    kept = [text for _, text in lines]
    if sum(len(t) + 1 for t in kept) <= budget:
        return kept
    middle = len(lines) // 2
    order = sorted(range(len(lines)), key=lambda i: (lines[i][0] == USER, abs(i - middle)))
    dropped: set[int] = set()
    total = sum(len(t) + 1 for t in kept)
    for i in order:
        if total <= budget or len(dropped) == len(lines) - 1:
            break
        dropped.add(i)
        total -= len(lines[i][1]) + 1
    out: list[str] = []
    for i, (_, text) in enumerate(lines):
        if i in dropped:
            if not out or out[-1] != "[…]":
                out.append("[…]")
        else:
            out.append(text)
    return out
