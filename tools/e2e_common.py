"""What the end-to-end checks with real clients share: a private network, the fake model, a HOME.

The clients (Node 22 + pi, Claude Code) come from the npm registry through
``install_clients.sh`` into ``$E2E`` (default ``/srv/e2e``); the fake model
servers (stdlib Python, loopback only) from the project's shared hosts
directory (``--fakes`` or ``$PI_MEMORY_FAKES``). Every check runs inside
``unshare -n``, where only a loopback interface exists, so nothing leaves the
machine.
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


def default_fakes() -> Path:
    for candidate in (
        os.environ.get("PI_MEMORY_FAKES", ""),
        "../shared/hosts",
        "../../shared/hosts",
    ):
        if candidate and (REPO / candidate / "fake_openai.py").is_file():
            return (REPO / candidate).resolve()
    raise SystemExit("fake model servers not found: pass --fakes DIR or set PI_MEMORY_FAKES")


def in_private_network() -> None:
    """Re-run this script inside a new network namespace with only loopback up."""
    if os.environ.get(NETNS_FLAG) == "1":
        return
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

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text("utf-8").splitlines() if line]

    def script(self, replies: list[dict[str, Any]]) -> None:
        """Queue replies (``{"match", "tool_calls": [{"name", "arguments"}]}``), each used once."""
        import urllib.request

        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/_script",
            data=json.dumps(replies).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310  # loopback
            response.read()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


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
