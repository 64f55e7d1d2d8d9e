"""Run ``python -m pi_memory`` as a user types it: a real subprocess from the repo root."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def run_cli(*args: str, cwd: Path, stdin: str = "", env: dict[str, str] | None = None) -> Run:
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(REPO)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        [sys.executable, "-m", "pi_memory", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=full_env,
        timeout=60,
        check=False,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)
