"""Adapters for the ``/memory`` status vectors (see tests/conformance.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pi_memory.config.parse import parse_config
from pi_memory.config.schema import Config
from pi_memory.layouts.files.status import status_lines

INDEX = "# Memory Index\n\n- [A](a.md) — d\n- [B](b.md) — e\n"
DREAM_META = '{"lastDreamAt": "2026-10-01T22:10:04.882Z", "sessionCountAtDream": 3}'


def config(raw: dict[str, Any] | None = None) -> Config:
    loaded = parse_config(raw or {}, cwd="/", home="/home/you", env={})
    assert loaded.errors == ()
    return loaded.config


def healthy(cfg: Config, index: str | bytes | None, **over: Any) -> list[str]:
    facts: dict[str, Any] = {
        "directory": "/home/you/.pi/memory/git/github.com__owner__repo",
        "index": index,
        "entry_count": 2,
        "dream_meta": DREAM_META,
        "lock": "free",
    }
    facts.update(over)
    return status_lines(cfg, **facts)


def template_pattern(line: str) -> re.Pattern[str]:
    """A template line with ``{…}`` slots (possibly nested) as a regular expression."""
    out, depth = "", 0
    for char in line:
        if char == "{":
            if depth == 0:
                out += ".+?"
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 0:
            out += re.escape(char)
    return re.compile(out + r"\Z")


def check_healthy_template(expected: list[str]) -> None:
    models = {
        "defaults": {"model": "provider/model-a"},
        "autoSurfacing": {"model": "provider/model-b"},
    }
    for lock in (
        "free",
        "unreadable — run /memory unlock",
        "held by add (pid 42 on box, started 2026-10-01T22:10:04.882Z)",
    ):
        for meta in (DREAM_META, None):
            lines = healthy(config(models), INDEX, lock=lock, dream_meta=meta)
            assert len(lines) == len(expected) == 7
            for line, template in zip(lines, expected):
                assert template_pattern(template).match(line), (line, template)
    lines = healthy(config(models), INDEX)
    assert lines[4] == (
        "Modules: dream=on(provider/model-a) extractMemories=off autoSurfacing=on(provider/model-b)"
    )
    assert lines[5] == "Last dream: 2026-10-01T22:10:04.882Z"
    assert healthy(config(models), INDEX, dream_meta=None)[5] == "Last dream: never"


def memory_status(args: dict[str, Any], expected: Any, tmp_path: Path) -> None:
    """``/memory``: a state's template, or the exact block for the errors given."""
    if "errors" in args:
        lines = status_lines(
            config(),
            directory="/x",
            index=INDEX,
            entry_count=2,
            dream_meta=None,
            lock="free",
            errors=args["errors"],
        )
        assert "\n".join(lines) == expected
    elif args.get("state") == "healthy":
        check_healthy_template(expected)
    else:  # the misconfigured template: n + 2 lines
        errors = ["first problem", "second problem", "third problem"]
        lines = status_lines(
            config(),
            directory="/x",
            index=None,
            entry_count=0,
            dream_meta=None,
            lock="free",
            errors=errors,
        )
        fixed = [line for line in expected if "{" not in line]
        assert lines[: len(fixed)] == fixed
        assert lines[len(fixed) :] == [f"- {e}" for e in errors]


def index_lines_only(args: dict[str, Any], expected: Any, tmp_path: Path) -> None:
    """The ``Index:`` and ``Inject:`` lines computed from an index file, as text and as bytes."""
    wanted = {line.split(":")[0] for line in expected}
    lines = [line for line in healthy(config(), args["index_file"]) if line.split(":")[0] in wanted]
    assert lines == expected
    (tmp_path / "MEMORY.md").write_bytes(args["index_file"].encode("utf-8"))
    raw = (tmp_path / "MEMORY.md").read_bytes()
    assert [line for line in healthy(config(), raw) if line.split(":")[0] in wanted] == expected
