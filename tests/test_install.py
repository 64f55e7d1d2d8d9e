"""install / uninstall against each host's real config files: goldens, merging, byte-exact undo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_memory.commands.install import backups
from tests import golden_install as g
from tests.conftest import REPO
from tests.inproc import call


@pytest.fixture(autouse=True)
def no_host_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)


def test_every_host_and_scope_has_a_golden() -> None:
    assert sorted({c.partition("+")[0] for c in g.cases()}) == [
        f"{host}-{scope}"
        for host in ("claude-code", "codex", "gemini", "pi")
        for scope in ("project", "user")
    ]


@pytest.mark.parametrize("case", g.cases())
def test_install_matches_golden_twice_is_once_and_uninstall_restores_bytes(
    case: str, tmp_path: Path, hermetic_home: Path
) -> None:
    repo = g.lay_out(case, tmp_path, hermetic_home)
    before = g.state(tmp_path, hermetic_home)
    g.install(case, repo)
    after = g.state(tmp_path, hermetic_home)
    expected = dict(before)
    expected.update(g.expected(case))
    assert after == expected
    # Every file install changed has a backup holding what it found.
    for name, data in before.items():
        if after[name] != data:
            root = hermetic_home if name.startswith("home/") else tmp_path / "repo"
            path = root / name.split("/", 1)[1]
            assert [g.placeholders(b) for b in backups(path)[:1]] == [data]

    host, scope = g.host_and_scope(case)
    assert "nothing to change" in g.install(case, repo)
    assert g.state(tmp_path, hermetic_home) == after

    result = call("uninstall", host, "--scope", scope, cwd=repo)
    assert (result.code, result.err) == (0, "")
    if case.endswith(g.PREVIOUS):  # an earlier version's install, removed whole
        assert g.content(g.state(tmp_path, hermetic_home)) == g.restored(case)
    else:
        assert g.state(tmp_path, hermetic_home) == before
    again = call("uninstall", host, "--scope", scope, cwd=repo)
    assert "nothing to change" in again.out


def test_uninstall_keeps_what_the_user_added_since(tmp_path: Path, hermetic_home: Path) -> None:
    repo = g.lay_out("claude-code-user", tmp_path, hermetic_home)
    g.install("claude-code-user", repo)
    settings = hermetic_home / ".claude" / "settings.json"
    data = json.loads(settings.read_text("utf-8"))
    data["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "~/bin/notify.sh"}]}]
    data["permissions"]["allow"].append("Read(~/notes)")
    settings.write_text(json.dumps(data))
    assert call("uninstall", "claude-code", cwd=repo).code == 0
    left = json.loads(settings.read_text("utf-8"))
    assert left["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "~/bin/notify.sh"}]}]
    assert set(left["hooks"]) == {"SessionStart", "PreToolUse", "Stop"}
    assert left["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "~/bin/greet.sh"
    assert left["permissions"]["allow"] == ["Bash(npm test:*)", "Read(~/notes)"]
    servers = json.loads((hermetic_home / ".claude.json").read_text("utf-8"))["mcpServers"]
    assert list(servers) == ["docs"]


def test_dry_run_prints_the_diff_and_changes_nothing(tmp_path: Path, hermetic_home: Path) -> None:
    repo = g.lay_out("gemini-user", tmp_path, hermetic_home)
    before = g.state(tmp_path, hermetic_home)
    result = call("install", "gemini", "--dry-run", cwd=repo)
    assert result.code == 0
    settings = hermetic_home / ".gemini" / "settings.json"
    assert f"--- {settings}\n+++ {settings}\n" in result.out
    assert '+    "pi_memory": {' in result.out
    assert result.out.endswith("gemini (user): dry run, nothing was changed\n")
    assert g.state(tmp_path, hermetic_home) == before
    assert not list(settings.parent.glob("*" + g.BACKUP))


def test_a_broken_config_is_refused_untouched(tmp_path: Path, hermetic_home: Path) -> None:
    settings = hermetic_home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": ')
    repo = tmp_path / "repo"
    repo.mkdir()
    result = call("install", "claude-code", cwd=repo)
    assert result.code == 1
    assert result.err.startswith(f"pi_memory: {settings} is not valid JSON")
    assert result.err.count("\n") == 1
    assert settings.read_text() == '{"hooks": '
    assert not (hermetic_home / ".claude.json").exists()


def test_a_foreign_pi_extension_of_the_same_name_is_refused(
    tmp_path: Path, hermetic_home: Path
) -> None:
    mine = hermetic_home / ".pi" / "agent" / "extensions" / "pi_memory.ts"
    mine.parent.mkdir(parents=True)
    mine.write_text("// my own\n")
    result = call("install", "pi", cwd=tmp_path)
    assert result.code == 1 and "was not written by pi_memory" in result.err
    assert call("uninstall", "pi", cwd=tmp_path).code == 0
    assert mine.read_text() == "// my own\n"


def test_the_installed_hook_runs_from_any_directory(tmp_path: Path, hermetic_home: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert call("install", "claude-code", cwd=repo).code == 0
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    settings = json.loads((hermetic_home / ".claude" / "settings.json").read_text("utf-8"))
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    event = json.dumps({"cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(  # noqa: S602
        command,
        shell=True,  # a host runs hook commands through a shell
        cwd="/",
        input=event,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "#deploy" in context
    server = json.loads((hermetic_home / ".claude.json").read_text("utf-8"))["mcpServers"][
        "pi_memory"
    ]
    assert server["command"] == str(Path(sys.executable).resolve())
    assert server["args"] == ["-S", str(REPO / "pi_memory"), "mcp"]


@pytest.mark.skipif(os.name == "nt", reason="Gemini CLI runs hooks with PowerShell there")
def test_gemini_does_not_wait_for_the_session_end_hook(tmp_path: Path, hermetic_home: Path) -> None:
    """Gemini CLI waits for a hook until its output closes (``bash -c COMMAND``) and reads no
    answer from SessionEnd: its command runs in the shell's background, the event on its
    stdin. Here the event's stdin stays open: the shell is done while the hook still reads."""
    import select

    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert call("install", "gemini", cwd=repo).code == 0
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    hooks = json.loads((hermetic_home / ".gemini" / "settings.json").read_text("utf-8"))["hooks"]
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"type": "user"}\n', "utf-8")
    event = {"session_id": "s1", "transcript_path": str(chat), "cwd": str(repo)}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(name: str, **fields: str) -> subprocess.Popen[bytes]:
        command = hooks[name][0]["hooks"][0]["command"]
        proc = subprocess.Popen(
            ["bash", "-c", command], cwd=repo, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({**event, "hook_event_name": name, **fields}).encode())
        proc.stdin.flush()
        return proc

    ask = run("BeforeAgent", prompt="how do we deploy?")
    assert b"#deploy" in ask.communicate(timeout=60)[0]
    state = hermetic_home / ".cache" / "pi_memory" / "sessions" / "s1" / "state.json"
    assert json.loads(state.read_text("utf-8"))["watch"] == chat.stat().st_size
    with chat.open("a", encoding="utf-8") as more:
        more.write('{"type": "gemini"}\n')
    end = run("SessionEnd", reason="exit")
    assert end.stdout is not None and end.stderr is not None
    closed, _, _ = select.select([end.stdout], [], [], 60)
    with end.stdout, end.stderr:
        assert closed and end.stdout.read() == b"" and end.stderr.read() == b""
    assert end.wait(timeout=60) == 0
    assert json.loads(state.read_text("utf-8"))["watch"] is not None  # the hook still reads
    assert end.stdin is not None
    end.stdin.close()  # the event ends: the hook settles the mark (nothing was compressed)
    deadline = time.monotonic() + 60
    while json.loads(state.read_text("utf-8"))["watch"] is not None:
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_codex_install_replaces_the_deprecated_flag_and_uninstall_removes_both(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """Codex 0.171.0 warns on every run about ``[features].codex_hooks`` (now ``hooks``) and
    about a SessionEnd hook asking for more than the 3 s it is given."""
    config = hermetic_home / ".codex" / "config.toml"
    config.parent.mkdir()
    before = "[features]\nweb_search_request = true\n"
    config.write_text("[features]\ncodex_hooks = true  # pi_memory\nweb_search_request = true\n")
    installed = call("install", "codex", cwd=tmp_path)
    assert installed.code == 0
    # codex exec skips a hook nobody trusted, without a word: install says so.
    assert "hooks need review" in installed.out and "codex exec" in installed.out
    text = config.read_text("utf-8")
    assert "codex_hooks" not in text and "hooks = true  # pi_memory\n" in text
    hooks = json.loads((hermetic_home / ".codex" / "hooks.json").read_text("utf-8"))["hooks"]
    assert hooks["SessionEnd"][0]["hooks"][0]["timeout"] == 3
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["timeout"] == 30
    assert call("uninstall", "codex", cwd=tmp_path).code == 0
    assert config.read_text("utf-8").rstrip("\n") == before.rstrip("\n")  # the user's lines


def test_install_can_point_at_the_single_file_build(tmp_path: Path, hermetic_home: Path) -> None:
    from tools.build_pyz import build

    pyz = tmp_path / "pi_memory.pyz"
    build(pyz)
    assert call("install", "codex", "--pyz", str(pyz), cwd=tmp_path).code == 0
    text = (hermetic_home / ".codex" / "config.toml").read_text("utf-8")
    assert f'args = ["-S", "{pyz}", "mcp"]' in text
    hooks = json.loads((hermetic_home / ".codex" / "hooks.json").read_text("utf-8"))
    assert hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"].endswith(
        f"-S {pyz} hook --host codex SessionStart"
    )
    missing = call("install", "codex", "--pyz", str(tmp_path / "nope.pyz"), cwd=tmp_path)
    assert missing.code == 1 and "no such file" in missing.err


def test_gemini_settings_with_comments_lose_none_without_a_backup(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """Gemini CLI strips comments from settings.json before it parses it (the golden
    ``gemini-user+comments``): with its backup gone, uninstall still gives back the very
    bytes, by taking out exactly what install put in."""
    repo = g.lay_out("gemini-user+comments", tmp_path, hermetic_home)
    settings = hermetic_home / ".gemini" / "settings.json"
    before = settings.read_bytes()
    g.install("gemini-user+comments", repo)
    for backup in hermetic_home.rglob("*" + g.BACKUP):
        backup.unlink()
    assert call("uninstall", "gemini", cwd=repo).code == 0
    assert settings.read_bytes() == before


def _backups_under(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*" + g.BACKUP))


@pytest.mark.parametrize("case", ["codex-project", "claude-code-user", "gemini-user"])
def test_a_round_trip_keeps_one_backup_outside_the_work_tree_and_leaves_none(
    case: str, tmp_path: Path, hermetic_home: Path
) -> None:
    repo = g.lay_out(case, tmp_path, hermetic_home)
    before = g.state(tmp_path, hermetic_home)
    g.install(case, repo)
    after = g.state(tmp_path, hermetic_home)
    changed = [name for name, data in before.items() if after[name] != data]
    assert changed
    assert _backups_under(repo) == []  # nothing in the work tree
    # One backup per file install changed, holding what it found there.
    kept = _backups_under(hermetic_home)
    assert sorted(p.read_bytes() for p in kept) == sorted(before[name] for name in changed)
    host, scope = g.host_and_scope(case)
    assert call("uninstall", host, "--scope", scope, cwd=repo).code == 0
    assert g.state(tmp_path, hermetic_home) == before
    assert _backups_under(repo, hermetic_home) == []


def test_codex_install_leaves_a_codex_hooks_line_of_the_users_own_as_the_manual_says(
    tmp_path: Path, hermetic_home: Path
) -> None:
    config = hermetic_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("[features]\ncodex_hooks = true\n")
    assert call("install", "codex", cwd=tmp_path).code == 0
    text = config.read_text("utf-8")
    assert text.startswith("[features]\nhooks = true  # pi_memory\ncodex_hooks = true\n")
    manual = (REPO / "docs" / "hosts.md").read_text("utf-8")
    said = " ".join(manual.split())
    assert "replaces the older `codex_hooks`" not in said
    assert "a `codex_hooks` line of your own stays" in said


def test_install_over_an_earlier_one_takes_its_turn_end_hook_and_keeps_the_users(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """An earlier version hooked Stop; the next prompt does that work now, so the upgrade
    removes our Stop hook (one process less a turn) and keeps one the user added there."""
    case = "claude-code-user+previous"
    repo = g.lay_out(case, tmp_path, hermetic_home)
    settings = hermetic_home / ".claude" / "settings.json"
    data = json.loads(settings.read_text("utf-8"))
    ours = data["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert ours.endswith("pi_memory hook --host claude-code Stop")
    data["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "~/bin/notify.sh"}]})
    settings.write_text(json.dumps(data))
    g.install(case, repo)
    hooks = json.loads(settings.read_text("utf-8"))["hooks"]
    assert hooks["Stop"] == [{"hooks": [{"type": "command", "command": "~/bin/notify.sh"}]}]
    assert set(hooks) == {"SessionStart", "PreToolUse", "UserPromptSubmit", "PreCompact",
                          "SessionEnd", "Stop"}  # fmt: skip
