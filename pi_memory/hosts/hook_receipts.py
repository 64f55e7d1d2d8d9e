"""What a hook did, as receipts (:mod:`pi_memory.receipts`), and the notice that tells the user.

Each hook that puts something into the prompt or hands work to the background
appends its receipt; ``doctor`` reads each host's last one to tell whether its
hooks run at all. The notice is the one line a host shows the user and never
the model (``systemMessage``; pi's extension shows it with ``ctx.ui.notify``):
what this session's background jobs learned since the session last looked,
and, with ``notice: all``, what this hook put into the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pi_memory.receipts import Receipt
    from pi_memory.session.state import SessionState

#: How a plain-text host's hook marks the notice on stderr (stdout is the context itself).
PLAIN_PREFIX = "pi_memory notice: "


class Hook(Protocol):
    """What a receipt needs of a hook's event (:class:`pi_memory.hosts.lifecycle.HookEvent`)."""

    @property
    def host(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def started(self) -> float: ...


def write(
    event: Hook,
    what: str,
    *,
    text: str = "",
    ids: Sequence[str] = (),
    layers: Sequence[str] = (),
    outcome: str = "",
    note: str = "",
) -> Receipt:
    """Append the hook's receipt for ``what`` (``text``: what went into the prompt)."""
    from pi_memory import receipts

    receipt = receipts.made(
        receipts.HOOK,
        what,
        host=event.host,
        session=event.session_id,
        text=text,
        started=event.started or None,
        ids=tuple(ids),
        layers=tuple(layers),
        outcome=outcome or (receipts.OK if text else receipts.NOTHING),
        note=note,
    )
    receipts.append(receipt)
    return receipt


def notice(
    setting: str, state: SessionState, session: str, own: Sequence[Receipt] = ()
) -> tuple[str, SessionState]:
    """The line for the user (``""``: none) and the session's state after looking: the jobs
    of ``session`` that finished since it last looked, and this hook's ``own`` receipts."""
    from pi_memory import receipts

    if setting not in (receipts.NOTICE_LEARNED, receipts.NOTICE_ALL) or not session:
        return "", state
    news, told = receipts.read_after(state.told)
    jobs = [r for r in news if r.kind == receipts.JOB and r.session == session]
    line = receipts.notice_line(setting, [*jobs, *own])
    if line:
        from pi_memory.inject.sanitize import sanitize_for_injection

        line = " ".join(sanitize_for_injection(line).split())
    return line, state._replace(told=told)
