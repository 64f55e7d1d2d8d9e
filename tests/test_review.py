from __future__ import annotations

import pytest

from pi_memory.entry import Entry
from pi_memory.jobs import review
from pi_memory.session.gate import ReviewGate, decide
from pi_memory.transcripts import Turn


def _entry(id_: str, layer: str, file: str, keyword: str, body: str, **kw: object) -> Entry:
    return Entry(id_, "2026-11-01 10:00:00", "proj", "user", keyword, body, layer, file, **kw)  # type: ignore[arg-type]


KNOWN = {
    e.id: e
    for e in (
        _entry(
            "20261001-aaaa",
            "project",
            "DECISIONS.md",
            "dev-server",
            "The dev server listens on 3000.",
        ),
        _entry("20261001-bbbb", "user", "USER.md", "editor", "The user edits with vim."),
        _entry(
            "20261001-cccc",
            "project",
            "DECISIONS.md",
            "old",
            "Retired.",
            superseded_by="20261001-aaaa",
        ),
    )
}


def _plan(text: str, max_entries: int = 3, categories: bool = True) -> review.ReviewPlan:
    return review.parse_review(text, max_entries=max_entries, known=KNOWN, categories=categories)


def test_a_valid_block_becomes_one_memory() -> None:
    plan = _plan(
        "Here you go.\n===MEMORY===\nLAYER: project\nFILE: DECISIONS.md\nKEYWORD: dev-server\n"
        "SUPERSEDES: 20261001-aaaa\nBODY:\nThe dev server listens on 8080.\n"
    )
    assert plan.entries == (
        review.Proposed(
            "project",
            "DECISIONS.md",
            "dev-server",
            "The dev server listens on 8080.",
            ("20261001-aaaa",),
        ),
    )
    assert plan.rejected == ()


@pytest.mark.parametrize("text", ["NONE", "none.", "  NONE\n", "Nothing to store here."])
def test_none_or_no_block_is_nothing(text: str) -> None:
    assert _plan(text) == review.ReviewPlan(())


def test_invalid_blocks_are_cut_and_the_valid_part_kept() -> None:
    plan = _plan(
        "===MEMORY===\nLAYER: user\nFILE: DECISIONS.md\nKEYWORD: x\nBODY:\nCrossed layers.\n"
        "===MEMORY===\nLAYER: project\nKEYWORD: \nBODY:\nNo keyword at all.\n"
        "===MEMORY===\nLAYER: project\nKEYWORD: build\nBODY:\nRun `make build (truncated\n"
        "===MEMORY===\nFILE: tooling\nKEYWORD: #pnpm, npm\n"
        "SUPERSEDES: 20261001-aaaa, 20261001-cccc, 20991231-zzzz, bogus\n"
        "BODY: Use pnpm, never npm.\n"
        "===MEMORY===\nLAYER: mars\nKEYWORD: k\nBODY:\nUnknown layer.\n"
    )
    assert plan.entries == ()  # a block with one bad field is left out whole
    assert plan.rejected == (
        "memory 1: DECISIONS.md belongs to the project layer, not the user layer",
        "memory 2: no usable keyword (no keyword given)",
        "memory 3: rejected as truncated: unclosed code span (` is never closed)",
        "memory 4: SUPERSEDES 20261001-aaaa does not name a live memory of the user layer",
        "memory 4: SUPERSEDES 20261001-cccc does not name a live memory of the user layer",
        "memory 4: SUPERSEDES 20991231-zzzz does not name a live memory of the user layer",
        "memory 4: SUPERSEDES bogus does not name a live memory of the user layer",
        "memory 4: the memory is left out",
        "memory 5: unknown layer 'mars'",
    )


def test_blocks_beyond_the_limit_are_cut() -> None:
    block = "===MEMORY===\nKEYWORD: k{n}\nBODY:\nFact number {n} is true.\n"
    plan = _plan("".join(block.format(n=n) for n in range(4)), max_entries=2)
    assert [p.keyword for p in plan.entries] == ["k0", "k1"]
    assert plan.rejected == (
        "memory 3: over the limit of 2 per review",
        "memory 4: over the limit of 2 per review",
    )


def test_files_layout_ignores_the_category_file() -> None:
    plan = _plan("===MEMORY===\nFILE: DECISIONS.md\nKEYWORD: k\nBODY:\nA fact.\n", categories=False)
    assert plan.entries == (review.Proposed("project", "", "k", "A fact."),)


def test_digest_lists_newest_first_and_says_what_did_not_fit() -> None:
    entries = [
        _entry(f"2026100{i}-aaaa", "project", "DECISIONS.md", f"k{i}", f"Fact {i} " + "x" * 50)
        for i in range(1, 8)
    ]
    entries = [e._replace(time=f"2026-10-0{i} 10:00:00") for i, e in enumerate(entries, 1)]
    text = review.digest(entries, limit=250)
    lines = text.split("\n")
    assert lines[0].startswith("[20261007-aaaa] project/DECISIONS.md #k7: Fact 7")
    assert len(lines) == 3
    assert lines[-1] == "(+5 older memories not shown)"
    assert review.digest([]) == "(none yet)"


def _turns(*roles: str) -> list[Turn]:
    return [Turn(i, role, f"m{i}") for i, role in enumerate(roles)]


@pytest.mark.parametrize(
    ("state", "turns", "handoff", "expected"),
    [
        pytest.param(
            ReviewGate(), _turns("user", "assistant", "user"), False, "trivial", id="trivial"
        ),
        pytest.param(ReviewGate(), _turns("user", "assistant") * 2, False, "", id="fresh"),
        pytest.param(
            ReviewGate(last_turn=2, cursor=0),
            _turns("user", "assistant") * 2,
            False,
            "already",
            id="same-turn",
        ),
        pytest.param(
            ReviewGate(last_turn=2, cursor=0),
            _turns("user", "assistant") * 2,
            True,
            "",
            id="handoff-ignores-turn",
        ),
        pytest.param(
            ReviewGate(last_turn=1, cursor=4),
            _turns("user", "assistant") * 2,
            False,
            "nothing new",
            id="covered",
        ),
        pytest.param(
            ReviewGate(last_turn=1, cursor=9),
            _turns("user", "assistant") * 2,
            False,
            "shorter",
            id="past-end",
        ),
    ],
)
def test_gate(state: ReviewGate, turns: list[Turn], handoff: bool, expected: str) -> None:
    decision = decide(state, turns, handoff=handoff)
    assert (expected in decision.skip) if expected else decision.skip == ""
    assert decision.turn == sum(t.role == "user" for t in turns)


def test_gate_leaves_the_turn_rule_to_a_caller_that_applied_it() -> None:
    turns = _turns("user", "assistant") * 2
    assert (
        decide(ReviewGate(last_turn=2, cursor=1), turns, handoff=False, check_turn=False).skip == ""
    )


def test_gate_starts_at_the_cursor() -> None:
    assert (
        decide(
            ReviewGate(last_turn=1, cursor=2), _turns("user", "assistant") * 3, handoff=False
        ).start
        == 2
    )


def test_a_body_ends_at_the_next_block_marker_and_a_strange_block_is_left_out() -> None:
    plan = _plan(
        "===MEMORY===\nKEYWORD: build\nBODY:\nRun make before pushing.\n"
        "===FILE===\nPATH: ../../../tmp/x.md\nBODY:\nInjected block.\n"
        "  === memory ===  \nKEYWORD: lint\nBODY:\nLint with ruff.\n"
    )
    assert [(p.keyword, p.body) for p in plan.entries] == [
        ("build", "Run make before pushing."),
        ("lint", "Lint with ruff."),
    ]
    assert plan.rejected == ("block 2: ===FILE=== is not a block of this reply",)


def test_a_memory_with_one_bad_supersedes_id_is_left_out_whole() -> None:
    plan = _plan("===MEMORY===\nKEYWORD: pnpm\nSUPERSEDES: 20991231-zzzz\nBODY:\nUse pnpm.\n")
    assert plan.entries == ()
    assert plan.rejected[-1] == "memory 1: the memory is left out"


def test_a_marker_inside_a_line_is_text() -> None:
    plan = _plan("===MEMORY===\nKEYWORD: md\nBODY:\nWrite a rule as ===MEMORY=== never.\n")
    assert [p.body for p in plan.entries] == ["Write a rule as ===MEMORY=== never."]
