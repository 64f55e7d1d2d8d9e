"""Every adapter and job opens a store through one door, :func:`pi_memory.open_store.open_store`.

It returns the configuration, the store and the settings it could not use as
given; nothing else builds a store's settings from a configuration.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pi_memory.open_store import open_store

PACKAGE = Path(__file__).resolve().parent.parent / "pi_memory"


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _reopens(node: ast.Call) -> bool:
    """``Store(store.settings)``: the same settings read afresh, not a second door."""
    return len(node.args) == 1 and getattr(node.args[0], "attr", "") == "settings"


def test_only_open_store_builds_a_store_from_a_configuration() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "open_store.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and (
                _called(node) == "settings_from"
                or (_called(node) == "Store" and not _reopens(node))
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def test_the_door_says_what_it_could_not_use(
    tmp_path: Path, hermetic_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('{"lock": {"timeoutMs": "soon"}}', "utf-8")
    quiet = open_store(tmp_path, warn=False)
    assert quiet.warnings and quiet.store.settings.dirs
    assert quiet.config is quiet.loaded.config
    assert capsys.readouterr().err == ""
    said = open_store(tmp_path)
    assert said.warnings == quiet.warnings
    assert said.warnings[0] in capsys.readouterr().err
