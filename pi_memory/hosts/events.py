"""From a host's event JSON to the host's answer: read, recognise the host, run, shape.

The payload decides as much as it can: the answer's ``hookEventName`` is the
payload's own ``hook_event_name`` (a host rejects an answer naming another
event), and the host is the one named by ``--host``, else the one whose event
name this is (``BeforeAgent`` is Gemini's), else told by the payload (Gemini
sends ``timestamp``, Codex ``turn_id``), else Claude Code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pi_memory.hosts import MOMENTS, canonical

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from pi_memory.hosts.host import Host
    from pi_memory.hosts.lifecycle import Answer, HookEvent


def detect_host(name: str, payload: Mapping[str, object]) -> str:
    """The host of a hook run without ``--host``: the one host whose event this name is,
    else the first whose payload this is, else the default one."""
    from pi_memory.hosts.registry import DEFAULT, every

    hosts = [h for h in every() if not h.named_only]
    key = canonical(name)
    senders = [h for h in hosts if key in map(canonical, h.events.values())]
    if len(senders) == 1:
        return senders[0].name
    found = next((h for h in hosts if h.sends is not None and h.sends(payload)), None)
    return found.name if found else DEFAULT


def read_payload(stream: TextIO | None) -> dict[str, object]:
    """The event object; no input reads as an empty event, anything else raises ValueError."""
    import json

    if stream is None or stream.isatty():
        return {}
    raw = stream.read()
    if not raw.strip():
        return {}
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError(f"the event is a JSON {type(data).__name__}, not an object")
    return data


def _text(payload: dict[str, object], *keys: str) -> str:
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str):
            return value
    return ""


def _prompt(payload: dict[str, object]) -> str:
    """What the person asked: Gemini CLI's ``-p`` puts SessionStart's context in front."""
    text = _text(payload, "prompt")
    if "<" not in text:
        return text
    from pi_memory.transcripts.own_context import strip_injected

    return strip_injected(text)


def to_event(moment: str, host: str, payload: dict[str, object]) -> HookEvent:
    import time

    from pi_memory.hosts.lifecycle import HookEvent

    cwd = _text(payload, "cwd")
    return HookEvent(
        moment=moment,
        host=host,
        session_id=_text(payload, "session_id"),
        transcript=_text(payload, "transcript_path"),
        cwd=Path(cwd) if cwd else Path(os.getcwd()),
        source=_text(payload, "source", "trigger"),
        prompt=_prompt(payload),
        turn_key=_text(payload, "turn_id", "prompt_id", "timestamp"),
        reason=_text(payload, "reason"),
        started=time.monotonic(),
    )


def handle(name: str, host: str, stream: TextIO | None) -> str | None:
    """The text to print for event ``name`` (``None``: print nothing)."""
    moment = MOMENTS[canonical(name)]
    try:
        payload = read_payload(stream)
    except ValueError as exc:  # broken JSON, undecodable bytes, not an object
        from pi_memory.error_handler import log_line

        log_line(f"hook {name}", f"unreadable event: {exc}")
        return None
    from pi_memory.hosts.registry import MODULES
    from pi_memory.hosts.registry import host as record

    shape = record(host if host in MODULES else detect_host(name, payload))
    if moment not in shape.events:
        return None  # an event this host does not send under that name
    from pi_memory.hosts.lifecycle import run

    answer = run(to_event(moment, shape.name, payload))
    own = payload.get("hook_event_name")
    event_name = own if isinstance(own, str) and own else shape.events[moment]
    text = render(shape, event_name, answer)
    if moment == "start" and wants_tools(shape, payload):
        from pi_memory.hosts.note_render import tool_list

        return f"{tool_list()}\n{text or ''}"
    return text


def wants_tools(shape: Host, payload: Mapping[str, object]) -> bool:
    """Whether a session start's answer begins with the tool list, on a line of its own:
    pi's extension asks (``"tools": true``) so that one process registers the tools and
    hands over the index."""
    return shape.plain_text and payload.get("tools") is True


def render(shape: Host, event_name: str, answer: Answer) -> str | None:
    """The JSON the host reads: context only where the event takes it, then the
    user-visible message. ASCII JSON: a host's pipe may not be UTF-8 (Windows
    consoles), and every JSON parser reads ``\\u`` escapes back as the same text."""
    import json

    if shape.plain_text:
        # pi: the extension injects the text itself; a user-visible message is logged, and
        # the notice goes to stderr, marked, for the extension to show.
        if answer.system_message:
            from pi_memory.error_handler import log_line

            log_line(f"hook {event_name}", answer.system_message)
        if answer.notice:
            _say_plain_notice(answer.notice)
        return answer.context if event_name in shape.context_events and answer.context else None
    out: dict[str, object] = {}
    if answer.context and event_name in shape.context_events:
        out["hookSpecificOutput"] = {
            "hookEventName": event_name,
            "additionalContext": answer.context,
        }
    message = "\n".join(part for part in (answer.system_message, answer.notice) if part)
    if message:
        from pi_memory.inject.terminal import visible

        # A person reads it: a path or a lock record must not act on their terminal.
        out["systemMessage"] = visible(message)
    return json.dumps(out) if out else None


def _say_plain_notice(line: str) -> None:
    import sys

    from pi_memory.hosts.hook_receipts import PLAIN_PREFIX

    try:
        sys.stderr.write(f"{PLAIN_PREFIX}{line}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # nowhere to say it: the receipt is in the log


def help_text() -> str:
    from pi_memory.hosts.registry import NAMES, every

    lines = [
        f"usage: python -m pi_memory hook [--host {'|'.join(NAMES)}] EVENT",
        "",
        "Handle one agent event: the event JSON on stdin, the host's answer on stdout.",
        "An agent runs it from the hooks 'python -m pi_memory install HOST' writes;",
        "run so, it exits 0 whatever happens, and errors go to the log.",
        "SessionStart, session_start and session-start are the same event. Each host's",
        "events and what they do (any other event is accepted and ignored):",
        "",
    ]
    what = {
        "start": "rewrite MEMORY.md, resume due jobs, inject the (frozen) index",
        "prompt": "surface the memories this prompt needs",
        "turn_end": "start the incremental review every REVIEW_TURNS turns",
        "pre_compact": "start the handoff extraction of what is compacted",
        "post_compact": "forget what was surfaced; the index is re-rendered",
        "end": "hand the quit flush to a background process",
    }
    for shape in every():
        lines.append(f"  {shape.name}:")
        for moment, event in shape.events.items():
            lines.append(f"    {event:<17} {what[moment]}")
            if moment == "prompt" and "turn_end" not in shape.events:
                ended = "and end the turn before it: the review every REVIEW_TURNS turns"
                lines.append(f"    {'':<17} {ended}")
    return "\n".join(lines) + "\n"
