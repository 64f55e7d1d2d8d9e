"""Each memory file's detector facts, kept across runs beside the parse cache.

What the detectors read of a body (:data:`~pi_memory.detect.text_features.BodyFacts`:
tokens, numbers, words, content words) costs more to work out than the
joins cost at 10,000 memories, and a store changes a file at a time. So the
facts of each file's bodies are kept in the user's cache directory, keyed
like the parse cache by the file's ``(mtime_ns, size, inode)`` and by
:data:`RULES`: a file that changed is worked out again, alone.

Never trusted over the file: every row carries the body it was made from,
and a body is only given the facts of a row with that very body. A file with
a body the cache has no row for (changed while it was read, or a cache left
by another version of the file) is worked out again and kept anew; a cache
that cannot be read, or holds rows of the wrong shape, is a miss.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from pi_memory.detect.pairs import no_cycle_collection
from pi_memory.detect.text_features import BodyFacts, body_lists, facts_of
from pi_memory.entry import Entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, Optional

#: The cache files' kind (see :func:`pi_memory.fs.parse_cache.lookup`).
KIND: Final = "features"
#: The version of the rules that make a body's facts (tokens, numbers, function
#: words, lemmas, normalisation). Raise it with any change to what
#: :func:`~pi_memory.detect.text_features.body_lists` returns: older rows are then a miss.
RULES: Final = 1

#: A kept row: body, normalised body, tokens, numbers, number-free words (``None``
#: when they are the tokens: the body has no number), content words.
if TYPE_CHECKING:
    Row = tuple[
        str, str, tuple[str, ...], tuple[str, ...], Optional[tuple[str, ...]], tuple[str, ...]
    ]


def known_facts(files: Iterable[tuple[Path, Sequence[Entry]]]) -> dict[str, BodyFacts]:
    """The facts of the bodies of ``files``: each file with the entries read from it.

    Kept facts where the file is unchanged, the rest worked out and kept for
    the next run (a file modified in the last two seconds is not kept: see
    the parse cache's racy rule).
    """
    known: dict[str, BodyFacts] = {}
    # Reading makes a few small containers per body and no cycles: at 100,000
    # memories the cycle collector's passes would cost several times the reading.
    with no_cycle_collection():
        for path, entries in files:
            if entries:
                known.update(_file_facts(path, entries))
    return known


def _file_facts(path: Path, entries: Sequence[Entry]) -> dict[str, BodyFacts]:
    from pi_memory.fs.parse_cache import identity_of, keep, lookup, racy

    try:
        st = os.stat(path)
    except OSError:
        return {}  # the detectors work these bodies out themselves
    identity = identity_of(st)
    cached = lookup(path, identity, _decoded, KIND, RULES)
    found = dict(cached) if cached is not None else {}
    if cached is None or any(entry.body not in found for entry in entries):
        rows = rows_of(entry.body for entry in entries)
        found = dict(map(_decoded, rows))
        if not racy(identity[0]):
            keep(path, identity, rows, KIND, RULES)
    return found


def rows_of(bodies: Iterable[str]) -> list[Row]:
    """A row per distinct body, its strings shared: the cache file holds each word once."""
    shared: dict[str, str] = {}
    one = shared.setdefault

    def canonical(words: tuple[str, ...]) -> tuple[str, ...]:
        return tuple([one(word, word) for word in words])

    rows: list[Row] = []
    for body in dict.fromkeys(bodies):
        norm, tokens, numbers, words, content = body_lists(body)
        kept = canonical(tokens)
        rows.append(
            (body, norm, kept, numbers, canonical(words) if numbers else None, canonical(content))
        )
    return rows


def _decoded(row: Sequence[Any]) -> tuple[str, BodyFacts]:
    """A kept row as ``(body, facts)``; a row of another shape raises (a miss)."""
    body, norm, tokens, numbers, words, content = row
    if not (type(body) is str and type(norm) is str):
        raise TypeError("not a features row")
    return body, facts_of(norm, tokens, numbers, tokens if words is None else words, content)
