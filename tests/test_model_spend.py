"""What models cost and what redaction did, as ``show`` reports them; the store's redaction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_memory.cli import main
from pi_memory.config.load import load_for
from pi_memory.model.client import chat
from pi_memory.model.types import Message
from tests.fake_provider import FakeProvider, Say, memory_json, write_memory_json

SECRET = "AKIA" + "Q3EGRV7ZX2K5W4PT"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_stored_body_never_holds_the_secret(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "write", "--keyword", "deploy", f"deploy uses {SECRET} from vault")
    assert (code, err) == (0, "")
    stored = "".join(p.read_text() for p in (in_project / ".pi").rglob("*.md"))
    assert SECRET not in stored
    assert "deploy uses [REDACTED:aws-key] from vault" in stored
    code, out, _ = run(capsys, "show")
    assert "secrets redacted: 1 today · 1 this month" in out


def test_a_body_of_nothing_but_private_text_is_refused(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "write", "--keyword", "salary", "<private>my salary</private>")
    assert code == 1
    assert err.strip().endswith("the memory holds nothing but secrets or <private> text")
    assert not list((in_project / ".pi").rglob("*.md"))


def test_the_files_layout_memory_tool_stores_placeholders(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    write_memory_json(hermetic_home, {"layout": "files", "memoryDir": str(hermetic_home / "mem")})
    args = {
        "action": "add",
        "name": "Deploy key",
        "content": f"The deploy key is {SECRET}.",
        "description": f"deploy key {SECRET}",
    }
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(json.dumps(args)))
    code, out, _ = run(capsys, "tool", "memory")
    assert code == 0, out
    stored = "".join(p.read_text() for p in (hermetic_home / "mem").rglob("*.md"))
    assert SECRET not in stored and "[REDACTED:aws-key]" in stored


def test_show_reports_tokens_per_job_today_and_this_month(
    in_project: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_memory_json(hermetic_home, memory_json(fake_provider, dailyTokenCap=50000))
    config = load_for(in_project, {}).config
    fake_provider.script(
        Say("a", tokens_in=1000, tokens_out=200),
        Say("b", tokens_in=10, tokens_out=5),
        Say("c", tokens_in=300, tokens_out=30),
    )
    for job in ("extract", "extract", "dream"):
        chat(config, "dream", [Message("user", "x")], job=job, background=True, env={})
    code, out, _ = run(capsys, "show")
    assert code == 0
    block = out[out.index("Model tokens:") :].splitlines()
    assert block[:3] == [
        "Model tokens: today 1,545 of the 50,000 daily cap for background jobs · this month 1,545",
        "  dream: today 1 call, 330 tokens · month 1 call, 330 tokens",
        "  extract: today 2 calls, 1,215 tokens · month 2 calls, 1,215 tokens",
    ]
    code, out, _ = run(capsys, "show", "--json")
    usage = json.loads(out)["model_usage"]
    assert usage["tokens_today"] == 1545
    assert usage["daily_cap"] == 50000
    assert usage["month"]["extract"] == {
        "calls": 2,
        "failures": 0,
        "tokens_in": 1010,
        "tokens_out": 205,
    }


def test_an_agents_staged_writes_are_redacted_when_committed(tmp_path: Path) -> None:
    from datetime import datetime

    from pi_memory.jobs.staging import Staging
    from pi_memory.model.types import ToolCall
    from tests.conftest import files_store

    store = files_store(tmp_path / "project")
    staging = Staging([], ("add", "replace"), datetime(2026, 12, 1, 9, 0))
    args = {
        "action": "add",
        "name": "Deploy",
        "content": f"deploy with {SECRET}",
        "description": "how deploys authenticate",
    }
    staging.answer(ToolCall("t1", "memory", args))
    with store.lock("project", "dream"):
        done, refused = staging.commit(store, "project")
    assert (len(done), refused) == (1, [])
    stored = "".join(p.read_text() for p in (tmp_path / "project").glob("*.md"))
    assert SECRET not in stored and "deploy with [REDACTED:aws-key]" in stored
