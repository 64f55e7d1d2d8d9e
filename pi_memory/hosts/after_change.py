"""After a command or a tool that may have changed what is injected: the next start's note.

Its own module, beside :mod:`pi_memory.hosts.fastpath`: when nothing the injection
reads changed (most searches, many tool calls), the check is a few ``stat`` calls,
and the lifecycle's module is loaded only when there is a note to render again.
"""

from __future__ import annotations

import os
from pathlib import Path


def after_change() -> None:
    """After a command or a tool that may have changed what is injected (a write, a
    search's recalls): the note of the working directory brought up to date for the host that
    last started a session there, so that the next start is answered from it without
    loading the package (:mod:`pi_memory.hosts.quick_hook`), the change paying once for
    what every start would. Costs a few ``stat`` calls when nothing changed. Never
    raises: a failure leaves that start the work."""
    import time

    from pi_memory.hosts import fastpath

    day = time.strftime("%Y-%m-%d")
    try:
        cwd = Path(os.getcwd())  # gone (deleted under the process): nothing to bring up to date
        found = fastpath.stale(cwd, os.environ, day)
        if found is not None and found.host and found.changed:
            from pi_memory.hosts.note_render import rendered

            note = found.note
            rendered(cwd, day, found.host, note.max_context, note.max_bytes, found=found)
    except Exception as exc:  # the memory is written: this only saves a start's time
        from pi_memory.error_handler import log_exception

        log_exception("write: the next session start's note", exc)
