"""The LoCoMo retrieval task as tools/bench_retrieval.py builds it, on a tiny sample."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "tools"))
import bench_retrieval as bench

SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely!", "blip_caption": "a dog"},
        ],
        "session_2_date_time": "10:04 am on 9 June, 2023",
        "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "I moved to Oslo."}],
    },
    "observation": {
        "session_1_observation": {"Ann": [["Ann adopted a puppy.", "D1:1"]]},
        "session_2_observation": {"Bo": [["Bo moved to Oslo.", ["D2:1"]]]},
    },
    "qa": [
        {"question": "Where did Bo move?", "evidence": ["D2:1"], "category": 1},
        {"question": "What pet does Ann have?", "evidence": ["D1:1; D1:2"], "category": 4},
        {"question": "Unanswerable?", "evidence": ["D1:1"], "category": 5},
        {"question": "No evidence?", "evidence": [], "category": 1},
        {"question": "Only a turn?", "evidence": ["D1:2"], "category": 1},
    ],
}


def test_session_date() -> None:
    assert bench.session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert bench.session_date("12:09 am on 2 Feb, 2024") == datetime(2024, 2, 2, 0, 9)


def test_memories_follow_the_task() -> None:
    facts = bench.facts(SAMPLE)
    assert [(m.body, m.keyword, m.time.day) for m in facts] == [
        ("Ann adopted a puppy.", "ann", 8),
        ("Bo moved to Oslo.", "bo", 9),
    ]
    turns = bench.turns(SAMPLE)
    assert [m.body for m in turns] == [
        "Ann: I adopted a puppy.",
        "Bo: Lovely! [image: a dog]",
        "Bo: I moved to Oslo.",
    ]
    asked = bench.questions(SAMPLE)
    assert [q.evidence for q in asked] == [
        frozenset({"D2:1"}),
        frozenset({"D1:1", "D1:2"}),
        frozenset({"D1:2"}),
    ]


@pytest.mark.parametrize(
    ("corpus", "asked", "at_one", "at_five"),
    [
        ("facts", 2, 1.0, 1.0),
        # "Only a turn?" matches nothing: the fallback lists the newest turn first.
        ("turns", 3, 2 / 3, 1.0),
    ],
)
def test_questions_without_a_relevant_fact_are_dropped_only_for_facts(
    tmp_path: Path, corpus: str, asked: int, at_one: float, at_five: float
) -> None:
    score = bench.evaluate([SAMPLE], corpus, tmp_path, datetime(2026, 1, 1))
    assert (score.asked, score.recall[1], score.recall[5]) == (asked, at_one, at_five)


def test_the_prompt_scorer_is_judged_on_the_same_questions(tmp_path: Path) -> None:
    # "Where did Bo move?" and "What pet does Ann have?" each find their fact with two
    # pieces of evidence (a word and the keyword, or two words); both first picks are right.
    score = bench.evaluate([SAMPLE], "facts", tmp_path, datetime(2026, 1, 1))
    assert (score.surfaced, score.surfaced_precision) == (1.0, 1.0)
