"""Every vector of ``sanitize.json`` as one test case."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_memory.inject.inject_window import build_index_section
from pi_memory.inject.sanitize import sanitize_for_injection, strip_invisible_chars
from tests.conftest import DATA

VECTORS: list[dict[str, Any]] = json.loads(
    (DATA / "conformance" / "sanitize.json").read_text(encoding="utf-8")
)


def run(args: dict[str, Any]) -> Any:
    fn = args["fn"]
    if fn == "stripInvisibleChars":
        return strip_invisible_chars(args["text"])
    if fn == "sanitizeForInjection":
        return sanitize_for_injection(args["text"])
    if fn == "buildIndexSection":
        return build_index_section(args["index_file"], args["maxLines"], args["maxBytes"])
    raise AssertionError(f"no implementation mapped for {fn}")


def test_vectors_found() -> None:
    assert len(VECTORS) >= 10


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vector: dict[str, Any]) -> None:
    assert run(vector["input"]) == vector["expected"]
