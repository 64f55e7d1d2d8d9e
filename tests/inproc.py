"""Run ``pi_memory.cli.main`` in this process, as a user's command line would run it."""

from __future__ import annotations

import io
import json
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_memory.cli import main


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def call(*args: str, cwd: Path, stdin: str | bytes = "") -> Result:
    """``python -m pi_memory ARGS`` run from ``cwd`` with ``stdin``, streams captured.

    ``stdin`` given as bytes arrives as a byte stream, as a pipe delivers it.
    """
    old_cwd, old_stdin = os.getcwd(), sys.stdin
    out, err = io.StringIO(), io.StringIO()
    try:
        os.chdir(cwd)
        sys.stdin = (
            io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
            if isinstance(stdin, bytes)
            else io.StringIO(stdin)
        )
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(old_cwd)
        sys.stdin = old_stdin
    return Result(code, out.getvalue(), err.getvalue())


def tool(tool_name: str, cwd: Path, /, **arguments: Any) -> dict[str, Any]:
    """One agent tool call; the ``{"ok", "text"}`` answer."""
    result = call("tool", tool_name, cwd=cwd, stdin=json.dumps(arguments))
    assert result.code == 0, result.err
    answer: dict[str, Any] = json.loads(result.out)
    return answer


def user_config(home: Path, config: dict[str, Any]) -> Path:
    """Write ``~/.pi/agent/memory.json``."""
    path = home / ".pi" / "agent" / "memory.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config), "utf-8")
    return path
