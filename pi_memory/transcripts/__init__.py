"""Agent transcripts read into one record: a list of :class:`Turn`.

One reader per host (``claude_code``, ``codex``, ``gemini``, ``pi``), each a
:class:`Reader` its host's record points at, turns that host's session file
into the conversation a person had: user text, assistant text with its tool
calls summarised, tool results. What the host or this
package injected (system reminders, our injected index, surfaced memories,
compaction summaries) is dropped, so a review never learns back what it was
shown. Readers are pure: they take the file's text, never a path.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Final

USER: Final = "user"
ASSISTANT: Final = "assistant"
TOOL: Final = "tool"


class Turn(NamedTuple):
    """One message of a conversation, whatever host recorded it."""

    #: Position in the conversation, from 0 (the review gate's cursor counts these).
    position: int
    #: ``user``, ``assistant`` or ``tool`` (a tool's result).
    role: str
    #: The message text; for a tool result, its output.
    text: str
    #: The assistant's tool calls, each ``name {compact JSON arguments}``.
    tool_calls: tuple[str, ...] = ()
    #: For a tool result: the tool's name, when the host records it.
    tool_name: str = ""
    #: For a tool result: whether the tool reported an error.
    is_error: bool = False
    #: When the host recorded the message (ISO 8601 as written), ``""`` if unknown.
    timestamp: str = ""


class TranscriptError(ValueError):
    """The file is not a transcript of the format asked for (or of any known one)."""


def _nowhere(path: Path) -> str:
    return ""


class Reader(NamedTuple):
    """One host's transcript format: how to read it, recognise it and describe a session."""

    #: The file's text → the conversation.
    read: Callable[[str], list[Turn]]
    #: Whether one record of a JSON-lines file (or a whole JSON document) is of this format.
    recognises: Callable[[Mapping[str, object]], bool]
    #: ``(session id, directory it ran in)`` as far as one of the file's first records
    #: says (``""`` for what it does not).
    header: Callable[[Mapping[str, object]], tuple[str, str]]
    #: The directory a session ran in, from beside its file, when its records do not say.
    project_beside: Callable[[Path], str] = _nowhere
