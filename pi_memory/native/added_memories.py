"""The ``## Gemini Added Memories`` section of a ``GEMINI.md`` file.

Gemini CLI's ``save_memory`` tool appended each fact as one list item under that
heading, in the user's ``GEMINI.md`` (the user layer) and in a project's (the
project layer); the tool is gone, the sections remain in users' files. Only
that section is read: the rest of the file is the person's own instructions.
"""

from __future__ import annotations

from pi_memory.native import Remembered, section_items

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

HEADING: Final = "## Gemini Added Memories"


def read_section(layer: str, text: str) -> list[Remembered]:
    """The section's items as notes of ``layer`` (none when the file has no section)."""
    return [Remembered(item, (), layer) for item in section_items(text, HEADING)]
