"""The end-to-end scripts take their clients from one place, and the build is not committed.

The scripts themselves drive real clients and are slow (``E2E=DIR python
tools/e2e.py``); these checks are what can be seen without running a client.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

SCRIPTS = sorted(p for p in (REPO / "tools").glob("e2e*.py") if p.name != "e2e_common.py")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_e2e_script_takes_its_clients_from_the_pinned_list(script: Path) -> None:
    source = script.read_text("utf-8")
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree, clean=False)
    strings = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    code = [text for text in strings if text != docstring]
    # No install of its own, no version pin, no path into a client's package.
    assert [text for text in code if text == "npm" or "node_modules" in text] == []
    assert [text for text in code if re.search(r"@\d+\.\d+", text)] == []
    assert "default_e2e()" in source
    assert "ensure_clients(" in source


def test_e2e_uses_the_clients_under_e2e(tmp_path: Path) -> None:
    """With ``$E2E`` empty and no npm, it says it cannot install there (and makes no
    copy of its own elsewhere)."""
    e2e, fakes, tmp, bare = (tmp_path / n for n in ("e2e", "fakes", "tmp", "bin"))
    for directory in (e2e, fakes, tmp, bare):
        directory.mkdir()
    (fakes / "fake_openai.py").write_text("", "utf-8")
    (fakes / "fake_anthropic.py").write_text("", "utf-8")
    done = subprocess.run(
        [sys.executable, str(REPO / "tools" / "e2e.py")],
        env={"E2E": str(e2e), "PI_MEMORY_FAKES": str(fakes), "TMPDIR": str(tmp), "PATH": str(bare)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == (
        "e2e: NOT RUN — npm is not installed, so @anthropic-ai/claude-code@2.1.332 "
        "cannot be installed\n"
    )
    assert list(tmp.iterdir()) == []


def test_the_single_file_build_is_ignored_by_git(tmp_path: Path) -> None:
    git = shutil.which("git")
    assert git is not None
    subprocess.run([git, "init", "-q", str(tmp_path)], check=True)
    shutil.copy(REPO / ".gitignore", tmp_path / ".gitignore")
    (tmp_path / "pi_memory.pyz").write_bytes(b"PK")
    done = subprocess.run([git, "check-ignore", "-q", "pi_memory.pyz"], cwd=tmp_path, check=False)
    assert done.returncode == 0
