"""``rebuild`` with a model end to end: keywords re-derived in batches of 12, collapsed reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fake_provider import Fail, FakeProvider, Say
from tests.jobhelp import (
    category_row,
    check_golden,
    check_golden_json,
    cli,
    configure,
    files_project,
    picture,
)

IDS = [f"202610{n + 1:02d}-{n:04x}" for n in range(14)]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    store = root / ".pi" / "agent" / "memory-auto"
    store.mkdir(parents=True)
    rows = [
        category_row(IDS[n], f"2026-10-{n + 1:02d} 10:00:00", f"topic {n}", f"Fact {n} holds.")
        for n in range(12)
    ]
    rows.append(
        category_row(
            IDS[12], "2026-10-13 10:00:00", "#deploy #rsync #staging", "Deploy with rsync."
        )
    )
    rows.append(category_row(IDS[13], "2026-10-14 10:00:00", "tests", "Run pytest -q."))
    (store / "DECISIONS.md").write_text("".join(rows))
    monkeypatch.chdir(root)
    return store


def _reply(batch: range, extra: str = "") -> str:
    return "".join(f"{IDS[n]}: facts\n" for n in batch) + extra


def test_keywords_are_re_derived_in_batches_and_legacy_rows_collapse(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    before = (project / "DECISIONS.md").read_bytes()
    fake_provider.script(
        Say(_reply(range(12), "20991231-zzzz: outsider\n")),
        Say(f"{IDS[12]}: deployment\n{IDS[13]}: a b c d e f g h i, too long\nnot a line"),
    )
    code, out, err = cli("rebuild", "project", "--json")
    assert (code, err) == (0, "")
    first, second = fake_provider.posts()
    check_golden("rebuild_batch1.request.json", first.body)
    check_golden("rebuild_batch2.request.json", second.body)
    check_golden_json("rebuild.result.json", json.loads(out))
    assert (project / "DECISIONS.md.bak").read_bytes() == before
    check_golden("rebuild.DECISIONS.md", (project / "DECISIONS.md").read_bytes())


def test_a_fault_in_any_batch_leaves_the_layer_byte_identical(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    before = picture(project)
    fake_provider.script(Say(_reply(range(12))), *[Fail(503)] * 4)
    code, out, err = cli("rebuild", "project")
    assert (code, out) == (1, "")
    assert err.startswith("rebuild: the model never answered")
    assert picture(project) == before


def test_without_a_model_rebuild_repairs_deterministically(
    project: Path, fake_provider: FakeProvider
) -> None:
    code, out, _ = cli("rebuild", "project")
    assert code == 0
    assert out.startswith("rebuilt project layer: 14 memories · collapsed 1 · repaired 0")
    assert fake_provider.posts() == []
    assert "tags: deploy -->" in (project / "DECISIONS.md").read_text()


def test_the_files_layout_stores_the_new_keyword_in_the_frontmatter(
    tmp_path: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.jobhelp import files_entry

    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    directory = files_project(tmp_path, hermetic_home, fake_provider, "anthropic")
    (directory / "Port.md").write_text(
        files_entry(
            "20261001-aaaa",
            "Port",
            description="the dev server port",
            kind="project",
            modified="2026-10-01T10:00:00.000Z",
            body="The dev server listens on 8080.",
        )
    )
    fake_provider.script(Say("20261001-aaaa: dev server port\n"))
    code, out, _ = cli("rebuild", "project")
    assert code == 0, out
    assert out.startswith("rebuild: rebuilt project layer: 1 memory · 1 keyword re-derived")
    assert "keyword: dev server port" in (directory / "Port.md").read_text()
    assert list((directory / ".backups").iterdir())
