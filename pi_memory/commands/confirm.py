"""Asking a person before a command changes what cannot be taken back by itself.

Only a terminal is asked: a script never waits on its stdin. The question
goes to stderr, so ``--json`` output on stdout stays one object.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Optional

#: Asks a question and returns the reply; ``None`` when there is no terminal to ask on.
if TYPE_CHECKING:
    Answer = Optional[Callable[[str], str]]


def terminal_answer() -> Answer:
    """A way to ask the person at this terminal, or ``None`` when stdin is not one."""
    stdin = sys.stdin
    try:
        interactive = stdin is not None and stdin.isatty()
    except (AttributeError, ValueError, OSError):
        interactive = False
    return _ask if interactive else None


def _ask(question: str) -> str:
    from pi_memory.output import write

    write(question, sys.stderr)
    return sys.stdin.readline()


def confirmed(reply: str) -> bool:
    return reply.strip().lower() in ("y", "yes")
