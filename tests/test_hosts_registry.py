"""The one list of hosts: each record comes from its own module, and an unnamed hook's host
is told by its event or its payload (the JSON the hosts send, tests/data/hosts/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_memory.hosts.events import detect_host
from pi_memory.hosts.registry import DEFAULT, MODULES, NAMES, UnknownHost, every, host

HOSTS_DATA = Path(__file__).parent / "data" / "hosts"


def test_each_name_finds_the_record_its_own_module_exports() -> None:
    assert [record.name for record in every()] == list(NAMES)
    for name, module in MODULES.items():
        assert host(name).name == name
        assert host(name) is __import__(f"pi_memory.hosts.{module}", fromlist=["HOST"]).HOST


def test_an_unknown_name_is_an_error_that_lists_the_hosts() -> None:
    with pytest.raises(UnknownHost, match="one of claude-code, codex, gemini, pi"):
        host("nosuch")


def test_every_context_event_is_one_of_the_hosts_events() -> None:
    for record in every():
        assert set(record.context_events) <= set(record.events.values()), record.name
        assert set(record.hook_timeout_caps) <= set(record.events.values()), record.name


@pytest.mark.parametrize(
    ("event", "payload", "expected"),
    [
        ("BeforeAgent", {}, "gemini"),
        ("before-agent", {}, "gemini"),
        ("PreCompress", {"timestamp": "x"}, "gemini"),  # no host's hooked event: the payload
        ("PostCompact", {}, "codex"),
        ("Stop", {"turn_id": "1"}, "codex"),
        ("SessionStart", {"transcript_path": "/s/2026/12/01/rollout-2026-x.jsonl"}, "codex"),
        ("SessionStart", {"timestamp": "2026-12-01T09:00:00Z"}, "gemini"),
        ("SessionStart", {"timestamp": "x", "permission_mode": "default"}, "claude-code"),
        ("UserPromptSubmit", {}, DEFAULT),
    ],
)
def test_an_unnamed_hook_is_told_by_its_event_then_its_payload(
    event: str, payload: dict[str, object], expected: str
) -> None:
    assert detect_host(event, payload) == expected


def test_the_recorded_payloads_of_each_host_are_told_apart() -> None:
    seen = 0
    for name in ("claude-code", "codex", "gemini"):
        for path in sorted((HOSTS_DATA / name).glob("*.json")):
            payload = json.loads(path.read_text("utf-8"))
            if isinstance(payload, dict) and "hook_event_name" in payload:
                assert detect_host(str(payload["hook_event_name"]), payload) == name, path
                seen += 1
    assert seen >= 6


def test_each_command_line_model_provider_runs_its_hosts_program() -> None:
    from pi_memory.config.schema import CLI_APIS
    from pi_memory.hosts.registry import model_commands
    from pi_memory.model.cli_provider import default_command

    assert sorted(model_commands()) == sorted(CLI_APIS)
    assert [default_command(api) for api in CLI_APIS] == ["claude", "codex", "gemini"]


def test_a_hosts_record_cannot_be_changed_once_made() -> None:
    record = host("codex")
    with pytest.raises(AttributeError, match="read-only: max_context"):
        record.max_context = 1  # type: ignore[misc]
    assert record.max_context == 9_500
