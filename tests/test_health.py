from __future__ import annotations

import json

import pytest

from pi_memory.detect.conflicts import find_conflicts
from pi_memory.detect.duplicates import find_duplicates
from pi_memory.detect.health import LayerHealth, health_json, layer_health, render_health
from pi_memory.entry import Entry
from tests.conftest import DATA
from tests.test_duplicates import entry

GOLDEN = DATA / "health"


def project_store() -> list[Entry]:
    rows = [
        entry("20261001-aaaa", "Deploy goes through rsync to the staging host.", "deploy"),
        entry("20261020-bbbb", "Deploy goes through rsync to the staging host, always.", "Deploy"),
        entry("20261001-cccc", "The dev server listens on port 3000.", "dev-server"),
        entry("20261002-dddd", "The dev server listens on port 8080.", "dev-server"),
        entry(
            "20261003-eeee", "Old rule that was replaced.", "rules", superseded_by="20261004-ffff"
        ),
        entry("20261004-ffff", "The rule that replaced it.", "rules"),
        entry("20261005-0001", "Tests run with pytest -q from the repository root.", "tests"),
        entry("20260106-0002", "Lint with ruff check and ruff format --check.", "lint"),
        entry("20260107-0003", "Type-check with mypy --strict.", "typing"),
        entry("20261008-0004", "Another retired fact.", "typing", superseded_by="20260107-0003"),
    ]
    rows[2] = rows[2]._replace(file="CONVENTIONS.md")
    # The same rows in the user layer must not leak into the project's report.
    user = [e._replace(layer="user", id=e.id[:-4] + "9999") for e in rows[:4]]
    return rows + user


def project_health(recalls: dict[str, int], stale: dict[str, int]) -> LayerHealth:
    entries = project_store()
    return layer_health(
        "project", entries, recalls, stale, find_duplicates(entries), find_conflicts(entries)
    )


RECALLS = {"deploy": 3, "Dev Server": 2, "tests": 1, "unknown": 4}
STALE = {"CONVENTIONS.md": 1, "DECISIONS.md": 2, "FAILURES.md": 0}


def golden(name: str) -> str:
    return (GOLDEN / name).read_bytes().decode("utf-8")


def rendered(h: LayerHealth, label: str = "project") -> str:
    return "\n".join(render_health(h, label)) + "\n"


def test_full_block_matches_golden() -> None:
    assert rendered(project_health(RECALLS, STALE)) == golden("full.txt")


def test_json_matches_golden() -> None:
    text = json.dumps(health_json(project_health(RECALLS, STALE)), indent=2, ensure_ascii=False)
    assert text + "\n" == golden("full.json")


def test_counts() -> None:
    h = project_health(RECALLS, STALE)
    assert h.superseded == 2
    # live keywords: deploy, dev-server, rules, tests, lint, typing
    assert h.keywords == 6
    assert h.never_recalled == 3  # rules, lint, typing
    assert h.stale == (("DECISIONS.md", 2), ("CONVENTIONS.md", 1))
    assert [(p.a, p.b) for p in h.merge_candidates] == [("20261001-aaaa", "20261020-bbbb")]
    assert [(p.older, p.newer) for p in h.conflicts] == [("20261001-cccc", "20261002-dddd")]


def test_never_recalled_waits_for_five_recalls() -> None:
    four = project_health({"deploy": 4}, {})
    assert four.never_recalled is None
    assert "never recalled" not in rendered(four)
    five = project_health({"deploy": 4, "lint": 1}, {})
    assert five.never_recalled == 4
    assert "4/6 keywords never recalled" in rendered(five)


def test_a_quiet_layer_says_ok_and_nothing_else() -> None:
    entries = [entry("20261001-aaaa", "Only one memory.", "solo")]
    h = layer_health("project", entries, {"solo": 9}, {}, [], [])
    assert render_health(h, "project") == ["  health: ok"]
    assert health_json(h) == {
        "superseded": 0,
        "stale": {},
        "never_recalled": 0,
        "merge_candidates": [],
        "conflicts": [],
        "unreadable": [],
    }


def test_long_lists_are_capped() -> None:
    names = ["api", "web", "db", "queue", "cache", "auth", "mail"]
    ports = [
        entry(f"202610{10 + i:02d}-{k}{i:03x}", f"Service {name} listens on port {3000 + k}.", name)
        for i, name in enumerate(names)
        for k in range(2)
    ]
    facts = [
        entry(
            f"202611{10 + i:02d}-{k}{i:03x}", f"Fact {name} stays the same {tail}", name + "-fact"
        )
        for i, name in enumerate(["alpha", "beta", "gamma", "delta", "eps", "zeta"])
        for k, tail in enumerate(["always", "always, really"])
    ]
    entries = ports + facts
    h = layer_health("project", entries, {}, {}, find_duplicates(entries), find_conflicts(entries))
    assert len(h.conflicts) == 7
    assert len(h.merge_candidates) == 6
    assert rendered(h) == golden("capped.txt")
    data = health_json(h)
    assert (len(data["conflicts"]), len(data["merge_candidates"])) == (7, 6)


def test_files_layout_rows_and_user_label() -> None:
    entries = [
        entry("20261001-aaaa", "SSH on staging uses port 22.", "ssh")._replace(
            layer="user",
            file="SSH-port.md",
        ),
        entry("20261002-bbbb", "SSH on staging uses port 2222.", "ssh")._replace(
            layer="user",
            file="SSH-port-2.md",
        ),
    ]
    h = layer_health("user", entries, {}, {}, find_duplicates(entries), find_conflicts(entries))
    assert rendered(h, "user") == golden("files_layout_user.txt")


@pytest.mark.parametrize("seed", range(5))
def test_the_report_does_not_depend_on_input_order(seed: int) -> None:
    from tests.similarity_stores import random_store, shuffled

    entries = random_store(3000 + seed, 200)
    other = shuffled(entries, seed)

    def report(rows: list[Entry]) -> str:
        h = layer_health("project", rows, {}, {}, find_duplicates(rows), find_conflicts(rows))
        return rendered(h) + json.dumps(health_json(h))

    assert report(other) == report(entries)


def test_compact_is_advised_only_when_it_can_run() -> None:
    h = project_health(RECALLS, STALE)
    without = rendered(h)
    assert "compact" not in without and "supersedes:[" not in without
    ready = "\n".join(render_health(h, "project", compact_ready=True))
    assert "merge candidates (1) — python -m pi_memory compact project:" in ready
    assert "or python -m pi_memory compact project to let the pass decide:" in ready
