"""The shared text rules, and that every tokenizer reads Han the same way."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

from pi_memory.detect.text_features import token_list
from pi_memory.keywords import keyword_issue
from pi_memory.text import (
    HAN_RANGES,
    JS_SPACE,
    cut_utf8,
    is_han,
    iso_now,
    iso_timestamp,
    js_trim,
    utf8_len,
)
from pi_memory.tokens import tokenize

# The first and last code point of each range, and the neighbours just outside.
EDGES = sorted({cp for low, high in HAN_RANGES for cp in (low - 1, low, high, high + 1)})


@pytest.mark.parametrize("code", EDGES, ids=lambda cp: f"U+{cp:04X}")
def test_every_tokenizer_agrees_on_what_is_han(code: int) -> None:
    char = chr(code)
    han = is_han(char)
    assert han == any(low <= code <= high for low, high in HAN_RANGES)
    run = char * 3
    if han:
        assert tokenize(run) == [run, char * 2]
        assert token_list(run) == [char * 2]
        assert keyword_issue(char * 9) == "9 Chinese characters (at most 8)"
    else:
        assert tokenize(run) in ([], [run])
        assert token_list(run) in ([], [run])
        assert keyword_issue(char * 9) != "9 Chinese characters (at most 8)"


def test_js_trim_is_ecmascript_trim() -> None:
    assert js_trim("\ufeff\u3000 a b\u00a0\n") == "a b"
    # U+0085 and U+001C are Python whitespace, not ECMAScript whitespace.
    assert js_trim("\x85a\x1c") == "\x85a\x1c"
    assert all(not js_trim(ch) for ch in JS_SPACE)


def _cut_by_code_points(text: str, max_bytes: int) -> str:
    size = 0
    for i, ch in enumerate(text):
        size += utf8_len(ch)
        if size > max_bytes:
            return text[:i]
    return text


def test_cut_utf8_keeps_whole_code_points() -> None:
    assert cut_utf8("a字😀", 0) == ""
    assert cut_utf8("a字😀", 3) == "a"
    assert cut_utf8("a字😀", 4) == "a字"
    assert cut_utf8("a字😀", 7) == "a字"
    assert cut_utf8("a字😀", 8) == "a字😀"
    rng = random.Random(7)
    alphabet = "aé字😀\udc80"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        budget = rng.randint(-1, 30)
        assert cut_utf8(text, budget) == _cut_by_code_points(text, budget)


def test_iso_timestamp_is_javascript_to_iso_string() -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 6999, tzinfo=timezone(timedelta(hours=2)))
    assert iso_timestamp(moment) == "2026-01-02T01:04:05.006Z"
    now = iso_now()
    assert len(now) == 24
    assert now.endswith("Z")
    parsed = datetime.fromisoformat(now[:-1]).replace(tzinfo=timezone.utc)
    assert abs((datetime.now(timezone.utc) - parsed).total_seconds()) < 60
