from __future__ import annotations

from pi_memory.entry import Entry
from pi_memory.jobs.consolidate_plan import Merge, Plan, Rename, apply_plan, parse_plan
from pi_memory.model.redact import redact


def redact_text(text: str) -> str:
    return redact(text).text


def _e(id_: str, keyword: str, body: str, **kw: object) -> Entry:
    return Entry(
        id_,
        f"2026-10-{id_[6:8]} 10:00:00",
        "p",
        "user",
        keyword,
        body,
        "project",
        "DECISIONS.md",
        **kw,
    )  # type: ignore[arg-type]


POOL = [
    _e("20261001-aaaa", "port", "The port is 3000."),
    _e("20261002-bbbb", "port", "The port is 8080.", supersedes=("20261001-zzzz",)),
    _e("20261003-cccc", "deploy", "Deploy with rsync."),
    _e("20261004-dddd", "deploy", "Deploy with rsync, always."),
    _e("20261005-eeee", "old", "Retired.", superseded_by="20261003-cccc"),
]
BY_ID = {e.id: e for e in POOL}


def test_parse_keeps_valid_blocks_and_says_why_others_went() -> None:
    plan = parse_plan(
        "===MERGE===\nKEEP: [20261004-dddd]\nDROP: 20261003-cccc, 20261004-dddd, 20991231-xxxx\n"
        "KEYWORD: #deploy\nTEXT:\nDeploy with rsync, always.\n"
        "===MERGE===\nKEEP: 20261005-eeee\nDROP: 20261001-aaaa\n"
        "===MERGE===\nKEEP: 20261002-bbbb\nDROP: 20261003-cccc\n"
        "===RENAME===\nFROM: #Port\nTO: dev server port\n"
        "===RENAME===\nFROM: port\nTO: again\n"
        "===RENAME===\nFROM: deploy\nTO: a b c d e f g h i j\n",
        POOL,
    )
    # Block 1 names ids that are not there: it is left out whole, so block 3 may use cccc.
    assert plan.merges == (Merge("20261002-bbbb", ("20261003-cccc",)),)
    assert plan.renames == (Rename("port", "dev server port"),)
    assert plan.rejected == (
        "block 1 (MERGE): DROP 20261004-dddd is the kept memory itself",
        "block 1 (MERGE): DROP 20991231-xxxx is not a memory of this layer",
        "block 1 (MERGE): the block is left out",
        "block 2 (MERGE): KEEP 20261005-eeee is retired; a live memory cannot be folded into it",
        "block 5 (RENAME): port is already renamed by an earlier block",
        "block 6 (RENAME): TO unusable ('a b c d e f g h i j': 10 words (at most 8))",
    )


def test_apply_removes_folds_retires_repoints_and_renames() -> None:
    plan = Plan(
        (Merge("20261004-dddd", ("20261003-cccc",)), Merge("20261002-bbbb", ("20261001-aaaa",))),
        (Rename("port", "dev-port"),),
    )
    conflicts = {("20261001-aaaa", "20261002-bbbb")}
    applied = apply_plan(plan, POOL, BY_ID, conflicts, redact=redact_text)
    assert applied.removals == ("20261003-cccc",)
    assert applied.retired == ("20261001-aaaa",)
    got = {e.id: e for e in applied.updates}
    assert got["20261001-aaaa"].superseded_by == "20261002-bbbb"
    assert got["20261001-aaaa"].keyword == "dev-port"
    assert got["20261002-bbbb"].supersedes == ("20261001-zzzz", "20261001-aaaa")
    assert got["20261005-eeee"].superseded_by == "20261004-dddd"  # pointed at the removed one
    assert "20261004-dddd" not in got  # keep unchanged: no rewrite


def test_a_memory_changed_since_the_model_saw_it_is_not_merged() -> None:
    plan = Plan((Merge("20261004-dddd", ("20261003-cccc",), text="Deploy with rsync."),))
    now = [e._replace(body="Edited meanwhile.") if e.id == "20261003-cccc" else e for e in POOL]
    applied = apply_plan(plan, now, BY_ID, set(), redact=redact_text)
    assert (applied.updates, applied.removals) == ((), ())
    assert applied.stale == ("MERGE into 20261004-dddd: a memory changed or vanished meanwhile",)


def test_a_merged_text_is_redacted_before_it_is_stored() -> None:
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    plan = Plan((Merge("20261004-dddd", ("20261003-cccc",), text=f"Push with token {key}."),))
    applied = apply_plan(plan, POOL, BY_ID, set(), redact=redact_text)
    (kept,) = [e for e in applied.updates if e.id == "20261004-dddd"]
    assert key not in kept.body
    assert "[REDACTED:" in kept.body
