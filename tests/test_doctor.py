"""``doctor``: every problem on one line with what to do, against a real loopback provider."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pi_memory.cli import main
from pi_memory.config.load import load_for
from pi_memory.fs.lock import format_record, lock_path, this_host
from pi_memory.model import ledger
from tests.fake_provider import FakeProvider, Say, memory_json, write_memory_json


def doctor(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    code = main(["doctor", *flags])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out


def test_no_configuration_is_fine(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = doctor(capsys)
    assert code == 0
    assert out.startswith("doctor: ok\n")
    assert "providers: none declared" in out
    assert "config: none (the built-in defaults) · layout categories" in out


def test_a_healthy_provider_is_pinged_once(
    in_project: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_memory_json(hermetic_home, memory_json(fake_provider, api="anthropic"))
    fake_provider.script(Say("OK", tokens_in=14, tokens_out=1))
    code, out = doctor(capsys)
    assert code == 0, out
    assert "fake (anthropic, http://127.0.0.1:" in out and "fake/test-model answered in" in out
    (ping,) = fake_provider.posts()
    assert ping.json["messages"] == [{"role": "user", "content": "Reply with the single word OK."}]
    assert ping.json["max_tokens"] == 64
    assert "  doctor: today 1 call, 15 tokens" in out


def test_each_problem_is_one_line_with_what_to_do(
    in_project: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data: dict[str, Any] = memory_json(fake_provider, model="down/x")
    data["providers"]["down"] = {"baseUrl": fake_provider.openai_base, "maxRetries": 0}
    data["providers"]["anth"] = {
        "baseUrl": "https://api.anthropic.com",
        "api": "anthropic",
        "apiKeyEnv": "DOCTOR_TEST_KEY",
    }
    data["autoSurfacing"] = {"model": "anth/claude"}
    write_memory_json(hermetic_home, data)
    fake_provider.default = Say("")  # an empty reply: the model never answered
    code, out = doctor(capsys)
    assert code == 1
    problems = out.split("\n\n")[0].splitlines()
    assert problems == [
        "doctor: 2 problems",
        '- model "anth/claude" for autoSurfacing is not resolvable (unknown id or missing '
        "credentials) — set DOCTOR_TEST_KEY in the environment the agent runs in",
        "- provider down: the model never answered: down/x: the reply was empty"
        f" — check that the server at {fake_provider.openai_base} is up and reachable",
    ]
    assert "fake (openai" in out and "no task uses it; it lists 2 models (" in out
    assert len(fake_provider.posts()) == 1
    listing = [r for r in fake_provider.requests if r.method == "GET"]
    assert [r.path for r in listing] == ["/v1/models"]


def test_offline_sends_nothing(
    in_project: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_memory_json(hermetic_home, memory_json(fake_provider))
    code, out = doctor(capsys, "--offline")
    assert code == 0
    assert "fake (openai" in out and ": --offline" in out
    assert "no task uses it; --offline" not in out  # the only provider is used
    assert fake_provider.requests == []


def test_a_broken_config_and_an_abandoned_lock(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_memory_json(hermetic_home, {"lock": {"timeoutMs": "soon"}})
    settings_dir = in_project / ".pi" / "agent" / "memory-auto"
    settings_dir.mkdir(parents=True)
    lock_path(settings_dir).write_bytes(
        format_record(2**22 + 12345, this_host(), "2026-01-01T00:00:00.000Z", "add")
    )
    code, out = doctor(capsys, "--json")
    assert code == 1
    report = json.loads(out)
    assert not report["ok"]
    first, second = report["problems"]
    assert first.startswith('memory.json: "lock.timeoutMs" must be an integer')
    assert first.endswith("— fix it in " + str(hermetic_home / ".pi" / "agent" / "memory.json"))
    assert second.startswith("project layer: Memory lock at ")
    assert "is abandoned by add (pid 4206649" in second
    assert second.endswith("run python -m pi_memory unlock project")


def test_a_spent_cap_is_a_problem(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_memory_json(hermetic_home, {"dailyTokenCap": 1000})
    config = load_for(in_project, {}).config
    now = ledger.now_local()
    usage = ledger.LedgerLine(ledger.stamp(now), "extract", "p/m", 900, 150, 10)
    ledger.record(ledger.directory(config), usage)
    code, out = doctor(capsys)
    assert code == 1
    assert (
        "- background model jobs are stopped for today: 1,050 tokens reached dailyTokenCap 1,000"
        ' — raise "dailyTokenCap" in memory.json, or wait until tomorrow'
    ) in out


def test_installed_hooks_are_reported(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = doctor(capsys)
    assert "hooks: none installed" in out
    assert "note: no agent runs pi_memory's hooks yet" in out
    assert main(["install", "claude-code"]) == 0
    capsys.readouterr()
    _, out = doctor(capsys, "--json")
    hooks = json.loads(out)["hooks"]
    assert hooks["claude-code (user)"] == "installed"
    assert hooks["codex (user)"] == "not installed"


def test_a_cli_provider_that_is_not_installed(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_memory_json(
        hermetic_home,
        {
            "providers": {"cc": {"api": "claude-cli", "command": "no-such-claude-here"}},
            "defaults": {"model": "cc/default"},
        },
    )
    code, out = doctor(capsys, "--offline")
    assert code == 1
    assert (
        "- provider cc: cannot find 'no-such-claude-here' — install it, or set"
        ' "providers.cc.command" in memory.json to its full path'
    ) in out


def test_background_work_back_offs_and_hook_runs_are_reported(
    in_project: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Job records written by the job code, a back-off by the model code, a hook run by a
    real hook: doctor lists each, and the ones that need the person make it exit 1."""
    import time

    from pi_memory.jobs import records
    from pi_memory.model import backoff
    from tests.hookhelp import payload
    from tests.inproc import call

    code, out = doctor(capsys, "--offline")
    assert code == 0
    assert "jobs: 0 pending, 0 set aside" in out
    assert "hooks last ran: no run recorded yet" in out
    fresh = records.JobRecord(records.REVIEW, "s-new", str(in_project), end=10, created=time.time())
    records.write_record(fresh)
    code, out = doctor(capsys, "--offline")
    assert code == 0  # a job just recorded is what a worker is running now
    assert "jobs: 1 pending, 0 set aside" in out
    assert "  review-10 of session s-new: pending 0 s" in out
    old = fresh._replace(session="s-old", end=20, created=time.time() - 3 * 3600)
    records.write_record(old)
    broken = fresh._replace(session="s-broken", end=30)
    records.write_record(broken)
    for attempt in range(records.MAX_ATTEMPTS):  # as the worker counts each failed attempt
        records.failed(broken._replace(attempts=attempt), "the model never answered: HTTP 500")
    backoff.failed("fake/test-model", "HTTP 500 (server_error)")
    start = payload("claude-code", "SessionStart.startup", in_project)
    assert (
        call("hook", "--host", "claude-code", "SessionStart", cwd=in_project, stdin=start).code == 0
    )
    code, out = doctor(capsys, "--offline")
    assert code == 1
    problems = out.split("\n\n")[0].splitlines()
    failed_file = records.jobs_dir(records.key_of(broken)) / "review-30.failed"
    assert problems[0] == "doctor: 3 problems"
    assert (
        "- job review-30 of session s-broken failed 3 times and was set aside (last error: the "
        f"model never answered: HTTP 500) — fix the cause, then delete {failed_file}"
    ) in problems
    assert any(p.startswith("- job review-20 of session s-old has waited 3 h") for p in problems)
    assert any(
        p.startswith("- fake/test-model failed 1 time in a row; prompts use the scorer alone")
        for p in problems
    )
    assert "jobs: 2 pending, 1 set aside" in out
    assert "  fake/test-model: 1 failure(s) in a row, not asked at prompt time until" in out
    # A receipt's time is kept to the second: a second may have passed since.
    assert re.search(r"hooks last ran: claude-code [01] s ago \(inject, (ok|nothing)\)", out)
    data = json.loads(doctor(capsys, "--offline", "--json")[1])
    assert [(j["name"], j["state"]) for j in data["jobs"]] == [
        ("review-20", "pending"),  # oldest first; then by session
        ("review-30", "set aside"),
        ("review-10", "pending"),
    ]
    assert data["backoff"]["fake/test-model"]["failures"] == 1
    assert set(data["hook_runs"]) == {"claude-code"}
    # The last run is the host's last receipt, which says what the hook did.
    assert data["last_receipts"]["claude-code"]["event"] == "inject"
