"""CLI providers: the real ``claude`` CLI against the loopback fake, and the guards around it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pi_memory.config.parse import parse_config
from pi_memory.config.schema import Config
from pi_memory.env_names import MODEL_CHILD
from pi_memory.model.cli_provider import GEMINI_NO_MCP, _private_dir
from pi_memory.model.client import chat
from pi_memory.model.errors import NEVER_ANSWERED, ModelUnavailable
from pi_memory.model.types import Message, ToolSpec
from tests.conftest import DATA, REPO
from tests.fake_provider import FakeProvider, Say

#: Where .ci/run installs the pinned Claude Code (npm, outside the repository).
E2E = Path(os.environ.get("E2E", "/srv/e2e"))
CLAUDE_VERSION = "2.1.332"


def claude_binary() -> str | None:
    installed = E2E / "cc" / "node_modules" / ".bin" / "claude"
    if installed.exists():
        return str(installed)
    return shutil.which("claude")


def cli_config(home: Path, api: str, command: str, model: str = "cli/default") -> Config:
    data = {
        "providers": {"cli": {"api": api, "command": command}},
        "defaults": {"model": model},
    }
    loaded = parse_config(data, cwd=str(home), home=str(home))
    assert loaded.errors == ()
    return loaded.config


def fake_cli(tmp_path: Path, body: str) -> str:
    """An executable that stands in for a CLI: a real process with ``body`` as its program."""
    script = tmp_path / "fake-cli"
    script.write_text(f"#!{sys.executable}\nimport json, os, subprocess, sys, time\n{body}\n")
    script.chmod(0o755)
    return str(script)


# -- process guards (a stand-in executable: only process behaviour is under test) ----------


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
def test_a_cli_past_its_deadline_is_killed_with_its_children(
    tmp_path: Path, hermetic_home: Path
) -> None:
    # A shell starts its child in a few milliseconds, a loaded machine's Python in seconds:
    # the child exists long before the deadline, which is far from the CLI's own 600 s.
    pidfile = tmp_path / "grandchild.pid"
    script = tmp_path / "fake-cli"
    script.write_text(f"#!/bin/sh\nsleep 600 &\necho $! > '{pidfile}'\nwait\n")
    script.chmod(0o755)
    cfg = cli_config(hermetic_home, "claude-cli", str(script))
    start = time.monotonic()
    with pytest.raises(ModelUnavailable, match=f"{NEVER_ANSWERED}: .*no answer within"):
        chat(cfg, "dream", [Message("user", "x")], job="dream", background=False, timeout=3.0)
    assert time.monotonic() - start < 60
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _alive(grandchild):
        time.sleep(0.05)
    assert not _alive(grandchild)


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass  # not our child: ask the kernel
    else:
        if waited:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")


def test_the_child_is_marked_so_our_hooks_stay_out(tmp_path: Path, hermetic_home: Path) -> None:
    command = fake_cli(
        tmp_path,
        "prompt = sys.stdin.read()\n"
        "print(json.dumps({'type': 'result', 'subtype': 'success', 'is_error': False,"
        f" 'result': os.environ.get({MODEL_CHILD!r}, 'unmarked') + ' ' + ' '.join(sys.argv[1:]),"
        " 'usage': {'input_tokens': 5, 'output_tokens': 2}}))",
    )
    cfg = cli_config(hermetic_home, "claude-cli", command, "cli/sonnet")
    reply = chat(cfg, "dream", [Message("user", "x")], job="dream", background=False)
    marker, _, argv = reply.text.partition(" ")
    assert marker == "1"
    assert '--settings {"disableAllHooks": true}' in argv
    assert "--no-session-persistence" in argv and "--model sonnet" in argv
    assert "--effort high" in argv  # dream.thinkLevel
    assert (reply.tokens_in, reply.tokens_out, reply.model) == (5, 2, "cli/sonnet")


def test_a_missing_cli_says_what_to_do(hermetic_home: Path) -> None:
    cfg = cli_config(hermetic_home, "codex-cli", "/nonexistent/codex")
    with pytest.raises(ModelUnavailable, match=r'cannot run .*set the provider\'s "command"'):
        chat(cfg, "dream", [Message("user", "x")], job="dream", background=False)


def test_a_hook_in_a_model_child_does_nothing(
    tmp_path: Path, hermetic_home: Path, monkeypatch: Any
) -> None:
    """The same SessionStart event: answered normally, silent inside a CLI provider's child."""
    from pi_memory.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["write", "--layer", "user", "--keyword", "testing", "We use pytest -q."]) == 0
    event = json.dumps(
        {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(tmp_path)}
    )
    env = {**os.environ, "HOME": str(hermetic_home), "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "pi_memory", "hook", "SessionStart"]
    normal = subprocess.run(argv, input=event, env=env, capture_output=True, text=True, check=True)
    assert normal.stdout.strip()
    guarded = subprocess.run(
        argv, input=event, env={**env, MODEL_CHILD: "1"}, capture_output=True, text=True, check=True
    )
    assert (guarded.stdout, guarded.stderr) == ("", "")


# -- the real Claude Code ------------------------------------------------------------------


def claude_env(fake: FakeProvider, home: Path, tmp: Path) -> dict[str, str]:
    tmp.mkdir(exist_ok=True)
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    return {
        **keep,
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


def test_claude_cli_answers_through_the_loopback_fake(
    fake_provider: FakeProvider, tmp_path: Path, hermetic_home: Path, monkeypatch: Any
) -> None:
    binary = claude_binary()
    if binary is None:
        pytest.skip(
            f"Claude Code is not installed: npm install --prefix {E2E}/cc "
            f"@anthropic-ai/claude-code@{CLAUDE_VERSION} (.ci/run tries)"
        )
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    ran = tmp_path / "hook-ran"
    hook = {"type": "command", "command": f"echo ran >> {ran}"}
    settings = {"hooks": {e: [{"hooks": [hook]}] for e in ("SessionStart", "UserPromptSubmit")}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    monkeypatch.chdir(project)
    env = claude_env(fake_provider, hermetic_home, tmp_path / "tmp")

    # The control: the same project's hooks do run in a plain `claude -p`.
    fake_provider.script(Say("control"))
    subprocess.run([binary, "-p", "hi"], env=env, capture_output=True, timeout=600, check=True)
    assert ran.exists()
    ran.unlink()

    cfg = cli_config(hermetic_home, "claude-cli", binary, "cli/claude-test-model")
    memory = ToolSpec("memory", "Change the memory store.", {"type": "object"})
    fake_provider.script(
        Say("Nothing worth storing.", tokens_in=40, tokens_out=6),
        Say(
            'Checking.\n<tool_call>{"name": "memory", "arguments": {"action": "list"}}</tool_call>'
        ),
    )
    reply = chat(
        cfg,
        "extractMemories",
        [Message("user", "deploy key AKIAQ3EGRV7ZX2K5W4PT, we use pytest")],
        system="You review coding sessions.",
        job="extract",
        background=False,
        env=env,
        timeout=600,  # Node starts Claude Code in seconds, on a loaded machine in a minute
    )
    assert reply.text == "Nothing worth storing."
    assert (reply.tokens_in, reply.tokens_out) == (40, 6)
    request = fake_provider.posts()[1].json
    assert request["model"] == "claude-test-model"
    assert any("You review coding sessions." in block["text"] for block in request["system"])
    sent = json.dumps(request)
    assert "[REDACTED:aws-key]" in sent and "AKIAQ3EGRV7ZX2K5W4PT" not in sent
    assert request["tools"] == []  # the CLI's own tools are off: one answer, no actions
    assert request["output_config"] == {"effort": "high"}  # extractMemories.thinkLevel
    assert not ran.exists()  # hooks are off in the child

    tool_reply = chat(
        cfg,
        "extractMemories",
        [Message("user", "what is stored?")],
        tools=[memory],
        job="extract",
        background=False,
        env=env,
        timeout=600,
    )
    (call,) = tool_reply.tool_calls
    assert (call.name, dict(call.arguments), tool_reply.text) == (
        "memory",
        {"action": "list"},
        "Checking.",
    )
    assert "<tool_call>" in json.dumps(fake_provider.posts()[2].json["messages"])


# -- codex and gemini: our side of their protocol (stand-in executables, see README) -------


def test_codex_reads_the_last_message_file(tmp_path: Path, hermetic_home: Path) -> None:
    command = fake_cli(
        tmp_path,
        "args = sys.argv[1:]\n"
        "prompt = sys.stdin.read()\n"
        "out = args[args.index('--output-last-message') + 1]\n"
        "open(out, 'w').write('seen: ' + ' '.join(args[:args.index('--output-last-message')])"
        " + ' | ' + prompt.splitlines()[0])\n"
        "print('progress noise on stdout')",
    )
    cfg = cli_config(hermetic_home, "codex-cli", command, "cli/gpt-test")
    reply = chat(
        cfg, "dream", [Message("user", "x")], system="Be brief.", job="dream", background=False
    )
    assert reply.text == (
        "seen: exec --skip-git-repo-check --ephemeral --color never --sandbox read-only | [system]"
    )
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("pi_memory-codex-*"))


def test_gemini_json_output_and_its_token_counts(tmp_path: Path, hermetic_home: Path) -> None:
    command = fake_cli(
        tmp_path,
        "args = sys.argv[1:]\n"
        "assert args[args.index('--prompt') + 1] == 'Answer the conversation above.'\n"
        "assert args[args.index('--model') + 1] == 'gemini-test'\n"
        "stdin = sys.stdin.read()\n"
        "print(json.dumps({'response': 'ok: ' + stdin.splitlines()[-1], 'stats': {'models':"
        " {'gemini-test': {'tokens': {'prompt': 21, 'candidates': 4, 'total': 25}}}}}))",
    )
    cfg = cli_config(hermetic_home, "gemini-cli", command, "cli/gemini-test")
    reply = chat(cfg, "dream", [Message("user", "the question")], job="dream", background=False)
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ("ok: the question", 21, 4)


def test_gemini_reads_the_real_cli_output(tmp_path: Path, hermetic_home: Path) -> None:
    """What gemini 0.61.0 printed against tools/fake_gemini.py: its router's side call
    counts too (two models in ``stats``)."""
    recorded = DATA / "model" / "gemini_cli_0.61.0_reply.json"
    command = fake_cli(tmp_path, f"sys.stdin.read()\nprint(open({str(recorded)!r}).read())")
    cfg = cli_config(hermetic_home, "gemini-cli", command)
    reply = chat(cfg, "dream", [Message("user", "x")], job="dream", background=False)
    assert reply.text.startswith("FAKE_REPLY: [system]")
    assert (reply.tokens_in, reply.tokens_out) == (892 + 10140, 24 + 26)


def test_the_gemini_child_runs_in_a_private_trusted_workspace_without_hooks(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """Workspace settings are how hooks, tools (and by flag MCP servers) are switched off
    in gemini -p; the job's system prompt replaces the CLI's own; every run shares one
    folder, so gemini's session list and its pruning see one project."""
    command = fake_cli(
        tmp_path,
        "seen = {'cwd': os.getcwd(), 'argv': sys.argv[1:], 'stdin': sys.stdin.read(),\n"
        "  'settings': json.load(open('.gemini/settings.json')),\n"
        "  'trust': os.environ.get('GEMINI_CLI_TRUST_WORKSPACE'),\n"
        "  'system_file': os.environ['GEMINI_SYSTEM_MD'],\n"
        "  'system': open(os.environ['GEMINI_SYSTEM_MD']).read()}\n"
        "print(json.dumps({'response': json.dumps(seen), 'stats': {}}))",
    )
    cfg = cli_config(hermetic_home, "gemini-cli", command)
    runs = [
        json.loads(
            chat(
                cfg, "dream", [Message("user", "x")], system=f"Be brief {n}.", job="dream",
                background=False,
            ).text
        )
        for n in (1, 2)
    ]  # fmt: skip
    seen = runs[0]
    assert seen["settings"] == {
        "hooksConfig": {"enabled": False},
        "tools": {"core": []},
        "general": {"sessionRetention": {"enabled": True, "maxCount": 20}},
    }
    assert seen["trust"] == "true"
    assert [r["system"] for r in runs] == ["Be brief 1.", "Be brief 2."]
    assert "[system]" not in seen["stdin"] and seen["stdin"].startswith("[user]\nx")
    assert seen["argv"][seen["argv"].index("--allowed-mcp-server-names") + 1] == GEMINI_NO_MCP
    workspace = Path(seen["cwd"])
    assert runs[1]["cwd"] == seen["cwd"] and workspace.name == "pi_memory-gemini-child"
    assert Path(seen["system_file"]).parent == workspace.parent
    assert not any(Path(r["system_file"]).exists() for r in runs)
    if sys.platform != "win32":
        assert workspace.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_gemini_workspace_others_can_write_is_not_used(tmp_path: Path) -> None:
    """Gemini obeys a folder's settings: a folder others could fill is never the child's."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    chosen = _private_dir(shared)
    assert chosen != shared and chosen.stat().st_mode & 0o777 == 0o700
    chosen.rmdir()
    private = tmp_path / "private"
    assert _private_dir(private) == private and private.stat().st_mode & 0o777 == 0o700


def test_gemini_thoughts_count_as_output(tmp_path: Path, hermetic_home: Path) -> None:
    """What gemini 0.61.0 printed when the fake reported 37 thinking tokens: it keeps them
    apart from ``candidates`` (its ``total`` is the sum of the three)."""
    recorded = DATA / "model" / "gemini_cli_0.61.0_thinking.json"
    command = fake_cli(tmp_path, f"sys.stdin.read()\nprint(open({str(recorded)!r}).read())")
    cfg = cli_config(hermetic_home, "gemini-cli", command, "cli/gemini-fake-model")
    reply = chat(cfg, "dream", [Message("user", "x")], job="dream", background=False)
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ("Nothing worth storing.", 232, 46)


def test_a_gemini_api_error_is_said_in_gemini_s_words(tmp_path: Path, hermetic_home: Path) -> None:
    """What gemini 0.61.0 wrote to stderr (exit 1, nothing on stdout) when the API answered
    404 "not here": its closing JSON, not the terminal warning before it, is the reason."""
    recorded = DATA / "model" / "gemini_cli_0.61.0_error.stderr"
    command = fake_cli(
        tmp_path,
        f"sys.stdin.read()\nsys.stderr.write(open({str(recorded)!r}).read())\nsys.exit(1)",
    )
    cfg = cli_config(hermetic_home, "gemini-cli", command)
    with pytest.raises(ModelUnavailable, match=r"gemini-cli failed \(not here\)$"):
        chat(cfg, "dream", [Message("user", "x")], job="dream", background=False)
