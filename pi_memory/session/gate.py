"""The review gate of one session (pi-memory-auto's ``review-gate``); pure.

Hosts give no turn index, so the hooks count turns themselves: a turn's end
counts once (a repeated delivery of the same turn, named by its key, does
not count again), and every ``reviewTurns`` turns a review is started, the
turn recorded *before* it runs, so one turn never starts two. Where a host's
turn ends are not hooked (one process less a turn), each prompt is counted
instead and says the turn before it ended (:func:`prompted`).

The review itself (a background job, or ``extract`` run by a person) moves
two marks at different moments on purpose:

- ``last_turn`` (the transcript's turn number) is recorded **before** the
  model is asked, so the same turn is never reviewed twice at once; a review
  that fails takes the mark back, so a failure marks nothing reviewed;
- ``cursor`` (how many messages are covered) is recorded only **after** the
  reply was stored, so a model that never answered leaves the same tail to
  the next round.

The gate is a field of the session's state (:mod:`pi_memory.session.state`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.transcripts import Turn

#: pi-memory-auto: a session with fewer messages is never reviewed.
MIN_MESSAGES: Final = 4


class ReviewGate(NamedTuple):
    #: Turns the hooks counted (their ends, or their prompts where ends are not hooked).
    turns: int = 0
    #: The key of the turn counted last (``""``: the host names none).
    last_key: str = ""
    #: The counted turn the last review was started at.
    started_at: int = 0
    #: The transcript's turn number last sent for review (-1: none yet).
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


def count_turn(gate: ReviewGate, key: str) -> ReviewGate:
    """One more turn, unless ``key`` names the turn counted last (a repeated delivery)."""
    if key and key == gate.last_key:
        return gate
    return gate._replace(turns=gate.turns + 1, last_key=key)


def review_due(gate: ReviewGate, every: int) -> bool:
    """pi-memory-auto: every ``every`` turns, and a turn starts at most one review."""
    return gate.turns > gate.started_at and gate.turns - gate.started_at >= every


def turn_ended(gate: ReviewGate, key: str, every: int) -> tuple[ReviewGate, bool]:
    """Count the turn named ``key``; whether a review starts now (then it is recorded)."""
    gate = count_turn(gate, key)
    if not review_due(gate, every):
        return gate, False
    return gate._replace(started_at=gate.turns), True


def prompted(gate: ReviewGate, key: str, every: int) -> tuple[ReviewGate, bool]:
    """A prompt, where the host's turn ends are not hooked: the prompt named ``key`` is
    counted, the turn before it ended; whether a review of the turns ended starts now."""
    gate = count_turn(gate, key)
    ended = gate.turns - 1
    if not (ended > gate.started_at and ended - gate.started_at >= every):
        return gate, False
    return gate._replace(started_at=ended), True


def decide(
    gate: ReviewGate, turns: Sequence[Turn], *, handoff: bool, check_turn: bool = True
) -> Decision:
    """Whether to review ``turns`` now, and from which message.

    ``check_turn=False`` leaves the once-per-turn rule to a caller that
    already applied it (the hooks).
    """
    from pi_memory.transcripts import USER

    turn = sum(1 for t in turns if t.role == USER)
    if len(turns) < MIN_MESSAGES:
        return Decision(f"trivial session ({len(turns)} messages, fewer than 4)", turn, 0)
    if check_turn and not handoff and gate.last_turn == turn:
        return Decision(f"turn {turn} was already reviewed", turn, 0)
    if gate.cursor > len(turns):
        return Decision("nothing new: the conversation is shorter than what was reviewed", turn, 0)
    if gate.cursor == len(turns):
        return Decision("nothing new since the last review", turn, 0)
    return Decision("", turn, gate.cursor)


def marked(gate: ReviewGate, decision: Decision) -> ReviewGate:
    """The turn recorded before the model is asked (a handoff marks no turn)."""
    return gate._replace(last_turn=decision.turn)


def reviewed(gate: ReviewGate, decision: Decision, messages: int, *, handoff: bool) -> ReviewGate:
    """After a review that succeeded: the first ``messages`` are covered."""
    return gate._replace(last_turn=gate.last_turn if handoff else decision.turn, cursor=messages)


def failed(gate: ReviewGate, before: ReviewGate) -> ReviewGate:
    """After a review that failed: its turn mark is taken back and nothing is covered."""
    return gate._replace(last_turn=before.last_turn)
