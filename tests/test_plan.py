"""The write and import decisions, on plain entries: no disk, no lock, no layout."""

from __future__ import annotations

import pytest

from pi_memory.entry import Entry
from pi_memory.errors import EntryRejected
from pi_memory.plan import (
    WriteRequest,
    checked_supersedes,
    entries_after,
    plan_import,
    plan_write,
)

STAMP = "2026-10-12 09:30:00"
FRESH = "20261012-ffff"


def entry(entry_id: str, body: str, **fields: object) -> Entry:
    base: dict[str, object] = {
        "id": entry_id,
        "time": "2026-10-01 10:00:00",
        "project": "shop",
        "src": "user",
        "keyword": "deploy",
        "body": body,
        "layer": "project",
        "file": "DECISIONS.md",
    }
    base.update(fields)
    return Entry(**base)  # type: ignore[arg-type]


def request(body: str, supersedes: tuple[str, ...] = (), **fields: object) -> WriteRequest:
    base: dict[str, object] = {
        "layer": "project",
        "body": body,
        "keyword": "deploy",
        "file": "CONVENTIONS.md",
        "supersedes": supersedes,
        "src": "agent",
        "project": "shop",
        "stamp": STAMP,
    }
    base.update(fields)
    return WriteRequest(**base)  # type: ignore[arg-type]


OLD = entry("20261001-aaaa", "Deploy with rsync.")
OTHER = entry("20261002-bbbb", "Tests run with pytest -q.", keyword="tests")
GONE = entry("20261003-cccc", "Deploy with scp.", superseded_by="20261001-aaaa")


def test_a_new_body_is_a_new_entry_with_the_fresh_id() -> None:
    plan = plan_write([OLD, OTHER], request("Deploy on Tuesdays only."), FRESH)
    assert not plan.deduped
    assert plan.entry == Entry(
        id=FRESH,
        time=STAMP,
        project="shop",
        src="agent",
        keyword="deploy",
        body="Deploy on Tuesdays only.",
        layer="project",
        file="CONVENTIONS.md",
    )
    assert (plan.retire, plan.unknown) == ((), ())


def test_the_same_body_repeats_the_live_memory() -> None:
    # Case, spacing and a trailing full stop do not make a new memory.
    plan = plan_write([OLD, OTHER], request("deploy  with RSYNC"), FRESH)
    assert plan.deduped
    assert plan.entry == OLD._replace(seen=2, last=STAMP)


def test_a_superseded_memory_is_not_repeated_but_written_anew() -> None:
    plan = plan_write([OLD, GONE], request("Deploy with scp."), FRESH)
    assert not plan.deduped
    assert plan.entry.id == FRESH


def test_superseding_retires_live_memories_and_reports_unknown_ids() -> None:
    wanted = (OTHER.id, GONE.id, "20260101-0000")
    plan = plan_write([OLD, OTHER, GONE], request("A new fact.", wanted), FRESH)
    assert plan.entry.supersedes == wanted
    assert plan.retire == (OTHER._replace(superseded_by=FRESH),)  # GONE is already retired
    assert plan.unknown == ("20260101-0000",)


def test_a_repeat_merges_links_and_never_supersedes_itself() -> None:
    first = OLD._replace(supersedes=(GONE.id,))
    wanted = (OLD.id, OTHER.id, GONE.id)
    plan = plan_write([first, OTHER, GONE], request(OLD.body, wanted), FRESH)
    assert plan.deduped
    assert plan.entry.supersedes == (GONE.id, OTHER.id)
    assert plan.retire == (OTHER._replace(superseded_by=OLD.id),)
    assert plan.unknown == ()


def test_entries_after_a_write() -> None:
    new = entry(FRESH, "A new fact.")
    retired = OTHER._replace(superseded_by=FRESH)
    assert entries_after([OLD, OTHER], new, False, [retired]) == [OLD, retired, new]
    bumped = OLD._replace(seen=2)
    assert entries_after([OLD, OTHER], bumped, True, []) == [bumped, OTHER]


def test_supersedes_must_be_ids_and_count_once() -> None:
    assert checked_supersedes([OLD.id, OTHER.id, OLD.id]) == (OLD.id, OTHER.id)
    with pytest.raises(EntryRejected, match="not 'deploy'"):
        checked_supersedes([OLD.id, "deploy"])


def test_import_sorts_new_identical_and_differing() -> None:
    changed = OTHER._replace(seen=3, modified="2026-10-05T00:00:00.000Z")
    source = [OLD, changed, entry("20261004-dddd", "New here."), OLD]
    plan = plan_import(source, [OLD, OTHER])
    assert [e.id for e in plan.new] == ["20261004-dddd"]
    assert plan.identical == 1  # OLD, counted once though the source lists it twice
    assert plan.differing == (OTHER._replace(seen=3, modified="2026-10-05T00:00:00.000Z"),)


def test_import_compares_src_as_the_target_stores_it() -> None:
    bare = OLD._replace(src="")
    assert plan_import([bare], [OLD], default_src="user").identical == 1
    assert len(plan_import([bare], [OLD], default_src="").differing) == 1
