"""Search tokens: the words a text is matched by, for search and for the prompt's scorer.

Apart from :mod:`pi_memory.retrieval` because the prompt hook needs these and
nothing else of it: a hook is a new interpreter on every prompt, and the
ranking, paging and rendering of a search are not this event's to import.
"""

from __future__ import annotations

import functools
import re

from pi_memory.keywords import STOPWORDS
from pi_memory.text import HAN_CLASS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: A token: a Han run, or a word with the identifiers' joins (``node.js``, ``--delete``).
_TOKEN_PATTERN: Final = f"([{HAN_CLASS}]+)|-{{0,2}}[^\\W{HAN_CLASS}]+(?:[./-][^\\W{HAN_CLASS}]+)*"
#: The same over a text without Han characters (an ASCII one): no run to set apart.
_ASCII_TOKEN_RE: Final = re.compile(r"()-{0,2}\w+(?:[./-]\w+)*")


@functools.lru_cache(maxsize=1)
def _token_re() -> re.Pattern[str]:
    """:data:`_TOKEN_PATTERN`, compiled when a text needs it: its Han classes take
    milliseconds to compile, and most queries and prompts are ASCII."""
    return re.compile(_TOKEN_PATTERN)


def _han_tokens(run: str) -> list[str]:
    if len(run) <= 2:
        return [run]
    return [run, *(run[i : i + 2] for i in range(len(run) - 1))]


def _single_letter(token: str) -> bool:
    return len(token) == 1 and token.isascii() and token.isalpha()


def tokenize(text: str) -> list[str]:
    """The distinct search tokens of ``text``, in first-seen order.

    Lowercased; identifiers joined by ``.`` ``/`` ``-`` stay whole
    (``node.js``, ``src/store.ts``, ``--delete``); stopwords and single
    letters are dropped; a Han run gives itself and its 2-grams.
    """
    seen: dict[str, None] = {}
    lowered = text.lower()
    pattern = _ASCII_TOKEN_RE if lowered.isascii() else _token_re()
    for match in pattern.finditer(lowered):
        token = match.group()
        if match.group(1):
            for piece in _han_tokens(token):
                seen.setdefault(piece, None)
        elif token not in STOPWORDS and not _single_letter(token):
            seen.setdefault(token, None)
    return list(seen)
