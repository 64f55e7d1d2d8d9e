"""Tokenising: a text without Han characters is read without the Han class (an ASCII one
without ``re`` at all), and gives exactly the tokens the whole pattern gives."""

from __future__ import annotations

import random
import re

from pi_memory import tokens
from pi_memory.tokens import tokenize

PIECES = [
    "deploy", "Node.JS", "src/store.ts", "--delete", "---x", "-", "--", ".", "/", "_", "a_b",
    "e2e", "5433", "x", "I", " ", "\t", "\n", ",", "'", "c++", "c#", "K", "café", "部署",
    "備份", "ΣΑΣ", "İstanbul", "x-ray", "a.b.", "..", "the", "with",
]  # fmt: skip


def whole_pattern(text: str) -> list[str]:
    """``tokenize`` as it reads every text: the one pattern with the Han class."""
    pattern = re.compile(tokens._TOKEN_PATTERN)
    seen: dict[str, None] = {}
    for match in pattern.finditer(text.lower()):
        if match.group(1):
            for piece in tokens._han_tokens(match.group()):
                seen.setdefault(piece, None)
        elif match.group() not in tokens.STOPWORDS and not tokens._single_letter(match.group()):
            seen.setdefault(match.group(), None)
    return list(seen)


def test_every_text_gives_the_tokens_of_the_whole_pattern() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))
        assert tokenize(text) == whole_pattern(text), text


def test_the_han_class_is_compiled_only_for_a_text_that_may_hold_han() -> None:
    tokens._TOKEN_RE.clear()
    assert tokenize("Deploy node.js to staging --delete") == [
        "deploy",
        "node.js",
        "staging",
        "--delete",
    ]
    assert tokens._TOKEN_RE == []
    assert tokenize("部署前备份") == ["部署前备份", "部署", "署前", "前备", "备份"]
    assert len(tokens._TOKEN_RE) == 1


def test_an_ascii_text_is_cut_where_the_pattern_cuts_it_character_by_character() -> None:
    """Word characters, the joiners (``.`` ``/`` ``-``) and anything else, in every order:
    the pattern's leading dashes, its single joiners and its ends, read without ``re``."""
    rng = random.Random(7)
    alphabet = "aZ9_-./ :#\t-x"
    ascii_pattern = re.compile(r"-{0,2}\w+(?:[./-]\w+)*")
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        assert tokens._ascii_words(text) == ascii_pattern.findall(text), text
        assert tokenize(text) == whole_pattern(text), text
    every = "".join(map(chr, range(128)))
    assert tokens._ascii_words(every) == ascii_pattern.findall(every)
