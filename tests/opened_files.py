"""The paths a piece of code opens, seen by an audit hook.

An audit hook cannot be removed, so one is added for the whole test run, the first
time this module is imported, and it records only while :func:`opened_during` asks.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

_OPENED: list[str] = []
_WATCHING: list[bool] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if _WATCHING and event == "open" and isinstance(args[0], (str, Path)):
        _OPENED.append(str(args[0]))


sys.addaudithook(_audit)


def opened_during(call: Callable[[], object]) -> list[str]:
    """Every path ``call`` opened (by ``open``, ``Path.read_*``, ``io``), in order."""
    _OPENED.clear()
    _WATCHING.append(True)
    try:
        call()
    finally:
        _WATCHING.clear()
    return list(_OPENED)
