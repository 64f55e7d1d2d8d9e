"""Secret redaction: the corpus's precision and recall, and the rules' edges."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_memory.model.redact import redact
from tests.conftest import DATA

CORPUS = DATA / "redaction"


def cases(name: str) -> list[dict[str, Any]]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


POSITIVES = cases("positives.jsonl")
NEGATIVES = cases("negatives.jsonl")


def test_the_corpus_is_big_enough() -> None:
    assert len(POSITIVES) >= 100
    assert len(NEGATIVES) >= 100


def test_precision_and_recall_over_the_corpus() -> None:
    found = sum(
        1
        for case in POSITIVES
        if case["secret"] not in (out := redact(case["text"]).text)
        and f"[REDACTED:{case['kind']}]" in out
    )
    false_alarms = [case["text"] for case in NEGATIVES if redact(case["text"]).text != case["text"]]
    recall = found / len(POSITIVES)
    precision = found / (found + len(false_alarms))
    assert recall >= 0.97, f"recall {recall:.3f}"
    assert precision >= 0.98, f"precision {precision:.3f}: {false_alarms}"


@pytest.mark.parametrize("case", NEGATIVES, ids=lambda case: case["text"][:40])
def test_look_alikes_survive(case: dict[str, Any]) -> None:
    assert redact(case["text"]) == (case["text"], 0)


def test_redacting_twice_changes_nothing_more() -> None:
    for case in POSITIVES:
        once = redact(case["text"])
        assert redact(once.text) == (once.text, 0)


def test_placeholders_are_visible_and_counted() -> None:
    key = "AKIA" + "Q3EGRV7ZX2K5W4PT"
    token = "ghp_" + "a1B2" * 9
    out = redact(f"use {key} then {token}; DB_PASSWORD=n0tAGoodIdea")
    assert out.text == (
        "use [REDACTED:aws-key] then [REDACTED:github-token]; DB_PASSWORD=[REDACTED:password]"
    )
    assert out.hits == 3


def test_a_private_span_never_leaves_even_unclosed() -> None:
    assert redact("a <private>x\ny</private> b").text == "a [REDACTED:private] b"
    assert redact("a <private>the rest\nof it").text == "a [REDACTED:private]"
    # Unclosed, it ends with its paragraph: a whole transcript is not lost to one tag.
    out = redact("a <private>salary 120k\n\nnext paragraph")
    assert out.text == "a [REDACTED:private]\n\nnext paragraph"


def test_a_quoted_private_tag_is_a_mention() -> None:
    text = 'wrap it in `<private>` or "<private>" to keep it out'
    assert redact(text) == (text, 0)


def test_credentials_in_a_url_keep_the_rest_of_the_url() -> None:
    out = redact("postgres://app:Zq9-x!2kLm@db.internal:5432/main?sslmode=require")
    assert (
        out.text
        == "postgres://app:[REDACTED:url-credentials]@db.internal:5432/main?sslmode=require"
    )


def test_extra_patterns_from_config() -> None:
    out = redact("ticket ACME-123456 and ACME-12", {"acme-id": r"ACME-\d{6}"})
    assert out == ("ticket [REDACTED:acme-id] and ACME-12", 1)


def _every_rule(text: str) -> tuple[str, int]:
    """``redact`` with every pattern compiled and run, none skipped for its needs."""
    import re

    from pi_memory.model import redact as module

    count = 0
    if "<private>" in text.lower():
        text, count = re.compile(module._PRIVATE, re.IGNORECASE).subn("[REDACTED:private]", text)
    for spec in module._rules():
        rule = module._Rule(spec.kind, re.compile(spec.source), spec.group, spec.accept)
        text, n = module._apply(rule, text)
        count += n
    return text, count


def _variants(text: str) -> list[str]:
    """The text, in other cases, after a letter that matches ASCII ones in any case."""
    return [text, text.upper(), text.lower(), text.swapcase(), f"\u212a {text}", f"{text} \u017f"]


def test_a_rule_is_skipped_only_where_it_could_not_match() -> None:
    texts = [case["text"] for case in POSITIVES + NEGATIVES]
    texts += [f"{a} then {b}" for a, b in zip(texts, reversed(texts))]
    for text in texts:
        for variant in _variants(text):
            assert tuple(redact(variant)) == _every_rule(variant), variant


def test_a_text_without_a_secret_compiles_no_pattern() -> None:
    from pi_memory.model import redact as module

    module._compiled.clear()
    assert redact("The deploy to staging fails on port 5433 since the cache moved.") == (
        "The deploy to staging fails on port 5433 since the cache moved.",
        0,
    )
    assert module._compiled == {}
    assert redact("use AKIA" + "Q3EGRV7ZX2K5W4PT now").text == "use [REDACTED:aws-key] now"
    assert 0 < len(module._compiled) < 9
