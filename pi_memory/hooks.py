"""``python -m pi_memory hook <event>``: one handler per agent event.

The host passes the event as JSON on stdin (Claude Code, Codex CLI and Gemini
CLI all do) and reads what to inject from stdout. A hook must never fail the
conversation: whatever goes wrong, it exits 0, prints nothing that could
corrupt the host's input, and logs the error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Final, TextIO

#: Claude Code drops injected context past 10,000 characters; stay clear of it.
MAX_CONTEXT: Final = 9_500


def _canonical(word: str) -> str:
    """``SessionStart``, ``session_start`` and ``session-start`` are one event."""
    return word.lower().replace("-", "").replace("_", "")


def read_event(stream: TextIO | None = None) -> dict[str, object]:
    """The event JSON from stdin; no input or a non-object reads as an empty event."""
    import json

    source = sys.stdin if stream is None else stream
    if source is None or source.isatty():
        return {}
    raw = source.read()
    if not raw.strip():
        return {}
    data = json.loads(raw)
    return data if isinstance(data, dict) else {}


def event_cwd(event: Mapping[str, object]) -> Path:
    cwd = event.get("cwd")
    return Path(cwd) if isinstance(cwd, str) and cwd else Path(os.getcwd())


def session_start(event: Mapping[str, object]) -> str | None:
    """Refresh both ``MEMORY.md`` files, then inject the index (``None`` = nothing to say).

    An abandoned write lock blocks every write until a person clears it, and
    hooks run silently, so it is also said to the user (``systemMessage``).
    """
    from pi_memory.resolve import open_store

    store = open_store(event_cwd(event))
    warning = abandoned_lock_warning(store.directory(layer) for layer in ("user", "project"))
    if warning is None:
        try:
            store.refresh_indexes()
        except Exception as exc:  # a stale MEMORY.md must not cost the injection
            from pi_memory.error_handler import log_exception

            log_exception("hook session-start: refresh", exc)
    text = store.injection(max_chars=MAX_CONTEXT)
    if not text and warning is None:
        return None
    return hook_output("SessionStart", text, warning)


def abandoned_lock_warning(directories: Iterable[Path]) -> str | None:
    from pi_memory.fs.lock import UNLOCK_COMMAND, is_abandoned, read_lock_status, status_line

    for directory in directories:
        status = read_lock_status(directory)
        if is_abandoned(status):
            return (
                f"pi_memory: memory writes are blocked by an abandoned lock in {directory} "
                f"({status_line(status)}); run: {UNLOCK_COMMAND}"
            )
    return None


def hook_output(event_name: str, text: str, system_message: str | None = None) -> str:
    """The JSON Claude Code, Codex CLI and Gemini CLI read from a hook's stdout."""
    import json

    payload: dict[str, object] = {}
    if text:
        payload["hookSpecificOutput"] = {"hookEventName": event_name, "additionalContext": text}
    if system_message:
        payload["systemMessage"] = system_message
    # ASCII JSON: a host's pipe may not be UTF-8 (Windows consoles), and \u escapes
    # are read back as the same text by every JSON parser.
    return json.dumps(payload)


HANDLERS: Final[dict[str, Callable[[Mapping[str, object]], str | None]]] = {
    "sessionstart": session_start,
}


def run_hook(args: Sequence[str]) -> int:
    """Always 0. Output goes to stdout only when the handler finished cleanly."""
    name = _canonical(args[0]) if args else ""
    try:
        handler = HANDLERS.get(name)
        if handler is None:
            raise ValueError(f"unknown hook event {args[0] if args else '(none)'!r}")
        output = handler(read_event())
    except BaseException as exc:
        if isinstance(exc, SystemExit) and not exc.code:
            return 0
        from pi_memory.error_handler import log_exception

        log_exception(f"hook {name or '?'}", exc)
        return 0
    if output:
        from pi_memory.output import write_line

        try:
            write_line(output)
        except OSError:
            return 0
    return 0
