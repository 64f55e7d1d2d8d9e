"""What the files of a layer directory are called, where more than one module needs the name.

A leaf: the lock, the snapshots, both layouts and ``show`` read the name from here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["INBOX_DIR", "INDEX_FILE", "RECALLS_FILE"]

#: The layer's index: derived in the categories layout, hand-editable in the files layout.
INDEX_FILE: Final = "MEMORY.md"
#: The recall log (how often a search credited each keyword), as pi-memory-auto names it.
RECALLS_FILE: Final = "usage.json"
#: Where the review's proposals wait for approval (one JSON file each).
INBOX_DIR: Final = ".inbox"
