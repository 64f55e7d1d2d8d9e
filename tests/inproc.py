"""Run ``pi_memory.cli.main`` in this process, as a user's command line would run it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.clihelp import Run, run_cli


def call(*args: str, cwd: Path, stdin: str | bytes = "") -> Run:
    """``python -m pi_memory ARGS`` run from ``cwd`` with ``stdin``, streams captured."""
    return run_cli(*args, cwd=cwd, stdin=stdin)


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
