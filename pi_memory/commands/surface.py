"""``surface``: what the prompt hook would inject for a prompt, for a person to see."""

from __future__ import annotations

import os
from pathlib import Path


def run_surface(*, prompt: str, session: str | None, as_json: bool) -> int:
    """Print the ``<relevant_memories>`` block (nothing when nothing is relevant).

    With ``--session`` the session's already surfaced memories are skipped and
    the new ones remembered, exactly as the hook does.
    """
    import sys

    from pi_memory.errors import UsageError
    from pi_memory.hosts.lifecycle import open_context
    from pi_memory.output import write, write_line
    from pi_memory.session import moments, state
    from pi_memory.surfacing import limits, surface

    text = sys.stdin.read() if prompt == "-" else prompt
    if not text.strip():
        raise UsageError("surface needs a non-empty --prompt")
    config, store = open_context(Path(os.getcwd()))
    loaded = state.load(session) if session else state.SessionState()
    found = surface(
        store.read_all(),
        text,
        limits(config),
        config=config,
        skip=list(loaded.surfaced),
        env=os.environ,
        background=False,
    )
    if session and found.ids:
        state.save(session, loaded, moments.surfaced(loaded, found.ids))
    if as_json:
        import json

        write_line(json.dumps({"ids": list(found.ids), "via": found.via, "text": found.text}))
    elif found.text:
        write(found.text + "\n")
    return 0
