"""The one place that writes to stdout and stderr (the MCP server owns stdout)."""

from __future__ import annotations

import sys
from typing import TextIO


def write(text: str, stream: TextIO | None = None) -> None:
    out = sys.stdout if stream is None else stream
    out.write(text)
    out.flush()


def write_line(text: str = "", stream: TextIO | None = None) -> None:
    write(text + "\n", stream)


def error_line(text: str) -> None:
    write_line(text, sys.stderr)
