"""install's offer of the host's own CLI as the memory's model: asked once on a terminal
(a real pseudo-terminal here), decided by ``--model`` / ``--no-model`` in scripts, never
asked without a terminal; and a session start that says when the CLI is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.hookhelp import make_project, payload
from tests.inproc import call

MEMORY_JSON = Path(".pi", "agent", "memory.json")


@pytest.fixture(autouse=True)
def no_host_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)


def env_for(home: Path, path: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_MEMORY", "XDG_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    if path is not None:
        env["PATH"] = path
    return env


def on_a_terminal(args: list[str], answer: bytes, home: Path, cwd: Path) -> tuple[int, str]:
    """``python -m pi_memory ARGS`` with a pseudo-terminal as its stdin and stdout; types
    ``answer`` once the question is shown. Its exit status and everything it showed."""
    import pty

    leader, follower = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "pi_memory", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=cwd,
        env=env_for(home),
        close_fds=True,
    )
    os.close(follower)
    shown = b""
    answered = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal: it has exited
            break
        if not chunk:
            break
        shown += chunk
        if not answered and b"[y/N]" in shown:
            os.write(leader, answer)
            answered = True
    os.close(leader)
    return child.wait(timeout=60), shown.decode("utf-8", "replace").replace("\r\n", "\n")


def test_yes_on_a_terminal_writes_the_host_cli_with_its_small_model(
    tmp_path: Path, hermetic_home: Path
) -> None:
    code, shown = on_a_terminal(["install", "claude-code"], b"y\n", hermetic_home, tmp_path)
    assert code == 0, shown
    assert "with claude-cli/haiku?" in shown
    assert "cost: " in shown and "500,000 tokens a day" in shown
    data = json.loads((hermetic_home / MEMORY_JSON).read_text("utf-8"))
    assert data == {
        "providers": {"claude-cli": {"api": "claude-cli"}},
        "defaults": {"model": "claude-cli/haiku"},
        "dailyTokenCap": 500_000,
    }


def test_enter_on_a_terminal_means_no(tmp_path: Path, hermetic_home: Path) -> None:
    code, shown = on_a_terminal(["install", "gemini"], b"\n", hermetic_home, tmp_path)
    assert code == 0, shown
    assert "with gemini-cli/flash-lite?" in shown
    assert "model: none; nothing is learned in the background" in shown
    assert "install gemini --model gemini-cli/flash-lite" in shown
    assert not (hermetic_home / MEMORY_JSON).exists()
    assert (hermetic_home / ".gemini" / "settings.json").is_file()  # the hooks are in


def test_the_flags_decide_on_a_terminal_without_asking(tmp_path: Path, hermetic_home: Path) -> None:
    code, shown = on_a_terminal(["install", "codex", "--no-model"], b"y\n", hermetic_home, tmp_path)
    assert code == 0 and "[y/N]" not in shown, shown
    assert not (hermetic_home / MEMORY_JSON).exists()
    code, shown = on_a_terminal(
        ["install", "codex", "--model", "codex-cli/gpt-6-luna"], b"n\n", hermetic_home, tmp_path
    )
    assert code == 0 and "[y/N]" not in shown, shown
    data = json.loads((hermetic_home / MEMORY_JSON).read_text("utf-8"))
    assert data["defaults"] == {"model": "codex-cli/gpt-6-luna"}


def test_without_a_terminal_nothing_is_asked_and_no_model_written(
    tmp_path: Path, hermetic_home: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pi_memory", "install", "claude-code"],
        stdin=subprocess.DEVNULL,
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env_for(hermetic_home),
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "[y/N]" not in done.stdout
    assert "model: none (no terminal to ask on)" in done.stdout
    assert "install claude-code --model claude-cli/haiku" in done.stdout
    assert not (hermetic_home / MEMORY_JSON).exists()


def test_pi_has_no_cli_of_its_own_and_says_so(tmp_path: Path, hermetic_home: Path) -> None:
    result = call("install", "pi", cwd=tmp_path)
    assert result.code == 0, result.err
    assert "model: none; pi has no model CLI of its own" in result.out
    assert not (hermetic_home / MEMORY_JSON).exists()
    memory = hermetic_home / MEMORY_JSON
    memory.write_text('{"defaults": {"model": "ollama/qwen3:8b"}}\n', "utf-8")
    again = call("install", "pi", cwd=tmp_path)
    assert "model: ollama/qwen3:8b (memory.json names it already)" in again.out


def test_a_model_of_the_users_own_is_never_replaced(tmp_path: Path, hermetic_home: Path) -> None:
    memory = hermetic_home / MEMORY_JSON
    memory.parent.mkdir(parents=True)
    mine = b'{"defaults": {"model": "ollama/qwen3:8b"}}\n'
    memory.write_bytes(mine)
    result = call("install", "claude-code", "--model", "claude-cli/haiku", cwd=tmp_path)
    assert result.code != 0 and "names the model ollama/qwen3:8b already" in result.err
    assert memory.read_bytes() == mine
    assert not (hermetic_home / ".claude" / "settings.json").exists()


def test_a_memory_json_that_is_not_json_is_refused_untouched(
    tmp_path: Path, hermetic_home: Path
) -> None:
    memory = hermetic_home / MEMORY_JSON
    memory.parent.mkdir(parents=True)
    memory.write_bytes(b'{"layout": "files",,}\n')
    result = call("install", "codex", "--model", "codex-cli/gpt-6-luna", cwd=tmp_path)
    assert result.code != 0 and "is not valid JSON" in result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert memory.read_bytes() == b'{"layout": "files",,}\n'
    assert not (hermetic_home / ".codex").exists()


def test_an_unknown_provider_is_refused(tmp_path: Path, hermetic_home: Path) -> None:
    result = call("install", "codex", "--model", "openai/gpt-6", cwd=tmp_path)
    assert result.code != 0 and "unknown provider 'openai'" in result.err
    assert not (hermetic_home / ".codex").exists()


def test_uninstall_keeps_what_the_user_changed_by_hand(tmp_path: Path, hermetic_home: Path) -> None:
    assert call("install", "gemini", "--model", "gemini-cli/flash-lite", cwd=tmp_path).code == 0
    memory = hermetic_home / MEMORY_JSON
    data = json.loads(memory.read_text("utf-8"))
    data["layout"] = "files"
    memory.write_text(json.dumps(data), "utf-8")
    assert call("uninstall", "gemini", cwd=tmp_path).code == 0
    assert json.loads(memory.read_text("utf-8")) == {"layout": "files"}

    # A provider block edited by hand is the user's now: uninstall leaves it and its model.
    assert call("install", "gemini", "--model", "gemini-cli/flash-lite", cwd=tmp_path).code == 0
    data = json.loads(memory.read_text("utf-8"))
    data["providers"]["gemini-cli"]["command"] = "/opt/gemini/bin/gemini"
    memory.write_text(json.dumps(data), "utf-8")
    assert call("uninstall", "gemini", cwd=tmp_path).code == 0
    assert json.loads(memory.read_text("utf-8")) == data


def hook(event: str, body: str, root: Path, home: Path, path: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "pi_memory", "hook", "--host", "claude-code", event],
        input=body,
        check=False,
        capture_output=True,
        text=True,
        cwd=root,
        env=env_for(home, path) | {"PI_MEMORY_AUTO_REVIEW_TURNS": "1"},
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def start(root: Path, home: Path, path: str) -> dict[str, object]:
    return hook(
        "SessionStart", payload("claude-code", "SessionStart.startup", root), root, home, path
    )


def a_session(tmp_path: Path, home: Path, path: str) -> tuple[dict[str, object], Path]:
    """A session start and one turn's end (told by the next prompt), as processes; the
    start's answer and where the session's worker would keep its log."""
    root = make_project(tmp_path)
    (tmp_path / "transcript.jsonl").write_text('{"type": "user"}\n', "utf-8")
    started = start(root, home, path)
    sid = ""
    for turn in ("turn-1", "turn-2"):  # the second prompt says the first turn ended
        asked = payload("claude-code", "UserPromptSubmit", root, prompt="hi", prompt_id=turn)
        hook("UserPromptSubmit", asked, root, home, path)
        sid = json.loads(asked)["session_id"]
    return started, home / ".cache" / "pi_memory" / "sessions" / sid / "worker.log"


def bin_with(tmp_path: Path, program: str) -> str:
    """A PATH holding ``program`` (a stand-in that fails if ever run) and the interpreter."""
    folder = tmp_path / f"bin-{program}"
    folder.mkdir(exist_ok=True)
    stand_in = folder / program
    stand_in.write_text("#!/bin/sh\nexit 3\n", "utf-8")
    stand_in.chmod(0o755)
    return os.pathsep.join([str(folder), str(Path(sys.executable).parent), "/usr/bin", "/bin"])


def test_after_no_model_the_worker_is_never_started(tmp_path: Path, hermetic_home: Path) -> None:
    assert call("install", "claude-code", "--no-model", cwd=tmp_path).code == 0
    assert not (hermetic_home / MEMORY_JSON).exists()
    started, log = a_session(tmp_path, hermetic_home, bin_with(tmp_path, "claude"))
    assert "systemMessage" not in started
    time.sleep(1)
    assert not log.exists()
    assert not list((hermetic_home / ".cache" / "pi_memory" / "sessions").glob("*/jobs/*.json"))


def test_with_the_model_the_same_session_starts_the_worker(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """The control for the test above: the same turn with a model starts a worker."""
    assert call("install", "claude-code", "--model", "claude-cli/haiku", cwd=tmp_path).code == 0
    started, log = a_session(tmp_path, hermetic_home, bin_with(tmp_path, "claude"))
    assert "systemMessage" not in started
    deadline = time.monotonic() + 30
    while not log.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert log.exists()


def test_a_session_start_says_when_the_cli_is_not_on_path(
    tmp_path: Path, hermetic_home: Path
) -> None:
    assert call("install", "claude-code", "--model", "claude-cli/haiku", cwd=tmp_path).code == 0
    without = bin_with(tmp_path, "not-claude")
    started, _ = a_session(tmp_path, hermetic_home, without)
    message = str(started.get("systemMessage", ""))
    assert "runs 'claude', which is not on this PATH" in message
    assert '"providers.claude-cli.command" in ~/.pi/agent/memory.json' in message
    # Said again at the next start (a warning is never cached away), and gone once it is back.
    root = tmp_path / "repo"
    again = start(root, hermetic_home, without)
    assert "not on this PATH" in str(again.get("systemMessage", ""))
    back = bin_with(tmp_path, "claude")
    fixed = start(root, hermetic_home, back)
    assert "not on this PATH" not in str(fixed.get("systemMessage", ""))
    # Uninstalled after a quiet start (the note cached): the next start says it again.
    gone = start(root, hermetic_home, without)
    assert "not on this PATH" in str(gone.get("systemMessage", ""))
