"""One rule for a bad setting: its default is used, one warning line says so, the work goes on.

A person reads the warning on stderr, a hook's user in ``systemMessage``;
memory.json values and ``PI_MEMORY_AUTO_*`` variables alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inproc import call, user_config


def test_a_bad_value_falls_back_with_one_warning_and_the_write_goes_on(
    repo: Path, hermetic_home: Path
) -> None:
    user_config(hermetic_home, {"lock": {"timeoutMs": "x"}})
    run = call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo)
    assert run.code == 0
    assert run.out.startswith("Saved [")
    assert run.err.splitlines() == [
        "pi_memory: warning: memory.json: \"lock.timeoutMs\" must be an integer, got 'x';"
        " using 5000"
    ]


def test_each_bad_value_is_one_line_and_search_answers(repo: Path, hermetic_home: Path) -> None:
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    user_config(hermetic_home, {"reviewMonths": "y", "layout": 3})
    run = call("search", "rsync", cwd=repo)
    assert run.code == 0 and "Deploy with rsync." in run.out
    lines = run.err.splitlines()
    assert len(lines) == 2 and all(line.startswith("pi_memory: warning: ") for line in lines)
    assert any('"reviewMonths"' in line for line in lines)
    assert any('"layout"' in line and "using categories" in line for line in lines)


def test_a_bad_environment_value_is_said_too(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_MEMORY_AUTO_INDEX_BUDGET", "lots")
    run = call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo)
    assert run.code == 0
    assert run.err.splitlines() == [
        "pi_memory: warning: PI_MEMORY_AUTO_INDEX_BUDGET='lots' is not an integer; ignored"
    ]


def test_show_shows_the_store_and_the_warning(repo: Path, hermetic_home: Path) -> None:
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    user_config(hermetic_home, {"lock": {"timeoutMs": "x"}})
    run = call("show", cwd=repo)
    assert run.code == 0
    assert "misconfigured" not in run.out
    assert "project: repo — 1 memory, 1 keyword" in run.out
    assert "note: \"lock.timeoutMs\" must be an integer, got 'x'; using 5000" in run.out


def test_a_hook_injects_and_says_why_in_system_message(repo: Path, hermetic_home: Path) -> None:
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    user_config(hermetic_home, {"lock": {"timeoutMs": "x"}})
    event = json.dumps({"cwd": str(repo), "hook_event_name": "SessionStart"})
    run = call("hook", "session-start", cwd=repo, stdin=event)
    assert (run.code, run.err) == (0, "")
    payload = json.loads(run.out)
    assert "#deploy" in payload["hookSpecificOutput"]["additionalContext"]
    assert '"lock.timeoutMs" must be an integer' in payload["systemMessage"]
