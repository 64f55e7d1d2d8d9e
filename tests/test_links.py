"""Symbolic links and read-only files: a cloned repository cannot reach outside itself, and a
person's own links and permissions are respected."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.inproc import call

AUTO = Path(".pi/agent/memory-auto")


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_text("-----BEGIN PRIVATE KEY-----\n", "utf-8")
    return path


def test_a_committed_file_link_out_of_the_repository_is_refused(repo: Path, secret: Path) -> None:
    (repo / AUTO).mkdir(parents=True)
    (repo / AUTO / "CONVENTIONS.md").symlink_to(secret)
    run = call("write", "--keyword", "k", "A project fact.", cwd=repo)
    assert run.code == 1 and run.err.count("\n") == 1
    assert "outside the repository" in run.err and "CONVENTIONS.md" in run.err
    assert secret.read_text("utf-8") == "-----BEGIN PRIVATE KEY-----\n"
    assert sorted(p.name for p in (repo / AUTO).iterdir()) == ["CONVENTIONS.md"]
    shown = call("show", cwd=repo)
    assert shown.code == 0 and "outside the repository" in shown.out
    found = json.loads(call("search", "--json", "--mode", "all", cwd=repo).out)
    assert found["total"] == 0  # nothing read through the link either
    event = json.dumps({"cwd": str(repo), "hook_event_name": "SessionStart"})
    hook = call("hook", "session-start", cwd=repo, stdin=event)
    payload = json.loads(hook.out)
    assert "outside the repository" in payload["systemMessage"]
    assert "PRIVATE KEY" not in hook.out


def test_a_linked_layer_directory_out_of_the_repository_is_refused(
    repo: Path, secret: Path
) -> None:
    (repo / ".pi" / "agent").mkdir(parents=True)
    (repo / AUTO).symlink_to(secret.parent, target_is_directory=True)
    run = call("write", "--keyword", "k", "A project fact.", cwd=repo)
    assert run.code == 1 and "outside the repository" in run.err
    assert sorted(p.name for p in secret.parent.iterdir()) == ["id_rsa"]
    # The user layer is not the repository's to refuse.
    run = call("write", "--layer", "user", "--keyword", "k", "A user fact.", cwd=repo)
    assert run.code == 0, run.err


def test_a_link_inside_the_repository_is_fine(repo: Path) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "conventions.md").write_text("", "utf-8")
    (repo / AUTO).mkdir(parents=True)
    (repo / AUTO / "CONVENTIONS.md").symlink_to(repo / "docs" / "conventions.md")
    run = call("write", "--keyword", "k", "A project fact.", cwd=repo)
    assert run.code == 0, run.err
    assert (repo / AUTO / "CONVENTIONS.md").is_symlink()
    assert "A project fact." in (repo / "docs" / "conventions.md").read_text("utf-8")


def test_a_linked_file_in_the_user_layer_is_written_through(
    tmp_path: Path, hermetic_home: Path
) -> None:
    dotfiles = tmp_path / "dotfiles" / "USER.md"
    dotfiles.parent.mkdir()
    dotfiles.write_text("", "utf-8")
    layer = hermetic_home / AUTO
    layer.mkdir(parents=True)
    (layer / "USER.md").symlink_to(dotfiles)
    run = call("write", "--layer", "user", "--keyword", "k", "A user fact.", cwd=tmp_path)
    assert run.code == 0, run.err
    assert (layer / "USER.md").is_symlink()
    assert "A user fact." in dotfiles.read_text("utf-8")
    assert not any(p.name.endswith(".tmp") for p in dotfiles.parent.iterdir())


def test_a_read_only_category_file_is_not_replaced(tmp_path: Path, hermetic_home: Path) -> None:
    layer = hermetic_home / AUTO
    layer.mkdir(parents=True)
    frozen = layer / "USER.md"
    frozen.write_text("", "utf-8")
    os.chmod(frozen, 0o444)
    run = call("write", "--layer", "user", "--keyword", "k", "A user fact.", cwd=tmp_path)
    assert run.code == 1 and "read-only" in run.err and str(frozen) in run.err
    assert frozen.read_text("utf-8") == ""
    assert stat.S_IMODE(frozen.stat().st_mode) == 0o444


@pytest.mark.parametrize("mode", ["keyword", "tag", "all", "recent", "id"])
def test_search_never_reads_through_a_link_out_and_says_why(
    repo: Path, tmp_path: Path, mode: str
) -> None:
    outside = tmp_path / "outside" / "notes.md"
    outside.parent.mkdir()
    outside.write_text(
        "<!-- mid: 20261011-a1b2 | t: 2026-10-11 19:40:00 | p: x | src: user | tags: token -->\n"
        "The deploy token is hunter2\n",
        "utf-8",
    )
    (repo / AUTO).mkdir(parents=True)
    (repo / AUTO / "CONVENTIONS.md").symlink_to(outside)
    query = "20261011-a1b2" if mode == "id" else "token"
    run = call("search", "--mode", mode, query, cwd=repo)
    assert run.code == 0, run.err
    assert "hunter2" not in run.out
    assert "note: the project layer is not used: " in run.out
    assert "is a link to" in run.out and "outside the repository" in run.out
    answer = json.loads(
        call(
            "tool", "memory_search", cwd=repo, stdin=json.dumps({"query": query, "mode": mode})
        ).out
    )
    assert answer["ok"] is True
    assert "hunter2" not in answer["text"]
    assert "the project layer is not used: " in answer["text"]


def _outside_row(tmp_path: Path) -> Path:
    outside = tmp_path / "outside" / "notes.md"
    outside.parent.mkdir(exist_ok=True)
    outside.write_text(
        "<!-- mid: 20261011-a1b2 | t: 2026-10-11 19:40:00 | p: x | src: user | tags: token -->\n"
        "The deploy token is hunter2\n",
        "utf-8",
    )
    return outside


def test_a_link_out_of_the_repository_in_the_inbox_refuses_the_layer(
    repo: Path, tmp_path: Path
) -> None:
    # A committed ``.inbox/`` (``git add -f`` passes its .gitignore) whose item is a link.
    item = tmp_path / "outside" / "0123456789ab.json"
    item.parent.mkdir()
    item.write_text('{"pi_memory_inbox": 1, "text": "The deploy token is hunter2"}\n', "utf-8")
    inbox = repo / AUTO / ".inbox"
    inbox.mkdir(parents=True)
    (inbox / "0123456789ab.json").symlink_to(item)
    for args in (("inbox", "list"), ("search", "--mode", "all"), ("show",)):
        run = call(*args, cwd=repo)
        assert "hunter2" not in run.out + run.err, args
        assert ".inbox/0123456789ab.json is a link to" in run.out + run.err, args
        assert "outside the repository" in run.out + run.err, args


def test_export_says_why_the_project_layer_is_left_out(repo: Path, tmp_path: Path) -> None:
    (repo / AUTO).mkdir(parents=True)
    (repo / AUTO / "CONVENTIONS.md").symlink_to(_outside_row(tmp_path))
    assert call("write", "--layer", "user", "--keyword", "mine", "My fact.", cwd=repo).code == 0
    run = call("export", "agents-md", cwd=repo)
    assert run.code == 0, run.err
    assert "hunter2" not in (repo / "AGENTS.md").read_text("utf-8")
    assert "the project layer is not used: " in run.err
    assert "CONVENTIONS.md is a link to" in run.err and "outside the repository" in run.err


def test_the_mcp_server_says_why_memory_search_skips_the_layer(
    repo: Path, tmp_path: Path, hermetic_home: Path
) -> None:
    import subprocess
    import sys

    (repo / AUTO).mkdir(parents=True)
    (repo / AUTO / "CONVENTIONS.md").symlink_to(_outside_row(tmp_path))
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "memory_search", "arguments": {"query": "token"}},
        },
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pi_memory", "mcp"],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        cwd=repo,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    answer = json.loads(done.stdout.splitlines()[-1])
    text = answer["result"]["content"][0]["text"]
    assert "hunter2" not in done.stdout
    assert "the project layer is not used: " in text and "is a link to" in text


@pytest.mark.parametrize("name", ["MEMORY.md", "anchors.jsonl", "usage.json", "DECISIONS.md"])
def test_every_file_of_the_layer_linked_out_refuses_it(
    repo: Path, tmp_path: Path, name: str
) -> None:
    (repo / AUTO).mkdir(parents=True)
    (repo / AUTO / name).symlink_to(_outside_row(tmp_path))
    for args in (("search", "--mode", "all"), ("show",), ("inbox", "list")):
        run = call(*args, cwd=repo)
        assert "hunter2" not in run.out + run.err, args
        assert f"{name} is a link to" in run.out + run.err, args
