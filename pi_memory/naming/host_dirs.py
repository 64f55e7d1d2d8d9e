"""Where each agent keeps its own configuration and sessions, with the variables that move it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = ["host_config_dir"]


def host_config_dir(host: str, env: Mapping[str, str], home: Path) -> Path:
    """``~/.claude`` (``$CLAUDE_CONFIG_DIR``), ``~/.codex`` (``$CODEX_HOME``), ``~/.gemini``,
    ``~/.pi/agent`` (``$PI_CODING_AGENT_DIR``)."""
    if host == "claude-code":
        value = env.get("CLAUDE_CONFIG_DIR", "")
        return Path(value) if value else home / ".claude"
    if host == "codex":
        value = env.get("CODEX_HOME", "")
        return Path(value) if value else home / ".codex"
    if host == "gemini":
        return home / ".gemini"
    value = env.get("PI_CODING_AGENT_DIR", "")
    return Path(value) if value else home / ".pi" / "agent"
