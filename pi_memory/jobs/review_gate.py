"""The review gate of one session: which turn was reviewed, how far the reviews reach.

pi-memory-auto keeps two pieces of state per session and moves them at different
moments on purpose:

- ``last_turn`` is recorded **before** the model is asked, so the same turn
  delivered twice can never start a second review;
- ``cursor`` (how many messages are covered) is recorded only **after** the
  reply was stored, so a model that never answered leaves the same tail to
  the next round.

A hook is a new process on every event, so the state lives in the session's
directory (:mod:`pi_memory.jobs.session`) as ``review.json`` (disposable:
losing it costs one repeated review, never a memory). Hooks count turns
themselves and start a review at most once per turn; a review started from
the command line checks ``last_turn`` here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Final, NamedTuple

from pi_memory.transcripts import USER, Turn

#: pi-memory-auto: a session with fewer messages is never reviewed.
MIN_MESSAGES: Final = 4
STATE_FILE: Final = "review.json"


class GateState(NamedTuple):
    #: The turn number last sent for review (-1: none yet).
    last_turn: int = -1
    #: Messages already covered by a review that succeeded.
    cursor: int = 0


class Decision(NamedTuple):
    #: Why nothing is reviewed now, ``""`` when the review goes ahead.
    skip: str
    #: The turn number of this review (user messages so far).
    turn: int
    #: The first message to send.
    start: int


def decide(
    state: GateState, turns: Sequence[Turn], *, handoff: bool, check_turn: bool = True
) -> Decision:
    """Whether to review ``turns`` now, and from which message; pure.

    ``check_turn=False`` leaves the once-per-turn rule to a caller that
    already applied it (the hooks).
    """
    turn = sum(1 for t in turns if t.role == USER)
    if len(turns) < MIN_MESSAGES:
        return Decision(f"trivial session ({len(turns)} messages, fewer than 4)", turn, 0)
    if check_turn and not handoff and state.last_turn == turn:
        return Decision(f"turn {turn} was already reviewed", turn, 0)
    if state.cursor > len(turns):
        return Decision("nothing new: the conversation is shorter than what was reviewed", turn, 0)
    if state.cursor == len(turns):
        return Decision("nothing new since the last review", turn, 0)
    return Decision("", turn, state.cursor)


def state_path(session: str) -> Path:
    """``review.json`` in the session's directory."""
    from pi_memory.jobs.session import session_dir

    return session_dir(session) / STATE_FILE


def load_state(path: Path) -> GateState:
    """The stored state; a missing or damaged file reads as a fresh session."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return GateState()
    if not isinstance(data, dict):
        return GateState()
    last, cursor = data.get("lastTurn"), data.get("cursor")
    return GateState(
        last if isinstance(last, int) and not isinstance(last, bool) else -1,
        cursor if isinstance(cursor, int) and not isinstance(cursor, bool) and cursor >= 0 else 0,
    )


def save_state(path: Path, state: GateState) -> None:
    from pi_memory.fs.atomic import atomic_write_text

    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"lastTurn": state.last_turn, "cursor": state.cursor}) + "\n"
    atomic_write_text(path, text, durable=False)  # disposable state, see the module docstring
