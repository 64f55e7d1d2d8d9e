"""``surface``: what the prompt hook would inject for a prompt, for a person to see."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prompt", required=True, help="the user's prompt ('-' reads stdin)")
    parser.add_argument("--session", help="session id: skip and remember what it was shown")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Print the ``<relevant_memories>`` block (nothing when nothing is relevant).

    With ``--session`` the session's already surfaced memories are skipped and
    the new ones remembered, exactly as the hook does.
    """
    import sys

    from pi_memory.errors import UsageError
    from pi_memory.open_store import open_store
    from pi_memory.output import write, write_line
    from pi_memory.session import moments, state
    from pi_memory.surfacing import corpus, limits, surface

    prompt: str = args.prompt
    session: str | None = args.session
    text = sys.stdin.read() if prompt == "-" else prompt
    if not text.strip():
        raise UsageError("surface needs a non-empty --prompt")
    config, store, _, _ = open_store(warn=False)
    loaded = state.load(session) if session else state.SessionState()
    found = surface(
        corpus(store.visible(), store.foreign(), store.suspects()),
        text,
        limits(config),
        config=config,
        skip=list(loaded.surfaced),
        env=os.environ,
        background=False,
    )
    if session and found.ids:
        state.save(session, loaded, moments.surfaced(loaded, found.ids))
    if args.json:
        import json

        write_line(json.dumps({"ids": list(found.ids), "via": found.via, "text": found.text}))
    elif found.text:
        write(found.text + "\n")
    return 0
