"""The receipts as the viewer shows them: what a receipt says in words, and a table of them.

Read through :mod:`pi_memory.receipts` (the log the hooks and jobs append to);
the memory page lists those naming one memory, the sessions page each host's.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_memory.viewer.html import esc, link, table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.receipts import Receipt
    from pi_memory.viewer.app import App

#: Ids listed on one receipt's line; the rest are counted.
SHOWN_IDS: Final = 8


def what(receipt: Receipt) -> str:
    """One receipt in words: ``surfaced 3 memories``, ``review: learned 2``."""
    from pi_memory import receipts

    n = len(receipt.ids)
    memories = f"{n} {'memory' if n == 1 else 'memories'}"
    if receipt.event == receipts.INJECT:
        return f"injected the index ({memories}, ~{receipt.tokens:,} tokens)"
    if receipt.event == receipts.SURFACE:
        return f"surfaced {memories} (~{receipt.tokens:,} tokens)"
    if receipt.event == receipts.SCHEDULE:
        return "scheduled background work"
    if receipt.learned:
        return f"{receipt.event}: learned {memories}"
    return f"{receipt.event}: {receipt.outcome}"


def ids(app: App, receipt: Receipt) -> str:
    shown = [link(app, i, "/memories", q=i) for i in receipt.ids[:SHOWN_IDS]]
    more = len(receipt.ids) - SHOWN_IDS
    return " ".join(shown) + (f" … +{more}" if more > 0 else "")


def receipts_table(app: App, found: Sequence[Receipt]) -> str:
    rows = [
        (
            esc(r.at[:16].replace("T", " ")),
            esc(r.host),
            esc(what(r)) + (f'<br><span class="meta">{esc(r.note)}</span>' if r.note else ""),
            esc(r.session[:12]),
            ids(app, r),
        )
        for r in reversed(found)
    ]
    return table(("when", "host", "what", "session", "memories"), rows)
