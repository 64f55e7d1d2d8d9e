"""MEMORY.md and the injected keyword table, pinned by golden files in tests/data/index/."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_memory.entry import Entry
from pi_memory.keywords import keyword_rows
from pi_memory.layouts.categories.index import (
    CONTRACT,
    Stats,
    advance_watermark,
    layer_block,
    parse_stats,
    refresh_memory_md,
    render_injection,
    render_keyword_table,
    render_memory_md,
)

GOLDEN = Path(__file__).resolve().parent / "data" / "index"


def entry(n: int, keyword: str, *, superseded_by: str = "", layer: str = "project") -> Entry:
    return Entry(
        id=f"20261001-{n:04x}",
        time=f"2026-10-01 10:{n // 60 % 60:02d}:{n % 60:02d}",
        project="myrepo",
        src="user",
        keyword=keyword,
        body=f"Memory number {n} about {keyword}.",
        layer=layer,
        file="DECISIONS.md",
        superseded_by=superseded_by,
    )


def sample() -> list[Entry]:
    keywords = [
        "deploy",
        "deploy",
        "deploy",
        "pnpm",
        "Serialize Conversation",
        "serialize-conversation",
        "svg",
        "部署",
        "utools",
    ]
    entries = [entry(i, k) for i, k in enumerate(keywords)]
    entries.append(entry(50, "retired-only", superseded_by="20261001-0000"))
    return entries


def many(n: int) -> list[Entry]:
    """``n`` keywords, each shared by two memories (so every line carries a count)."""
    return [entry(i, f"topic-{i // 2:03d}-{'x' * (i // 2 % 7)}") for i in range(2 * n)]


def golden(name: str) -> str:
    return (GOLDEN / name).read_text("utf-8")


def test_memory_md_golden() -> None:
    rows = keyword_rows(sample(), {"pnpm": 3, "svg": 9})
    text = render_memory_md(rows, Stats(10, 3, "2026-10-23T10:00:00.000Z"))
    assert text == golden("memory.md")


def test_ordering_is_count_plus_capped_recalls_then_count_then_name() -> None:
    rows = keyword_rows(sample(), {"pnpm": 3, "svg": 9})
    assert [(r.keyword, r.count) for r in rows][:4] == [
        ("svg", 1),  # 1 + min(9, 4) = 5
        ("pnpm", 1),  # 1 + 3 = 4
        ("deploy", 3),  # 3 + 0
        ("Serialize Conversation", 2),  # 2 + 0, and the first-written spelling is shown
    ]


@pytest.mark.parametrize(
    ("budget", "name"),
    [(6000, "table_full.txt"), (1300, "table_packed.txt"), (300, "table_more.txt")],
)
def test_keyword_table_stages(budget: int, name: str) -> None:
    lines = render_keyword_table(keyword_rows(many(80), {}), budget)
    text = "\n".join(lines) + "\n"
    assert text == golden(name)
    assert len(text) <= budget


def test_stage_two_keeps_every_keyword() -> None:
    rows = keyword_rows(many(80), {})
    assert sum(len(line) + 1 for line in render_keyword_table(rows, 6000)) > 1300
    lines = render_keyword_table(rows, 1300)
    shown = " ".join(lines).split()
    assert sum(1 for word in shown if word.startswith("#")) == 80


def test_injection_golden_and_empty() -> None:
    user = [entry(i, k, layer="user") for i, k in enumerate(["macos", "svg", "svg"])]
    blocks = [
        layer_block("global", user, {}, 3000),
        layer_block("project: myrepo", sample(), {}, 3000),
    ]
    text = render_injection(blocks, "python -m pi_memory search --mode tag KEYWORD")
    assert text == golden("injection.txt")
    assert text.startswith(CONTRACT.split("{search}")[0])
    assert "<!--" not in text
    assert render_injection([layer_block("global", [], {}, 3000), ""], "pi-memory search") == ""


@pytest.mark.parametrize(
    ("previous", "now", "expected"),
    [
        (None, 7, Stats(7, 0)),
        (Stats(5, 2), 8, Stats(8, 5)),
        (Stats(9, 4), 6, Stats(6, 4)),  # a merge never makes it negative
    ],
)
def test_watermark(previous: Stats | None, now: int, expected: Stats) -> None:
    assert advance_watermark(previous, now) == expected


def test_refresh_memory_md_reads_back_only_the_stats(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(
        "<!-- stats: entries=8 keywords=1 sinceLast=2 lastConsolidated=never -->\n#hand-edited\n",
        "utf-8",
    )
    refresh_memory_md(tmp_path, sample(), {})
    text = (tmp_path / "MEMORY.md").read_text("utf-8")
    assert "#hand-edited" not in text
    assert parse_stats(text) == Stats(10, 4, "never")
    refresh_memory_md(tmp_path, [], {})
    assert not (tmp_path / "MEMORY.md").exists()
