"""``extractMemories.approval: inbox`` end to end in process: a transcript reviewed by the
loopback model, the proposals staged and not written, then ``inbox`` accepts or rejects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, Say
from tests.jobhelp import GOLDEN, category_row, cli, configure, files_project, picture

SESSION = GOLDEN / "session.jsonl"
REPLY = (
    "===MEMORY===\nLAYER: project\nFILE: DECISIONS.md\nKEYWORD: dev-server\n"
    "SUPERSEDES: 20261001-aaaa\nBODY:\nThe dev server listens on port 8080.\n"
)
INBOX = {"extractMemories": {"approval": "inbox"}}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    store = root / ".pi" / "agent" / "memory-auto"
    store.mkdir(parents=True)
    (store / "DECISIONS.md").write_text(
        category_row(
            "20261001-aaaa", "2026-10-01 10:00:00", "dev-server", "The dev server listens on 3000."
        )
    )
    monkeypatch.chdir(root)
    return store


def _ids(out: str) -> list[str]:
    return [item["id"] for item in json.loads(out)["items"]]


def test_a_review_in_inbox_mode_stages_and_writes_nothing(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    configure(fake_provider, hermetic_home, "openai", **INBOX)
    fake_provider.script(Say(REPLY))
    before = picture(project)
    code, out, err = cli("extract", "--transcript", str(SESSION), "--json")
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert (result["status"], result["detail"]) == ("staged", "staged 1 proposal in the inbox")
    after = picture(project)
    assert {k: v for k, v in after.items() if k.endswith(".md")} == before
    assert "8080" not in cli("search", "--mode", "tag", "dev-server")[1]
    listed = cli("inbox")[1]
    assert "1 proposal waits:" in listed and "The dev server listens on port 8080." in listed
    (item_id,) = _ids(cli("inbox", "list", "--json")[1])
    shown = cli("inbox", "show", item_id[:5])[1]
    assert "from extract of session" in shown
    code, out, err = cli("inbox", "accept", item_id)
    assert (code, err) == (0, "")
    assert out.startswith(f"accepted {item_id}: project memory ")
    decisions = (project / "DECISIONS.md").read_text()
    assert "listens on port 8080" in decisions and "superseded-by: " in decisions
    assert cli("inbox")[1] == "The inbox is empty.\n"


def test_a_rejected_proposal_is_not_staged_by_the_next_review(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    configure(fake_provider, hermetic_home, "openai", **INBOX)
    fake_provider.script(Say(REPLY), Say(REPLY.replace("dev-server", "port")))
    cli("extract", "--transcript", str(SESSION))
    (item_id,) = _ids(cli("inbox", "list", "--json")[1])
    assert cli("inbox", "reject", item_id)[1] == f"rejected {item_id}: not proposed again\n"
    longer = tmp_path / "longer.jsonl"
    extra = {"type": "user", "message": {"role": "user", "content": "And the port again?"}}
    longer.write_text(SESSION.read_text() + json.dumps(extra) + "\n")
    code, out, _ = cli("extract", "--transcript", str(longer), "--session", "other", "--json")
    result = json.loads(out)
    assert (code, result["status"]) == (0, "nothing")
    assert result["rejected"] == ["port: rejected before"]
    assert cli("inbox")[1] == "The inbox is empty.\n"
    assert "8080" not in (project / "DECISIONS.md").read_text()


def test_an_edited_accept_from_stdin(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    configure(fake_provider, hermetic_home, "openai", **INBOX)
    fake_provider.script(Say(REPLY))
    cli("extract", "--transcript", str(SESSION))
    (item_id,) = _ids(cli("inbox", "list", "--json")[1])
    stdin = io.TextIOWrapper(io.BytesIO(b"Dev server: port 8081.\n"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, err = cli("inbox", "accept", item_id, "--text", "-", "--keyword", "port", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["memory"]
    assert "Dev server: port 8081." in (project / "DECISIONS.md").read_text()


def test_the_files_extract_agent_stages_its_writes(
    tmp_path: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    directory = files_project(tmp_path, hermetic_home, fake_provider, **INBOX)
    add = {
        "action": "add",
        "name": "dev-port",
        "description": "the dev server's port",
        "content": "The dev server listens on port 8080.",
        "type": "project",
    }
    fake_provider.script(Say(tool_calls=[("memory", add)]), Say("Proposed the port."))
    code, out, err = cli("extract", "--transcript", str(SESSION), "--json")
    assert (code, err, json.loads(out)["status"]) == (0, "", "staged")
    assert sorted(p.name for p in directory.glob("*.md")) == []
    (item_id,) = _ids(cli("inbox", "list", "--json")[1])
    assert cli("inbox", "accept", item_id, "--description", "where the dev server listens")[0] == 0
    text = (directory / "dev-port.md").read_text()
    assert "description: where the dev server listens" in text
    assert "The dev server listens on port 8080." in text


def test_a_mistaken_id_is_one_line(project: Path, hermetic_home: Path) -> None:
    code, out, err = cli("inbox", "accept", "abcdef")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "no proposal abcdef in the inbox" in err


def test_show_and_doctor_say_how_many_proposals_wait(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    configure(fake_provider, hermetic_home, "openai", **INBOX)
    assert json.loads(cli("show", "--json")[1])["inbox"] == 0
    assert "inbox:" not in cli("show")[1]
    fake_provider.script(Say(REPLY))
    cli("extract", "--transcript", str(SESSION))
    assert "inbox: 1 proposal waits for you to accept or reject" in cli("show")[1]
    assert json.loads(cli("show", "--json")[1])["inbox"] == 1
    _, out, _ = cli("doctor", "--offline")
    assert "inbox: 1 proposal waits for you" in out
    assert json.loads(cli("doctor", "--offline", "--json")[1])["inbox"] == 1
    (project / ".inbox" / "0123456789.json").write_text("{torn")
    report = json.loads(cli("doctor", "--offline", "--json")[1])
    assert any("0123456789.json is not an inbox item" in p for p in report["problems"])
