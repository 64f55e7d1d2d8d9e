"""Zero runtime dependencies: every import under pi_memory/ is the standard library or pi_memory."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pi_memory"
STDLIB_DIRS = {Path(sysconfig.get_paths()[key]).resolve() for key in ("stdlib", "platstdlib")}


def imported_top_levels() -> set[str]:
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def is_stdlib(name: str) -> bool:
    if name in sys.builtin_module_names:
        return True
    spec = importlib.util.find_spec(name)
    if spec is None:
        return False
    if spec.origin in ("built-in", "frozen"):
        return True
    origin = Path(spec.origin or next(iter(spec.submodule_search_locations or []), "")).resolve()
    return any(
        stdlib in origin.parents and "site-packages" not in origin.parts for stdlib in STDLIB_DIRS
    )


def test_every_import_is_standard_library() -> None:
    names = imported_top_levels() - {"pi_memory", "__future__"}
    assert "json" in names  # the scan really sees the package
    outside = sorted(name for name in names if not is_stdlib(name))
    assert outside == []


def test_no_third_party_module_is_loaded_by_a_command(tmp_path: Path) -> None:
    code = (
        "import sys, runpy\n"
        "before = set(sys.modules)\n"
        "sys.argv = ['pi_memory', 'show', '--json']\n"
        "try:\n"
        "    runpy.run_module('pi_memory', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "import sysconfig\n"
        "purelib = sysconfig.get_paths()['purelib']\n"
        "loaded = [m for m in set(sys.modules) - before\n"
        "          if (getattr(sys.modules[m], '__file__', None) or '').startswith(purelib)]\n"
        "print(sorted(loaded), file=sys.stderr)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(PACKAGE.parent)},
    )
    assert run.stderr.strip().splitlines()[-1] == "[]"
