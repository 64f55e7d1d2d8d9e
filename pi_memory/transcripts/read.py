"""Pick the reader for a transcript: by name, or by what the file looks like."""

from __future__ import annotations

import json
from pathlib import Path

from pi_memory.transcripts import Reader, TranscriptError, Turn
from pi_memory.transcripts.parts import json_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Final

AUTO: Final = "auto"
#: Records looked at to recognise a JSON-lines transcript.
_SNIFF_RECORDS: Final = 50


def _readers() -> list[tuple[str, Reader]]:
    from pi_memory.hosts.registry import every

    return [(host.name, host.transcript()) for host in every()]


def detect_format(text: str) -> str:
    """The name of the host whose transcript ``text`` is; :class:`TranscriptError` otherwise."""
    readers = _readers()
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        try:
            document = json.loads(stripped)
        except ValueError:
            document = None
        if isinstance(document, dict):
            for name, reader in readers:
                if reader.recognises(document):
                    return name
    for count, record in enumerate(json_lines(text)):
        if count >= _SNIFF_RECORDS:
            break
        for name, reader in readers:
            if reader.recognises(record):
                return name
    names = ", ".join(name for name, _reader in readers)
    raise TranscriptError(f"not a transcript this package can read ({names})")


def _reader(fmt: str) -> Callable[[str], list[Turn]]:
    from pi_memory.hosts.registry import NAMES, UnknownHost, host

    try:
        return host(fmt).transcript().read
    except UnknownHost:
        raise TranscriptError(
            f"unknown transcript format {fmt!r} (use auto, {', '.join(NAMES)})"
        ) from None


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
