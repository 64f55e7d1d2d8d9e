"""No function of the package is longer than 80 lines: a longer one holds more than one step.

Lines are counted from ``def`` to the last line of the body, docstring and
comments included, with ``ast`` from the source, methods and nested functions too.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pi_memory"
MAX_LINES = 80


def long_functions(path: Path) -> list[str]:
    """``name:line (length)`` of every function in ``path`` longer than :data:`MAX_LINES`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_LINES:
                found.append(f"{node.name}:{node.lineno} ({length} lines)")
    return found


def test_no_function_is_longer_than_80_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE.parent)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        for found in [long_functions(path)]
        if found
    }
    assert long == {}


def test_the_check_sees_a_long_method_and_spares_a_short_one(tmp_path: Path) -> None:
    body = "".join(f"        x{n} = {n}\n" for n in range(MAX_LINES))  # 81 with its ``def``
    short = "    def short(self) -> None:\n        pass\n"
    source = f"class C:\n    def long(self) -> None:\n{body}\n{short}"
    path = tmp_path / "m.py"
    path.write_text(source, "utf-8")
    assert long_functions(path) == ["long:2 (81 lines)"]
    path.write_text(source.replace("        x0 = 0\n", ""), "utf-8")
    assert long_functions(path) == []
