"""``--help`` answers every command with help, in the syntax that command takes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inproc import call


def help_of(*args: str, cwd: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """Help printed by argparse, which exits 0 after printing it."""
    from pi_memory.cli import main

    with pytest.raises(SystemExit) as stopped:
        main([*args, "--help"])
    assert stopped.value.code == 0
    return capsys.readouterr().out


def test_search_help_explains_every_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = help_of("search", cwd=tmp_path, capsys=capsys)
    for mode in ("keyword", "tag", "recent", "all", "id"):
        assert f"\n  {mode}  " in text
    assert "(2)" in text  # a line copied from the index works in tag mode


@pytest.mark.parametrize("command", ["rebuild", "compact"])
def test_a_required_layer_is_shown_as_required(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = help_of(command, cwd=tmp_path, capsys=capsys)
    usage = text.splitlines()[0]
    assert usage.startswith(f"usage: python -m pi_memory {command} [-h]")
    # The layer is the one positional argument, outside any brackets.
    assert usage.endswith("] LAYER")
    assert "[LAYER]" not in text


def test_tool_help_prints_help_not_json(tmp_path: Path) -> None:
    run = call("tool", "--help", cwd=tmp_path)
    assert (run.code, run.err) == (0, "")
    assert run.out.startswith("usage: python -m pi_memory tool NAME")
    for name in ("memory_write", "memory_search", "memory"):
        assert f"\n  {name}  {{" in run.out
    with pytest.raises(json.JSONDecodeError):
        json.loads(run.out)


def test_hook_help_lists_events(tmp_path: Path) -> None:
    run = call("hook", "--help", cwd=tmp_path)
    assert run.code == 0 and "SessionStart" in run.out


def option_help(text: str, option: str) -> str:
    """The help argparse prints for ``option`` (``""``: none), its lines joined."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(option))
    first = lines[start].lstrip()
    words = [first.split("  ", 1)[1].strip()] if "  " in first else []
    for line in lines[start + 1 :]:
        if not line.startswith("    ") or line.lstrip().startswith("-"):
            break
        words.append(line.strip())
    return " ".join(words)


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_install_help_lists_the_hosts_and_explains_the_scope(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pi_memory.hosts.registry import every

    text = help_of(command, cwd=tmp_path, capsys=capsys)
    for host in every():
        assert any(
            line.split()[:1] == [host.name] and host.title in line for line in text.splitlines()
        ), host.name
    scope = option_help(text, "--scope")
    assert "home" in scope and "repository" in scope, scope


@pytest.mark.parametrize(
    ("command", "options"),
    [("import", ("--from", "--to")), ("extract", ("--format",))],
)
def test_every_option_says_what_it_does(
    command: str, options: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = help_of(command, cwd=tmp_path, capsys=capsys)
    for option in options:
        assert len(option_help(text, option)) > 15, option


def test_mcp_help_is_for_a_user(tmp_path: Path) -> None:
    run = call("mcp", "--help", cwd=tmp_path)
    assert (run.code, run.err) == (0, "")
    assert run.out.startswith("usage: python -m pi_memory mcp")
    for developer_word in ("``", "adapter", "worker thread", "notification"):
        assert developer_word not in run.out
    assert "python -m pi_memory install" in run.out  # how a client gets it


def test_hook_help_says_how_an_event_may_be_spelt(tmp_path: Path) -> None:
    run = call("hook", "--help", cwd=tmp_path)
    assert "Events (any of" not in run.out  # the garbled sentence
    assert "SessionStart, session_start and session-start are the same event" in run.out
