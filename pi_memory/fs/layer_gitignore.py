"""The project layer's own ``.gitignore``: what a committed layer must never carry.

The project layer lives in the repository and is meant to be committed, but
its directory also holds the write lock, temp files of writes in progress (or
interrupted), the recall log, rebuild's ``.bak`` copies and snapshots. The file
is created by a write when it is missing; one that exists, whatever it says,
is the user's and is never changed.
"""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

NAME: Final = ".gitignore"
TEXT: Final = "\n".join(
    [
        "# Written by pi_memory: what in this memory directory must never be committed.",
        "# Commit the category files and this file.",
        ".lock",
        ".lock.*",
        ".*.tmp",
        "usage.json",
        "*.bak",
        ".backups/",
        "",
    ]
)


def ensure_gitignore(directory: Path, text: str = TEXT) -> None:
    """Create ``directory/.gitignore`` holding ``text`` if there is none; never change an
    existing one."""
    import os

    path = directory / NAME
    if os.path.lexists(path):
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError:
        return  # created meanwhile, or a directory we cannot write: writes report that
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


#: The user layer's ``.gitignore`` when ``sync`` keeps it in a git repository: only its
#: Markdown files and its git rules travel (not the recall log, the logs, the spend
#: ledger, snapshots or kept copies, which are this machine's).
SYNC_TEXT: Final = "\n".join(
    [
        "# Written by pi_memory sync: only the memory files and these rules travel.",
        "/*",
        "!/*.md",
        "!/.gitignore",
        "!/.gitattributes",
        "",
    ]
)
#: Never committed, whatever a layer's own ``.gitignore`` says (git's ``info/exclude``).
NEVER_COMMITTED: Final = ".lock\n.lock.*\n.*.tmp\n"
