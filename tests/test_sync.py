"""``sync``: two machines (two homes) and a bare remote on this machine, real git throughout.

Each machine is a HOME of its own; its user layer is synced through a bare
repository reached by path. A remote that refuses pushes has a ``pre-receive``
hook that exits 1; an unreachable remote is a path that does not exist, or a
port on 127.0.0.1 where nothing listens.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.clihelp import Run, run_cli
from tests.inproc import user_config

CATEGORIES_USER = Path(".pi/agent/memory-auto")


@pytest.fixture(autouse=True)
def no_git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a fresh machine: no git identity anywhere (sync names itself)."""
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.delenv(f"GIT_{role}_NAME", raising=False)
        monkeypatch.delenv(f"GIT_{role}_EMAIL", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


class Machine:
    """One machine: its home, its layout, and a directory to work in (no repository)."""

    def __init__(self, root: Path, layout: str) -> None:
        self.home = root / "home"
        self.work = root / "work"
        self.home.mkdir(parents=True)
        self.work.mkdir()
        self.layout = layout
        self.env = {"HOME": str(self.home), "USERPROFILE": str(self.home)}
        settings = {"layout": layout, "memoryDir": str(self.home / "memory")}
        user_config(self.home, settings)

    @property
    def layer(self) -> Path:
        if self.layout == "files":
            return self.home / "memory" / "user"
        return self.home / CATEGORIES_USER

    def cli(self, *args: str, stdin: str = "") -> Run:
        return run_cli(*args, cwd=self.work, env=self.env, stdin=stdin)

    def write(self, keyword: str, body: str) -> None:
        done = self.cli("write", "--layer", "user", "--keyword", keyword, body)
        assert done.code == 0, done.err

    def memories(self) -> list[str]:
        done = self.cli("search", "--json", "--mode", "recent")
        assert done.code == 0, done.err
        return sorted(hit["body"] for hit in json.loads(done.out)["results"])

    def sync(self, *args: str) -> Run:
        return self.cli("sync", *args)

    def synced(self, *args: str) -> str:
        done = self.sync(*args)
        assert done.code == 0, done.err
        return done.out

    def state(self) -> dict[str, bytes]:
        """Every file of the layer with its bytes, and its repository's branch, index and
        configuration (what git fetched to compare with is not the layer)."""
        files = {
            str(path.relative_to(self.layer)): path.read_bytes()
            for path in sorted(self.layer.rglob("*"))
            if path.is_file() and ".git" not in path.relative_to(self.layer).parts
        }
        git = self.layer / ".git"
        kept = ("HEAD", "index", "config", "refs/heads/main")
        return files | {
            f".git/{name}": (git / name).read_bytes() for name in kept if (git / name).exists()
        }


def bare(tmp_path: Path, name: str = "remote.git") -> Path:
    path = tmp_path / name
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


@pytest.fixture(params=["categories", "files"])
def layout(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


def test_two_machines_writing_different_memories_end_with_both(tmp_path: Path, layout: str) -> None:
    remote = bare(tmp_path)
    a, b = Machine(tmp_path / "a", layout), Machine(tmp_path / "b", layout)
    a.write("deploy", "Deploy with rsync.")
    b.write("editor", "I edit in Helix.")  # b holds a memory before it ever syncs
    assert "1 memory arrived" not in a.synced("--remote", str(remote))
    out = b.synced("--remote", str(remote))  # joins: keeps its own, gets a's
    assert "1 memory arrived" in out and "changes were sent" in out
    assert b.memories() == ["Deploy with rsync.", "I edit in Helix."]
    a.write("ports", "The staging port is 2222.")
    b.write("shell", "The shell is fish.")
    a.synced()  # remembered: no --remote
    assert "1 memory arrived" in b.synced()
    assert "1 memory arrived" in a.synced()
    both = [
        "Deploy with rsync.",
        "I edit in Helix.",
        "The shell is fish.",
        "The staging port is 2222.",
    ]
    assert a.memories() == both and b.memories() == both
    # Nothing but the memory files and the rules travel.
    command = ["git", "ls-tree", "--name-only", "main"]
    listed = subprocess.run(command, cwd=remote, capture_output=True, text=True, check=True)
    listed = listed.stdout.split()
    assert ".gitignore" in listed and ".gitattributes" in listed
    assert all(name.endswith(".md") or name.startswith(".git") for name in listed), listed
    # A session's write after a sync is a plain write: the layer stays a working layer.
    a.write("ci", "CI runs on every push.")
    assert "CI runs on every push." in a.memories()


def test_the_same_memory_written_on_both_machines_stays_one(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a, b = Machine(tmp_path / "a", "categories"), Machine(tmp_path / "b", "categories")
    a.write("deploy", "Deploy with rsync.")
    a.synced("--remote", str(remote))
    b.synced("--remote", str(remote))
    # Both confirm it (its seen count goes up on each side): the rows merge into one.
    a.write("deploy", "Deploy with rsync.")
    b.write("deploy", "Deploy with rsync.")
    a.synced()
    out = b.synced()
    assert "kept both" not in out
    a.synced()
    for machine in (a, b):
        found = json.loads(machine.cli("search", "--json", "--mode", "recent").out)["results"]
        assert [hit["body"] for hit in found] == ["Deploy with rsync."]
        assert found[0]["seen"] == 2


def memory_tool(machine: Machine, **arguments: str) -> None:
    done = machine.cli("tool", "memory", stdin=json.dumps({"layer": "user", **arguments}))
    assert done.code == 0 and json.loads(done.out)["ok"], done.out + done.err


def test_one_memory_changed_on_both_machines_keeps_both_versions_and_says_so(
    tmp_path: Path,
) -> None:
    remote = bare(tmp_path)
    a, b = Machine(tmp_path / "a", "files"), Machine(tmp_path / "b", "files")
    memory_tool(a, action="add", name="staging", content="Staging is on port 22.")
    a.synced("--remote", str(remote))
    b.synced("--remote", str(remote))
    memory_tool(a, action="replace", name="staging", content="Staging is on port 2222.")
    memory_tool(b, action="replace", name="staging", content="Staging is on port 2200.")
    a.synced()
    out = b.synced()
    assert "kept both:" in out and "changed on both machines" in out, out
    a.synced()
    both = ["Staging is on port 2200.", "Staging is on port 2222."]
    assert a.memories() == both and b.memories() == both
    index = (b.layer / "MEMORY.md").read_text("utf-8")
    lines = [line for line in index.splitlines() if line.startswith("- [staging")]
    assert len(lines) == 2 and "2200" in index and "2222" in index, index


def test_a_remote_that_refuses_the_push_changes_nothing_here(tmp_path: Path, layout: str) -> None:
    remote = bare(tmp_path)
    a, b = Machine(tmp_path / "a", layout), Machine(tmp_path / "b", layout)
    a.write("deploy", "Deploy with rsync.")
    a.synced("--remote", str(remote))
    b.write("editor", "I edit in Helix.")
    b.synced("--remote", str(remote))
    a.write("ports", "The staging port is 2222.")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'pushes are closed' >&2\nexit 1\n", "utf-8")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    before = a.state()
    done = a.sync()
    assert done.code == 1 and done.out == ""
    assert done.err.count("\n") == 1 and "refused the push" in done.err, done.err
    assert a.state() == before
    assert "I edit in Helix." not in a.memories()
    hook.unlink()
    assert "1 memory arrived" in a.synced()


@pytest.mark.parametrize("where", ["missing path", "closed port"])
def test_an_unreachable_remote_changes_nothing_here(tmp_path: Path, where: str) -> None:
    remote = bare(tmp_path)
    a = Machine(tmp_path / "a", "categories")
    a.write("deploy", "Deploy with rsync.")
    unreachable = (
        str(tmp_path / "nowhere.git") if where == "missing path" else "http://127.0.0.1:9/x.git"
    )
    # The first time: no repository is left behind.
    before = a.state()
    done = a.sync("--remote", unreachable)
    assert done.code == 1 and done.err.count("\n") == 1, done.err
    assert a.state() == before and not (a.layer / ".git").exists()
    # Later: the remembered remote has gone away.
    a.synced("--remote", str(remote))
    a.write("ports", "The staging port is 2222.")
    os.rename(remote, tmp_path / "moved.git")
    if where == "closed port":
        subprocess.run(["git", "remote", "set-url", "origin", unreachable], cwd=a.layer, check=True)
    before = a.state()
    done = a.sync()
    assert done.code == 1 and "git fetch failed" in done.err, done.err
    assert a.state() == before


class _AskForPassword(BaseHTTPRequestHandler):
    """A git server on 127.0.0.1 that wants a password for everything."""

    def do_GET(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="memories"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        del format, args


def test_a_remote_asking_for_a_password_fails_at_once_without_a_prompt(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _AskForPassword)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        a = Machine(tmp_path / "a", "categories")
        a.write("deploy", "Deploy with rsync.")
        # A person's password helper would answer (and a terminal would ask): neither is used.
        asked = tmp_path / "asked"
        helper = tmp_path / "askpass"
        helper.write_text(f"#!/bin/sh\necho asked >> '{asked}'\necho secret\n", "utf-8")
        helper.chmod(0o755)
        a.env.update({"GIT_ASKPASS": str(helper), "SSH_ASKPASS": str(helper)})
        before = a.state()
        started = time.monotonic()
        done = a.sync("--remote", f"http://127.0.0.1:{server.server_port}/memories.git")
        assert done.code == 1 and "git fetch failed" in done.err, done.err
        assert time.monotonic() - started < 30
        assert not asked.exists()
        assert a.state() == before
    finally:
        server.shutdown()
        server.server_close()


def test_plain_sync_before_any_remote_says_how_to_start(tmp_path: Path) -> None:
    a = Machine(tmp_path / "a", "categories")
    done = a.sync()
    assert done.code == 1 and "sync --remote URL" in done.err
    assert not (a.layer / ".git").exists()


def test_one_row_rewritten_on_both_machines_keeps_both_versions(tmp_path: Path) -> None:
    remote = bare(tmp_path)
    a, b = Machine(tmp_path / "a", "categories"), Machine(tmp_path / "b", "categories")
    a.write("deploy", "Deploy with rsync.")
    a.synced("--remote", str(remote))
    b.synced("--remote", str(remote))
    for machine, tool in ((a, "scp"), (b, "ftp")):  # a person edits the row on each
        (path,) = [p for p in machine.layer.glob("*.md") if "rsync" in p.read_text("utf-8")]
        path.write_text(path.read_text("utf-8").replace("rsync", tool), "utf-8")
    a.synced()
    out = b.synced()
    assert "kept both:" in out and "changed on both machines" in out, out
    a.synced()
    both = ["Deploy with ftp.", "Deploy with scp."]
    assert a.memories() == both and b.memories() == both
