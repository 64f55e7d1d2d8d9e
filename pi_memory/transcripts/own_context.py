"""Text that was injected into a conversation rather than said in it.

Our hooks put the memory index (``<memory-auto>`` contract and keyword
tables, or ``<memory_index>`` windows) and surfaced memories
(``<relevant_memories>``) into the conversation; hosts add system reminders.
Gemini CLI wraps every hook's context in ``<hook_context>``, its ``<`` and
``>`` escaped (so our own tags arrive as ``&lt;memory-auto&gt;``), and in
``-p`` puts SessionStart's in front of the prompt itself.
A review must never see them as something the user said, or every session
would re-learn the memories it was shown.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: Spans removed wherever they appear, tags included.
_SPANS: Final = re.compile(
    r"<(system-reminder|relevant_memories|memory_index|local-command-caveat|local-command-stdout"
    r"|local-command-stderr|command-name|command-message|command-args|hook_context)\b[^>]*>.*?</\1>",
    re.DOTALL,
)
#: Our session-start injection: the contract opens it and the keyword tables run to the end.
_MEMORY_AUTO: Final = "<memory-auto>"
_UNCLOSED: Final = re.compile(
    r"<(relevant_memories|memory_index|system-reminder)\b[^>]*>.*", re.DOTALL
)


def strip_injected(text: str) -> str:
    """``text`` without injected spans, trimmed; ``""`` when nothing of the speaker's remains."""
    text = _SPANS.sub("", text)
    cut = text.find(_MEMORY_AUTO)
    if cut != -1:
        text = text[:cut]
    text = _UNCLOSED.sub("", text)  # a span cut off by the host still is not the user's
    return text.strip()
