"""Text similarity shared by the duplicate and conflict detectors; pure.

Tokens are lowercased word runs. Han text has no word delimiters, so a Han
run is cut into overlapping 2-character shingles instead: "部署脚本" and
"部署流程" then share "部署" the way two English sentences share a word.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Set
from typing import Final

#: Han ideographs (CJK Unified, Extension A, Compatibility).
_HAN: Final = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RUN_RE: Final = re.compile(f"[{_HAN}]+")
#: A word: letters and digits that are not Han (``[^\W_]`` is "word char but not ``_``").
_TOKEN_RE: Final = re.compile(f"[{_HAN}]+|(?:(?![{_HAN}])[^\\W_])+")
#: A number as written: ``3000``, ``1.2.3``, ``0.5``. A version is one value, not three.
_ASCII_TOKEN_RE: Final = re.compile(r"[a-z0-9]+")
_NUMBER_RE: Final = re.compile(r"\d+(?:\.\d+)*")
_SEPARATORS_RE: Final = re.compile(r"[\s\-_./]+")


def _canonical(keyword: str) -> str:
    """The keyword's identity: lowercase with separators removed (``Dev-Server`` → ``devserver``).

    The same rule as the keyword module's canonical key.
    """
    return _SEPARATORS_RE.sub("", keyword.lower())


def shingles(run: str, size: int = 2) -> list[str]:
    """Overlapping ``size``-character pieces of ``run``; a shorter run is its own piece."""
    if len(run) <= size:
        return [run] if run else []
    return [run[i : i + size] for i in range(len(run) - size + 1)]


def token_list(text: str) -> list[str]:
    """Lowercased word tokens in order of first appearance, each once; Han runs as 2-grams."""
    lowered = text.lower()
    if lowered.isascii():
        # The common case, several times faster: no Han, and ``[^\W_]`` is ``[a-z0-9]``.
        return list(dict.fromkeys(_ASCII_TOKEN_RE.findall(lowered)))
    seen: dict[str, None] = {}
    for piece in _TOKEN_RE.findall(lowered):
        if _HAN_RUN_RE.match(piece):
            for gram in shingles(piece):
                seen.setdefault(gram, None)
        else:
            seen.setdefault(piece, None)
    return list(seen)


def tokens(text: str) -> frozenset[str]:
    return frozenset(token_list(text))


def number_list(text: str) -> list[str]:
    """The numbers in ``text`` as written, in order of first appearance, each once."""
    return list(dict.fromkeys(_NUMBER_RE.findall(text)))


def without_numbers(text: str) -> str:
    """``text`` with every number replaced by a space (what is left are the words)."""
    return _NUMBER_RE.sub(" ", text)


def jaccard(a: Set[str], b: Set[str]) -> float:
    """``|a ∩ b| / |a ∪ b|``; 0 when both are empty (nothing in common to measure)."""
    if not a and not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


def keyword_set(keywords: Iterable[str]) -> frozenset[str]:
    """Canonical keys of ``keywords``, empty keys dropped."""
    return frozenset(key for key in map(_canonical, keywords) if key)


def keyword_keys(keywords: Iterable[str]) -> dict[str, str]:
    """Canonical key → the first spelling that produced it (for display)."""
    keys: dict[str, str] = {}
    for keyword in keywords:
        key = _canonical(keyword)
        if key:
            keys.setdefault(key, keyword)
    return keys


# A tolerance so that float rounding in ``t * n`` can only make the filters
# below more permissive, never drop a pair the exact rule would accept.
_EPS: Final = 1e-9


def rarity_ranks(sets: Iterable[Set[str]]) -> dict[str, int]:
    """Each token's position when ordered rarest first (ties alphabetical)."""
    counts: dict[str, int] = {}
    for items in sets:
        for token in items:
            counts[token] = counts.get(token, 0) + 1
    ordered = sorted(counts, key=lambda token: (counts[token], token))
    return {token: rank for rank, token in enumerate(ordered)}


class PrefixIndex:
    """Candidate generation for ``jaccard(x, y) >= threshold`` by prefix filtering.

    If ``J(x, y) >= t`` the sets share at least ``ceil(t * max(|x|, |y|))``
    tokens, so under any fixed token order the first
    ``|x| - ceil(t * |x|) + 1`` tokens of ``x`` and the same prefix of ``y``
    must intersect. Ordering tokens rarest first keeps common words out of the
    prefixes, so posting lists stay short. Every pair the exact rule accepts
    is a candidate; candidates still have to be verified. ``threshold`` must
    be above 0 (at 0 every pair qualifies and there is nothing to filter).
    """

    def __init__(self, threshold: float, ranks: dict[str, int]) -> None:
        self._threshold = threshold
        self._ranks = ranks
        self._postings: dict[str, list[int]] = {}
        self._sizes: dict[int, int] = {}

    def prefix(self, items: Set[str]) -> list[str]:
        size = len(items)
        if size == 0:
            return []
        overlap = max(1, math.ceil(self._threshold * size - _EPS))
        return sorted(items, key=self._ranks.__getitem__)[: size - overlap + 1]

    def probe(self, items: Set[str]) -> set[int]:
        """Keys of indexed sets whose prefix meets ``items``' prefix and whose size fits."""
        size = len(items)
        low = self._threshold * size - _EPS
        high = size / self._threshold + _EPS
        found: set[int] = set()
        sizes = self._sizes
        for token in self.prefix(items):
            for key in self._postings.get(token, ()):
                if low <= sizes[key] <= high:
                    found.add(key)
        return found

    def add(self, key: int, items: Set[str]) -> None:
        self._sizes[key] = len(items)
        for token in self.prefix(items):
            self._postings.setdefault(token, []).append(key)
