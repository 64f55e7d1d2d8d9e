"""The conformance harness: each vector runs by its behaviour and inputs, never by its id.

A vector (``tests/data/conformance/*.json``, copies of the shared set) names
the reference extension's function in ``input.fn`` (a few describe a
behaviour in ``input.what`` instead). :data:`ADAPTERS` maps each such name to
an adapter over pi_memory's engine, which reads the inputs it is given and
checks ``expected``; a name written with a count or a literal in it (``createSnapshot
x7 with …``) is matched by :data:`PATTERNS`. An unseen case of a known kind
therefore runs as it is, and a case of an unknown kind fails saying so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.conftest import DATA

#: The shipped vectors, and the synthetic ones written here to prove unseen cases run.
VECTOR_DIRS = (DATA / "conformance", DATA / "conformance_synthetic")


@dataclass(frozen=True)
class Ctx:
    """What an adapter may use: a scratch directory and the hermetic home."""

    tmp_path: Path
    home: Path
    capsys: pytest.CaptureFixture[str]


Adapter = Callable[[dict[str, Any], Any, Ctx], None]


class Unmapped(Exception):
    """A case the harness cannot run as it is: no adapter for its behaviour, or an input
    or expectation its adapter does not know. Never a difference of behaviour."""


def kind_of(given: dict[str, Any]) -> str:
    """The behaviour a case exercises: its ``fn``, or ``what: <words>`` for a described one."""
    fn = given.get("fn")
    if isinstance(fn, str):
        return fn
    return f"what: {given.get('what', '')}"


def cases(directory: Path) -> Iterator[dict[str, Any]]:
    for path in sorted(directory.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            yield {**case, "file": path.name}


def all_cases() -> list[dict[str, Any]]:
    return [case for directory in VECTOR_DIRS for case in cases(directory)]


def family(kind: str) -> str:
    """A kind with its count or literal taken out: the pattern that matches it, or itself."""
    from tests import conformance_adapters as a

    if kind in a.ADAPTERS:
        return kind
    return next((pattern for pattern, _ in a.PATTERNS if re.fullmatch(pattern, kind)), kind)


def adapter_for(kind: str) -> Adapter | None:
    from tests import conformance_adapters as a

    found = a.ADAPTERS.get(kind)
    if found is not None:
        return found
    for pattern, adapter in a.PATTERNS:
        if re.fullmatch(pattern, kind):
            return adapter
    return None


def run_case(case: dict[str, Any], ctx: Ctx) -> None:
    kind = kind_of(case["input"])
    adapter = adapter_for(kind)
    if adapter is None:
        raise Unmapped(f"no adapter for {kind!r}")
    adapter(case["input"], case["expected"], ctx)
