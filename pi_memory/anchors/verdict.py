"""A verdict on one anchored memory: plain data, all a hook needs to read one."""

from __future__ import annotations

from collections.abc import Mapping

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

FRESH: Final = "fresh"
SUSPECT: Final = "suspect"
UNKNOWN: Final = "unknown"


class Verdict(NamedTuple):
    #: ``fresh``, ``suspect`` or ``unknown``.
    state: str
    #: What changed (``src/deploy.py changed since``), or why it is unknown; "" when fresh.
    reason: str = ""


def verdict_of(verdicts: Mapping[str, Verdict], memory_id: str) -> Verdict:
    """The verdict on one memory; one without anchors is ``unknown`` (time alone judges it)."""
    return verdicts.get(memory_id) or Verdict(UNKNOWN, "no anchor")
