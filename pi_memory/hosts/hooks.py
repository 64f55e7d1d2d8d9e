"""``python -m pi_memory hook [--host HOST] EVENT``: one entry point for every agent event.

Claude Code, Codex CLI and Gemini CLI run a command per event with the event
JSON on stdin and read what to inject from stdout. A hook must never fail the
conversation: whatever goes wrong it exits 0, prints nothing that could
corrupt the host's input, and logs one line.

An event this package does not handle costs an interpreter start-up and
nothing more: it is recognised from its name before stdin is read or anything
is imported. The work of each lifecycle moment lives in
:mod:`pi_memory.hosts.lifecycle`; each host's spellings and output shape in its
record (:mod:`pi_memory.hosts.registry`).
"""

from __future__ import annotations

import sys

from pi_memory.hosts import MOMENTS, canonical

#: The events :mod:`pi_memory.hosts.quick_hook` may answer.
QUICK_EVENTS = frozenset(
    k for k, v in MOMENTS.items() if v in ("start", "prompt", "end", "turn_end", "pre_compact")
)

TYPE_CHECKING = False  # typing and collections cost a hook's start-up milliseconds
if TYPE_CHECKING:
    from collections.abc import Sequence


def run_hook(args: Sequence[str]) -> int:
    """0 whatever happens when a host runs it; 1 only for a person at a terminal who named
    no host with ``--host``. Output goes to stdout only when the handler finished cleanly."""
    words = list(args)
    if not words or words[0] in ("-h", "--help"):
        from pi_memory.hosts.events import help_text
        from pi_memory.output import write

        write(help_text())
        return 0
    host = ""
    if words[0] == "--host" and len(words) > 1:
        host, words = words[1], words[2:]
    elif words[0].startswith("--host="):
        host, words = words[0][len("--host=") :], words[1:]
    if len(words) != 1 or canonical(words[0]) not in MOMENTS:
        return 0  # not ours: no stdin, no imports, no output
    event = None
    if host and canonical(words[0]) in QUICK_EVENTS:
        from pi_memory.hosts.quick_hook import run

        answered, event = run(host, words[0])
        if answered:
            return 0  # the common case, without loading the package
    if host:
        from pi_memory.hosts.registry import MODULES

        if host not in MODULES:
            if _said_unknown_host(host, words[0]):
                return 1
            host = ""  # the event says which host sent it
    import os

    from pi_memory import env_names

    # Set by the model client in a CLI provider's child (pi_memory.model.cli_provider): a
    # session that is itself one of our model calls never runs our hooks into another job.
    if os.environ.get(env_names.MODEL_CHILD):
        return 0  # we are the model of one of our own jobs: no memory work in here
    try:
        from pi_memory.hosts.events import handle

        stream = sys.stdin
        if event is not None:
            from io import StringIO

            stream = StringIO(event)
        output = handle(words[0], host, stream)
    except BaseException as exc:
        if isinstance(exc, SystemExit) and not exc.code:
            return 0
        from pi_memory.error_handler import log_exception

        log_exception(f"hook {words[0]}", exc)
        return 0
    if output:
        from pi_memory.output import write_line

        try:
            write_line(output)
        except OSError:
            return 0
    return 0


def _said_unknown_host(host: str, event: str) -> bool:
    """Say that ``--host`` names no host: one line on stderr, and in the log.

    True when a person typed it at a terminal (the command fails); a host that runs a
    hook with a misspelt name still gets its event answered, as the host the event
    says it came from, and a hook never fails the conversation.
    """
    from pi_memory.error_handler import log_line
    from pi_memory.hosts.registry import NAMES

    problem = f"unknown host {host!r} (one of {', '.join(NAMES)})"
    typed = sys.stdin is not None and sys.stdin.isatty()
    if not typed:
        problem += "; answered as the host the event came from"
    log_line(f"hook {event}", problem)
    try:
        sys.stderr.write(f"pi_memory: hook: {problem}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # no stderr to say it on: the log has it
    return typed
