"""What a hook did, as receipts (:mod:`pi_memory.receipts`), and the notice that tells the user.

Each hook that puts something into the prompt or hands work to the background
appends its receipt; ``doctor`` reads each host's last one to tell whether its
hooks run at all. The notice is the one line a host shows the user and never
the model (``systemMessage``; pi's extension shows it with ``ctx.ui.notify``):
what background jobs learned since a hook last looked, in whichever session
the user is in (a review runs after the session it learned from), and, with
``notice: all``, what this hook put into the prompt.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from pi_memory.receipts import Receipt
else:
    Protocol = object  # the type checker's structural base; typing costs a command milliseconds


#: How a plain-text host's hook marks the notice on stderr (stdout is the context itself).
PLAIN_PREFIX = "pi_memory notice: "
#: In the cache directory: how far into the receipts log the notices have looked.
TOLD_FILE = "receipts-told"


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


def notice(setting: str, own: Sequence[Receipt] = ()) -> str:
    """The line for the person (``""``: none): what background jobs finished since any hook
    last looked (each is told once, in whichever session looks first), and this hook's
    ``own`` receipts. Where the last look reached is one small file in the cache directory,
    replaced without a lock: two hooks looking at once may both tell the same job."""
    from pi_memory import receipts

    if setting not in (receipts.NOTICE_LEARNED, receipts.NOTICE_ALL):
        return ""
    before = _told()
    news, after = receipts.read_after(before)
    if after != before:
        _tell(after)
    jobs = [r for r in news if r.kind == receipts.JOB]
    line = receipts.notice_line(setting, [*jobs, *own])
    if not line:
        return ""
    from pi_memory.inject.sanitize import sanitize_for_injection

    return " ".join(sanitize_for_injection(line).split())


def told_file() -> Path:
    from pi_memory.fs.cache_home import cache_home

    return Path(cache_home()) / TOLD_FILE


def _told() -> tuple[int, int]:
    """How far the last look reached: the log's inode and bytes (``(0, 0)``: never)."""
    try:
        inode, offset = (int(n) for n in told_file().read_text("ascii").split())
    except (OSError, ValueError):
        return (0, 0)
    return (inode, offset) if inode >= 0 and offset >= 0 else (0, 0)


def _tell(position: tuple[int, int]) -> None:
    """Keep ``position``: one write of a fixed-width line over the last (no rename: on a
    busy disk a rename costs a hook milliseconds). Never raises: a position lost or torn
    tells the next look from the log's end."""
    path = told_file()
    line = f"{position[0]:020d} {position[1]:020d}\n".encode("ascii")
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    try:
        try:
            fd = os.open(path, flags, 0o600)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        return
