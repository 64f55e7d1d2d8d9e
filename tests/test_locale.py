"""UTF-8 in and out whatever the locale says (a real process: the locale is read at start-up)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.clihelp import REPO

C_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}


def run_bytes(cwd: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(C_LOCALE, PYTHONPATH=str(REPO))
    argv = [sys.executable, "-m", "pi_memory", *args]
    return subprocess.run(
        [os.fsencode(a) for a in argv],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_a_c_locale_writes_and_prints_utf8(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    wrote = run_bytes(root, "write", "--keyword", "déploiement", "Déploie avec rsync — toujours.")
    assert (wrote.returncode, wrote.stderr) == (0, b"")
    assert "déploiement".encode() in wrote.stdout
    stored = (root / ".pi/agent/memory-auto/CONVENTIONS.md").read_bytes()
    assert "tags: déploiement -->\nDéploie avec rsync — toujours.\n".encode() in stored

    piped = run_bytes(root, "write", "--keyword", "部署", "-", stdin="部署用 rsync。".encode())
    assert (piped.returncode, piped.stderr) == (0, b"")

    found = run_bytes(root, "search", "rsync")
    assert (found.returncode, found.stderr) == (0, b"")
    assert "Déploie avec rsync — toujours.".encode() in found.stdout
    shown = run_bytes(root, "show")
    assert (shown.returncode, shown.stderr) == (0, b"")
    assert "#déploiement".encode() in shown.stdout and "#部署".encode() in shown.stdout


def test_bytes_that_are_not_utf8_are_refused_under_a_c_locale(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    argv = [sys.executable, "-m", "pi_memory", "write", "--keyword"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(C_LOCALE, PYTHONPATH=str(REPO))
    run = subprocess.run(
        [*(os.fsencode(a) for a in argv), b"kw\xff", b"A body."],
        cwd=root,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert run.returncode == 1 and run.stdout == b""
    assert b"not valid UTF-8" in run.stderr and b"Traceback" not in run.stderr
    assert not (root / ".pi").exists()
