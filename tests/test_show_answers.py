"""``show`` says what is true and advises only commands that work, as they are typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inproc import call

LAYER = Path(".pi/agent/memory-auto")


def row(entry_id: str, keyword: str, body: str, **more: str) -> str:
    extra = "".join(f" | {key}: {value}" for key, value in more.items())
    return (
        f"<!-- mid: {entry_id} | t: 2026-10-01 10:00:00 | p: repo | src: user"
        f" | tags: {keyword}{extra} -->\n{body}\n\n"
    )


def test_the_advised_command_resolves_the_conflict(repo: Path) -> None:
    older = "The dev server listens on port 3000."
    newer = "The dev server listens on port 8080."
    for body in (older, newer):
        assert call("write", "--keyword", "dev-server", body, cwd=repo).code == 0
    shown = call("show", cwd=repo).out
    assert "supersedes:[" not in shown and "compact" not in shown
    advice = next(line for line in shown.splitlines() if "superseded requirements" in line)
    assert "python -m pi_memory write --layer project --keyword KEYWORD --supersedes OLDER_ID" in (
        advice
    )
    data = json.loads(call("show", "--json", cwd=repo).out)
    pair = data["layers"]["project"]["health"]["conflicts"][0]
    found = json.loads(call("search", "--json", "--mode", "id", pair["newer"], cwd=repo).out)
    newer = found["results"][0]["body"]
    # Follow the advice to the letter.
    run = call(
        "write",
        "--layer",
        "project",
        "--keyword",
        "dev-server",
        "--supersedes",
        pair["older"],
        newer,
        cwd=repo,
    )
    assert run.code == 0, run.err
    data = json.loads(call("show", "--json", cwd=repo).out)
    assert data["layers"]["project"]["health"]["conflicts"] == []
    assert data["layers"]["project"]["memories"] == 1


def test_a_capped_keyword_table_says_so(repo: Path) -> None:
    layer = repo / LAYER
    layer.mkdir(parents=True)
    rows = [row(f"20261001-{i:04d}", f"topic{i}", f"Fact number {i} is here.") for i in range(230)]
    (layer / "CONVENTIONS.md").write_text("".join(rows), "utf-8")
    shown = call("show", cwd=repo).out
    head = next(line for line in shown.splitlines() if line.startswith("project: repo"))
    assert head == "project: repo — 230 memories, 230 keywords (the table shows the top 200)"
    assert sum(1 for line in shown.splitlines() if line.startswith("  #topic")) == 200
    data = json.loads(call("show", "--json", cwd=repo).out)["layers"]["project"]
    assert data["keywords"] == 230 and len(data["table"]) == 200


def test_rebuild_and_show_count_memories_alike(repo: Path) -> None:
    layer = repo / LAYER
    layer.mkdir(parents=True)
    text = row("20261001-0001", "a", "Old fact.", **{"superseded-by": "20261001-0002"})
    text += row("20261001-0002", "a", "New fact.") + row("20261001-0003", "b", "Other fact.")
    (layer / "CONVENTIONS.md").write_text(text, "utf-8")
    shown = call("show", cwd=repo).out
    assert "project: repo — 2 memories, 2 keywords" in shown
    rebuilt = call("rebuild", "project", cwd=repo)
    assert rebuilt.out.startswith("rebuilt project layer: 2 memories (+1 superseded) · ")


@pytest.mark.parametrize(("layer", "command"), [("project", "unlock"), ("user", "unlock user")])
def test_the_lock_line_names_the_command_that_exists(
    repo: Path, hermetic_home: Path, layer: str, command: str
) -> None:
    assert call("write", "--layer", layer, "--keyword", "k", "A fact.", cwd=repo).code == 0
    directory = repo / LAYER if layer == "project" else hermetic_home / ".pi/agent/memory-auto"
    (directory / ".lock").write_bytes(b"")
    shown = call("show", cwd=repo).out
    lock = f"  lock: unreadable — run /memory unlock (here: python -m pi_memory {command})"
    assert lock in shown.splitlines()
    assert f"writes to this layer fail until python -m pi_memory {command}" in shown
