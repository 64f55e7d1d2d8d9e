"""Every conformance vector, run through one dispatcher by its behaviour and inputs.

The shipped vectors (``tests/data/conformance``) are a sample of a larger set
of the same kinds; ``tests/data/conformance_synthetic`` holds unseen cases of
each kind, with other inputs, written here to prove such a case runs as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conformance import (
    VECTOR_DIRS,
    Ctx,
    Unmapped,
    adapter_for,
    all_cases,
    cases,
    family,
    kind_of,
    run_case,
)
from tests.conformance_reads import Reads, unread

CASES = all_cases()
SHIPPED, SYNTHETIC = (list(cases(directory)) for directory in VECTOR_DIRS)


def test_vectors_found() -> None:
    assert len(SHIPPED) >= 180 and len(SYNTHETIC) >= 30


def test_every_shipped_kind_has_an_adapter() -> None:
    assert (
        sorted({kind_of(c["input"]) for c in SHIPPED if adapter_for(kind_of(c["input"])) is None})
        == []
    )


def test_every_kind_with_inputs_has_an_unseen_case() -> None:
    # A described behaviour (``what``) has no inputs to vary; every function has.
    shipped = {family(kind_of(c["input"])) for c in SHIPPED if "fn" in c["input"]}
    synthetic = {family(kind_of(c["input"])) for c in SYNTHETIC}
    assert sorted(shipped - synthetic) == []


def test_an_unknown_kind_fails_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = {"id": "x", "input": {"fn": "noSuchFunction"}, "expected": None}
    with pytest.raises(Unmapped, match="no adapter for 'noSuchFunction'"):
        run_case(case, Ctx(tmp_path, tmp_path, capsys))


@pytest.mark.parametrize("case", CASES, ids=[f"{c['file']}:{c['id']}" for c in CASES])
def test_vector(
    case: dict[str, Any],
    tmp_path: Path,
    hermetic_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reads = Reads()
    tracked = {**case, "input": reads.wrap(case["input"], "")}
    run_case(tracked, Ctx(tmp_path, hermetic_home, capsys))
    # An input no adapter reads is one an unseen case could vary without being run.
    assert unread(case["input"], reads) == []
