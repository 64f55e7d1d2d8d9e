"""Pick the reader for a transcript: by name, or by what the file looks like."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Final

from pi_memory.transcripts import CLAUDE_CODE, CODEX, FORMATS, GEMINI, PI, TranscriptError, Turn
from pi_memory.transcripts.parts import json_lines

AUTO: Final = "auto"
#: Records looked at to recognise a JSON-lines transcript.
_SNIFF_RECORDS: Final = 50
_CODEX_TYPES: Final = frozenset({"session_meta", "response_item", "turn_context", "event_msg"})
_CLAUDE_TYPES: Final = frozenset({"user", "assistant", "attachment", "queue-operation", "summary"})


def detect_format(text: str) -> str:
    """``claude-code``, ``codex``, ``gemini`` or ``pi``; :class:`TranscriptError` otherwise."""
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        try:
            document = json.loads(stripped)
        except ValueError:
            document = None
        if isinstance(document, dict) and isinstance(document.get("messages"), list):
            return GEMINI
    for count, record in enumerate(json_lines(text)):
        if count >= _SNIFF_RECORDS:
            break
        kind = record.get("type")
        if kind == "session" and "version" in record:
            return PI
        if kind in _CODEX_TYPES and "payload" in record:
            return CODEX
        if kind in _CLAUDE_TYPES and "sessionId" in record:
            return CLAUDE_CODE
        if kind == "message" and "role" in record and "payload" not in record:
            return CODEX  # a rollout from before the envelope
        if kind == "gemini" or (kind == "user" and "content" in record and "message" not in record):
            return GEMINI
    raise TranscriptError("not a transcript this package can read (claude-code, codex, gemini, pi)")


def _reader(fmt: str) -> Callable[[str], list[Turn]]:
    if fmt == CLAUDE_CODE:
        from pi_memory.transcripts.claude_code import read_claude_code

        return read_claude_code
    if fmt == CODEX:
        from pi_memory.transcripts.codex import read_codex

        return read_codex
    if fmt == GEMINI:
        from pi_memory.transcripts.gemini import read_gemini

        return read_gemini
    if fmt == PI:
        from pi_memory.transcripts.pi import read_pi

        return read_pi
    raise TranscriptError(f"unknown transcript format {fmt!r} (use auto, {', '.join(FORMATS)})")


def parse_transcript(text: str, fmt: str = AUTO) -> tuple[str, list[Turn]]:
    """The format used and the turns of ``text``."""
    chosen = detect_format(text) if fmt == AUTO else fmt
    return chosen, _reader(chosen)(text)


def read_transcript(path: Path, fmt: str = AUTO) -> tuple[str, list[Turn]]:
    """:func:`parse_transcript` of a file; invalid UTF-8 reads as U+FFFD, never fails."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise TranscriptError(f"cannot read transcript {path}: {err.strerror or err}") from err
    return parse_transcript(data.decode("utf-8", errors="replace"), fmt)
