"""Small pure helpers the readers share: JSON lines, content parts, tool-call summaries."""

from __future__ import annotations

import json
from collections.abc import Iterator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

#: Characters of a tool call's arguments kept in its summary.
CALL_ARGS_CHARS: Final = 400


def json_lines(text: str) -> Iterator[dict[str, Any]]:
    """Every line of ``text`` that is a JSON object; a torn or foreign line is skipped."""
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record


def call_summary(name: object, arguments: object) -> str:
    """``name {"arg": …}``: the call on one line, arguments cut at ``CALL_ARGS_CHARS``."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass
    if isinstance(arguments, str):
        args = " ".join(arguments.split())
    else:
        # In the order the model wrote them, as JSON.stringify renders a call.
        args = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    if len(args) > CALL_ARGS_CHARS:
        args = args[: CALL_ARGS_CHARS - 1] + "…"
    label = name if isinstance(name, str) and name else "tool"
    return f"{label} {args}" if args and args != "{}" else label


def text_of(content: object, text_types: tuple[str, ...] = ("text",)) -> str:
    """The text of a message content: a string, or the text parts of a list, blank-line joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    pieces: list[str] = []
    for part in content:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            kind = part.get("type")
            if isinstance(part.get("text"), str) and (kind is None or kind in text_types):
                pieces.append(part["text"])  # Gemini's parts carry no "type"
            elif kind == "image":
                pieces.append("[image]")
    return "\n\n".join(piece for piece in pieces if piece)


def string(value: object) -> str:
    return value if isinstance(value, str) else ""
