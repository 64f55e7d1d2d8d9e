"""A function's answers kept by argument, without ``functools``; pure.

``functools`` brings ``collections`` with it, which a prompt's hook cannot
afford; and a hit on :class:`Memo` is a plain dictionary look-up, in C, where
an ``lru_cache`` hit also keeps its recency order.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    K = TypeVar("K")
    V = TypeVar("V")


class Memo(dict["K", "V"]):
    """``make``'s answer for each key, worked out on first sight and kept while fewer
    than ``cap`` are (past that, worked out each time): look it up with ``memo[key]``,
    or call ``memo.__getitem__``."""

    __slots__ = ("_cap", "_make")

    def __init__(self, make: Callable[[K], V], cap: int) -> None:
        super().__init__()
        self._make = make
        self._cap = cap

    def __missing__(self, key: K) -> V:
        found = self._make(key)
        if len(self) < self._cap:
            self[key] = found
        return found
