"""The search command the injected index gives the model works where the model runs it.

The model's shell is not the clone: another working directory, no ``PYTHONPATH``.
Each test starts the package the way an installed hook does, takes the command
the index printed, and runs it through a shell from the project.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.hookhelp import make_project, payload
from tools.build_pyz import build


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PI_MEMORY"))}
    env["HOME"] = str(home)
    return env


def _printed_command(launch: list[str], project: Path, env: dict[str, str]) -> str:
    event = payload("claude-code", "SessionStart.startup", project)
    done = subprocess.run(
        [*launch, "hook", "--host", "claude-code", "session-start"],
        input=event,
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    found = re.search(r"Without that tool, run: (.+)", context)
    assert found is not None, context
    return found.group(1)


@pytest.mark.parametrize("form", ["package", "zipapp"])
def test_the_printed_search_command_finds_the_memory_from_the_project(
    tmp_path: Path, hermetic_home: Path, form: str
) -> None:
    if form == "zipapp":
        pyz = tmp_path / "shelf" / "pi_memory.pyz"
        build(pyz)
        launch = [sys.executable, "-S", str(pyz)]
    else:
        launch = [sys.executable, "-S", str(REPO / "pi_memory")]
    project = make_project(tmp_path)
    env = _env(hermetic_home)
    subprocess.run(
        [*launch, "write", "Deploy through staging first", "--keyword", "deploy"],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
    )
    command = _printed_command(launch, project / "src", env)
    assert command.endswith(" search --mode tag KEYWORD")
    ran = subprocess.run(
        ["sh", "-c", command.replace("KEYWORD", "deploy")],
        cwd=project / "src",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert "Deploy through staging first" in ran.stdout
