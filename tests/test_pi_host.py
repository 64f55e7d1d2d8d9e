"""pi's side of the package: the plain-text index its extension injects, the tools it registers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from pi_memory.hosts.install import extension_source
from tests.inproc import call


def pi_event(cwd: Path, **extra: str) -> str:
    # What extension.ts sends: a Claude-Code-shaped event with pi's session file.
    event = {"session_id": "01a22f22-b040", "transcript_path": "", "cwd": str(cwd)}
    event.update(extra)
    return json.dumps(event)


def test_session_start_for_pi_is_the_index_as_plain_text(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=repo).code == 0
    result = call(
        "hook", "--host", "pi", "SessionStart", cwd=tmp_path, stdin=pi_event(repo, source="startup")
    )
    assert result.code == 0 and result.err == ""
    assert result.out.startswith("<memory-auto>\n")
    assert "#deploy" in result.out
    assert "hookSpecificOutput" not in result.out


def test_pi_events_other_than_start_print_nothing(tmp_path: Path) -> None:
    for name in ("Stop", "PreCompact", "PostCompact", "SessionEnd", "UserPromptSubmit"):
        result = call("hook", "--host", "pi", name, cwd=tmp_path, stdin=pi_event(tmp_path))
        assert (result.code, result.out) == (0, "")


def test_tool_list_is_what_the_extension_registers(tmp_path: Path, hermetic_home: Path) -> None:
    listed = json.loads(call("tool", "--list", cwd=tmp_path).out)
    assert [t["name"] for t in listed] == ["memory_search", "memory_write", "session_search"]
    assert all(t["inputSchema"]["type"] == "object" for t in listed)
    config = hermetic_home / ".pi" / "agent" / "memory.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"layout": "files"}')
    listed = json.loads(call("tool", "--list", cwd=tmp_path).out)
    assert [t["name"] for t in listed] == ["memory", "session_search"]


def test_the_extension_has_the_line_install_fills_in() -> None:
    source = extension_source()
    assert source.count("const INSTALLED_COMMAND: string[] | null = null;") == 1
    for event in ("before_agent_start", "turn_end", "session_before_compact", "session_shutdown"):
        assert f'pi.on("{event}"' in source


def test_the_memory_tool_takes_the_command_lines_layer(tmp_path: Path, hermetic_home: Path) -> None:
    config = hermetic_home / ".pi" / "agent" / "memory.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"layout": "files"}')
    result = call("tool", "memory", cwd=tmp_path, stdin='{"action": "list", "layer": "user"}')
    assert json.loads(result.out) == {"ok": True, "text": "No memories yet."}
