"""Adapters for the sanitising vectors (see tests/conformance.py)."""

from __future__ import annotations

from typing import Any

from pi_memory.inject.inject_window import build_index_section
from pi_memory.inject.sanitize import sanitize_for_injection, strip_invisible_chars


def run(args: dict[str, Any]) -> Any:
    fn = args["fn"]
    if fn == "stripInvisibleChars":
        return strip_invisible_chars(args["text"])
    if fn == "sanitizeForInjection":
        return sanitize_for_injection(args["text"])
    if fn == "buildIndexSection":
        return build_index_section(args["index_file"], args["maxLines"], args["maxBytes"])
    raise AssertionError(f"no implementation mapped for {fn}")


def check(args: dict[str, Any], expected: Any) -> None:
    """The result, and (for the two sanitisers) that a second pass changes nothing more.

    An ``expected`` object names the properties instead: ``result`` and ``idempotent``.
    """
    got = run(args)
    want = (
        expected.get("result", expected.get("output")) if isinstance(expected, dict) else expected
    )
    if not isinstance(expected, dict) or "result" in expected or "output" in expected:
        assert got == want
    if args["fn"] != "buildIndexSection":
        assert run({**args, "text": got}) == got
