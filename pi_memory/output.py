"""The one place that writes to stdout and stderr (the MCP server owns stdout).

Everything goes out through :func:`pi_memory.inject.terminal.visible`: stored
text may hold escape sequences, bidi overrides or undecodable bytes, and a
terminal must show them, not obey them. JSON output is ASCII, so unaffected.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


def write(text: str, stream: TextIO | None = None) -> None:
    out = sys.stdout if stream is None else stream
    from pi_memory.inject.terminal import visible

    out.write(visible(text))
    out.flush()


def write_line(text: str = "", stream: TextIO | None = None) -> None:
    write(text + "\n", stream)


def error_line(text: str) -> None:
    write_line(text, sys.stderr)
