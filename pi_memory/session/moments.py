"""What each moment of a session does to its state; pure.

The hooks (:mod:`pi_memory.hosts.lifecycle`) load a session's state once,
pass it through these functions and save what they return once.
"""

from __future__ import annotations

from pi_memory.session.state import FRESH, FROZEN, SessionState


def started(
    state: SessionState,
    *,
    source: str,
    injection: str,
    injected_index_at_prompt: bool,
    replays_context: bool,
) -> tuple[SessionState, str]:
    """A session start (``source``: ``startup|resume|clear|compact``): the state after it
    and the injected index it puts in context (``""``: none now).

    A new or cleared session freezes ``injection``; a resumed one gets the frozen
    bytes back (nothing, where the host replays the history that holds them). A
    host that takes the injected index with the first prompt (``injected_index_at_prompt``)
    gets nothing now and the frozen injected index with that prompt.
    """
    # This start puts the injected index back itself, and begins a new chat on Gemini's
    # recording: an unsettled compression watch is stale.
    state = state._replace(reinject="", watch=None)
    if source == "resume" and state.frozen is not None:
        if injected_index_at_prompt:
            return state._replace(reinject=FROZEN), ""
        return state, "" if replays_context else state.frozen
    state = state._replace(frozen=injection, surfaced=state.surfaced if source == "resume" else ())
    if injected_index_at_prompt:
        return state._replace(reinject=FROZEN), ""
    return state, injection


def prompt_index(state: SessionState, fresh: str) -> tuple[SessionState, str]:
    """The injected index a prompt carries when one is due (``""``: none), frozen anew."""
    if not state.reinject:
        return state, ""
    frozen = state.frozen if state.reinject == FROZEN else None
    index = fresh if frozen is None else frozen
    return state._replace(frozen=index, reinject=""), index


def surfaced(state: SessionState, ids: tuple[str, ...]) -> SessionState:
    """``ids`` were surfaced: never again this session (until a compaction)."""
    new = tuple(i for i in ids if i not in state.surfaced)
    return state._replace(surfaced=state.surfaced + new)


def compacting(state: SessionState, *, no_start_after: bool) -> SessionState:
    """A compaction drops what was surfaced; where no session start follows it, the
    next prompt carries the injected index rendered afresh."""
    return state._replace(surfaced=(), reinject=FRESH if no_start_after else state.reinject)


def watch(state: SessionState, offset: int) -> SessionState:
    """Gemini: remember where the chat recording ends (a prompt, once it has settled the
    last mark)."""
    return state._replace(watch=offset)


def settle(state: SessionState) -> tuple[SessionState, int | None]:
    """Gemini: the waiting compression mark, taken (``None``: none waits)."""
    return state._replace(watch=None), state.watch
