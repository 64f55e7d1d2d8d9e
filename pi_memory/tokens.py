"""Search tokens: the words a text is matched by, for search and for the prompt's scorer.

Apart from :mod:`pi_memory.retrieval` because the prompt hook needs these and
nothing else of it: a hook is a new interpreter on every prompt, and the
ranking, paging and rendering of a search are not this event's to import.
"""

from __future__ import annotations

from pi_memory.keywords import STOPWORDS
from pi_memory.text import HAN_CLASS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Final

#: A token: a Han run, or a word with the identifiers' joins (``node.js``, ``--delete``).
_TOKEN_PATTERN: Final = f"([{HAN_CLASS}]+)|-{{0,2}}[^\\W{HAN_CLASS}]+(?:[./-][^\\W{HAN_CLASS}]+)*"


#: :data:`_TOKEN_PATTERN` once compiled (a list: ``functools`` costs a prompt's hook).
_TOKEN_RE: list[re.Pattern[str]] = []


def _token_re() -> re.Pattern[str]:
    """:data:`_TOKEN_PATTERN`, compiled when a text needs it: its Han classes take
    milliseconds to compile, and most queries and prompts are ASCII."""
    if not _TOKEN_RE:
        import re

        _TOKEN_RE.append(re.compile(_TOKEN_PATTERN))
    return _TOKEN_RE[0]


#: Each ASCII character as :func:`_ascii_words` reads it: ``w`` a word character (``\\w``),
#: ``.`` a joiner (``.`` ``/``), ``-`` (a joiner, or a leading dash), `` `` anything else.
_CLASSES: Final = {
    code: "w"
    if chr(code).isalnum() or chr(code) == "_"
    else {".": ".", "/": ".", "-": "-"}.get(chr(code), " ")
    for code in range(128)
}


def _ascii_words(text: str) -> list[str]:
    """The matches of ``-{0,2}\\w+(?:[./-]\\w+)*`` in the ASCII ``text``, in order, without
    ``re`` (a prompt's hook would import it for this alone): the text is cut where a
    character can be in no match, and a piece that is one word is one match."""
    classes = text.translate(_CLASSES)
    found: list[str] = []
    at = 0
    for piece in classes.split(" "):
        size = len(piece)
        if size and "." not in piece and "-" not in piece:
            found.append(text[at : at + size])
        elif size:
            _joined(text, piece, at, found)
        at += size + 1
    return found


def _joined(text: str, piece: str, at: int, found: list[str]) -> None:
    """The matches in a piece of word characters and joiners that starts at ``at``: a run
    of words and the single joiners between them, after at most two dashes of the run of
    joiners before it (two joiners in a row end a match, as the pattern has it)."""
    runs: list[tuple[bool, int, int]] = []
    start = 0
    while start < len(piece):
        word = piece[start] == "w"
        end = start + 1
        while end < len(piece) and (piece[end] == "w") == word:
            end += 1
        runs.append((word, start, end))
        start = end
    k = 0
    while k < len(runs):
        word, first, last = runs[k]
        if not word:
            k += 1
            continue
        if k:  # the dashes (two at most) that end the joiners before it
            floor = max(runs[k - 1][1], first - 2)
            while first > floor and piece[first - 1] == "-":
                first -= 1
        while k + 2 < len(runs) and runs[k + 1][2] - runs[k + 1][1] == 1:
            last = runs[k + 2][2]
            k += 2
        found.append(text[at + first : at + last])
        k += 1


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
    if lowered.isascii():
        for token in _ascii_words(lowered):
            if token not in STOPWORDS and not _single_letter(token):
                seen.setdefault(token, None)
        return list(seen)
    for match in _token_re().finditer(lowered):
        token = match.group()
        if match.group(1):
            for piece in _han_tokens(token):
                seen.setdefault(piece, None)
        elif token not in STOPWORDS and not _single_letter(token):
            seen.setdefault(token, None)
    return list(seen)
