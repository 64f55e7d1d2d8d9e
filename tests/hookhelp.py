"""Run hooks as a host does, in this process, with the payloads real hosts send."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_memory.cli import main
from tests.conftest import DATA

PAYLOADS = DATA / "hosts"


class Hook:
    """``python -m pi_memory hook ...`` run in this process, streams captured."""

    def __init__(self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
        self.capsys = capsys
        self.monkeypatch = monkeypatch

    def __call__(self, *args: str, stdin: str, cwd: Path) -> tuple[int, str, str]:
        self.capsys.readouterr()
        with self.monkeypatch.context() as patch:
            patch.chdir(cwd)
            patch.setattr(sys, "stdin", io.StringIO(stdin))
            code = main(list(args))
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err


def payload(host: str, name: str, root: Path, **changes: Any) -> str:
    """A recorded (or documented) payload of ``host``, moved to the test's project."""
    data = json.loads((PAYLOADS / host / f"{name}.json").read_text("utf-8"))
    data["cwd"] = str(root)
    data["transcript_path"] = str(root.parent / "transcript.jsonl")
    data.update(changes)
    return json.dumps(data)


def make_project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root
