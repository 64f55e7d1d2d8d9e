"""What a user sees of a misconfigured store, worded as pi-memory words it."""

from __future__ import annotations


def config_error_notification(errors: list[str]) -> str:
    """The one notification a session start shows for a misconfigured store."""
    return "\n".join(["pi-memory config error:", *(f"- {error}" for error in errors)])


def tool_unavailable_message(errors: list[str], status_command: str = "/memory") -> str:
    """What a memory tool answers while the configuration is broken."""
    return f"Memory not initialized — {errors[0]}; run {status_command} for details"
