"""The memory record shared by every layout, and the small pure rules about it.

An :class:`Entry` is what the engine works on: search, recalls, staleness,
duplicates, conflicts and the write path never see a file format. Only the
modules under ``pi_memory.layouts`` turn entries into bytes and back.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from itertools import repeat

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Iterator
    from typing import Final

TIME_FORMAT: Final = "%Y-%m-%d %H:%M:%S"
ID_RE: Final = re.compile(r"^\d{8}-[0-9a-z]{4}$")

USER: Final = "user"
PROJECT: Final = "project"
LAYERS: Final = (USER, PROJECT)

#: The category files of each layer (pi-memory-auto's storage layout), in display order.
CATEGORY_FILES: Final = {
    USER: ("USER.md", "TOOLING.md", "LESSONS.md"),
    PROJECT: ("CONVENTIONS.md", "DECISIONS.md", "FAILURES.md"),
}
ALL_CATEGORY_FILES: Final = CATEGORY_FILES[USER] + CATEGORY_FILES[PROJECT]


class Entry(NamedTuple):
    """One memory, whatever layout stores it.

    Times are kept as written (``YYYY-MM-DD HH:MM:SS``, local time) so that a
    rewrite never changes bytes the user did not ask to change.
    """

    #: ``YYYYMMDD-xxxx``, unique within the layer.
    id: str
    #: When the memory was first written.
    time: str
    #: The ``p:`` field: the project name the memory was written from.
    project: str
    #: The ``src:`` field: who wrote it (``user``, ``auto``, ``handoff``, …).
    src: str
    #: Exactly one keyword (already coerced on read).
    keyword: str
    #: The memory text, as stored.
    body: str
    #: ``user`` or ``project``.
    layer: str = PROJECT
    #: The file inside the layer directory that holds it (``DECISIONS.md``, ``Test-command.md``).
    file: str = ""
    #: How often the same body was written; 1 unless re-confirmed.
    seen: int = 1
    #: The latest re-confirmation time, ``""`` when never re-confirmed.
    last: str = ""
    #: Ids this entry replaces.
    supersedes: tuple[str, ...] = ()
    #: The id that replaced this entry, ``""`` while it is live.
    superseded_by: str = ""
    #: How many stored keywords were dropped when this row was read (legacy 1-3 rows).
    dropped_keywords: int = 0
    #: Fields only the ``files`` layout has (pi-memory's frontmatter); empty elsewhere.
    name: str = ""
    description: str = ""
    type: str = ""
    created: str = ""
    modified: str = ""
    #: Frontmatter keys this package does not know, kept so a rewrite loses nothing.
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def live(self) -> bool:
        return not self.superseded_by

    @property
    def confirmed(self) -> str:
        """The time that starts the staleness clock: ``last`` when re-confirmed."""
        return self.last or self.time


def is_id(text: str) -> bool:
    return ID_RE.match(text) is not None


def format_time(moment: datetime) -> str:
    return moment.strftime(TIME_FORMAT)


def parse_time(text: str) -> datetime | None:
    """``YYYY-MM-DD HH:MM:SS`` (or an ISO-8601 time) as a naive local datetime."""
    text = text.strip()
    try:
        return datetime.strptime(text, TIME_FORMAT)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone().replace(tzinfo=None)
    return parsed


def new_id(moment: datetime, taken: Container[str]) -> str:
    """A fresh ``YYYYMMDD-xxxx`` id not in ``taken``."""
    day = moment.strftime("%Y%m%d")
    while True:
        candidate = f"{day}-{os.urandom(2).hex()}"  # secrets would import hashlib
        if candidate not in taken:
            return candidate


_TRAILING_PUNCT: Final = ".,;:!?。，；：！？、…"


def normalize_memory_text(body: str) -> str:
    """The identity of a body for write-time de-duplication.

    Case, whitespace and trailing punctuation only: stripping more would make
    genuinely different memories collide, and a collision drops the second one.
    """
    # split() cuts at the code points a regex's \s matches, and drops both ends.
    return _trimmed(" ".join(body.split()).lower())


def normalize_ascii_lowered(lowered: str) -> str:
    """:func:`normalize_memory_text` of an ASCII body already lowercased: ASCII
    case maps no letter to or from whitespace, so lowercasing first makes the same text."""
    return _trimmed(" ".join(lowered.split()))


def normalize_evenly_spaced_each(lowered: Iterable[str]) -> Iterator[str]:
    """:func:`normalize_ascii_lowered` of each of ``lowered``, in the interpreter's C loops,
    for texts whose only whitespace is single spaces between other characters: cutting
    and joining them at their whitespace would give them back unchanged."""
    return map(str.rstrip, map(str.rstrip, lowered, repeat(_TRAILING_PUNCT)))


def _trimmed(text: str) -> str:
    return text.rstrip(_TRAILING_PUNCT).rstrip()
