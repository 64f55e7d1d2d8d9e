"""Every vector of ``config.json`` as one test case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_memory.config import defaults, models
from pi_memory.config.load import USER_CONFIG, load_config
from pi_memory.config.messages import config_error_notification, tool_unavailable_message
from pi_memory.config.parse import parse_config
from pi_memory.config.render import pi_memory_dict
from pi_memory.config.schema import Config
from pi_memory.naming.home import expand_tilde
from tests.conftest import DATA

VECTORS: list[dict[str, Any]] = json.loads(
    (DATA / "conformance" / "config.json").read_text(encoding="utf-8")
)


def with_home(value: Any, home: Path) -> Any:
    """The vector's ``<homedir>`` placeholders filled in."""
    return json.loads(json.dumps(value).replace("<homedir>", str(home)))


def nested(dotted: dict[str, Any]) -> dict[str, Any]:
    """``{"defaults.model": x}`` as ``{"defaults": {"model": x}}``."""
    out: dict[str, Any] = {}
    for key, value in dotted.items():
        *parents, last = key.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def lookup(tree: dict[str, Any], dotted: str) -> Any:
    node: Any = tree
    for part in dotted.split("."):
        node = node[part]
    return node


def from_dotted(dotted: dict[str, Any], home: Path) -> Config:
    loaded = parse_config(nested(dotted), cwd=str(home), home=str(home), env={})
    assert loaded.errors == ()
    return loaded.config


def run(vector: dict[str, Any], home: Path, tmp_path: Path) -> None:
    args, expected = vector["input"], with_home(vector["expected"], home)
    fn = args["fn"]
    if fn == "DEFAULT_CONFIG":
        loaded = load_config(tmp_path, {}, home=home)
        assert pi_memory_dict(loaded.config) == expected
        assert {**expected, "memoryDir": "~/.pi/memory"} == defaults.DEFAULT_CONFIG
    elif fn == "loadConfig":
        user_file = home / USER_CONFIG
        user_file.parent.mkdir(parents=True)
        user_file.write_text(json.dumps(args["global"]), encoding="utf-8")
        loaded = load_config(tmp_path, {}, home=home)
        assert loaded.problems == ()
        tree = pi_memory_dict(loaded.config)
        for key, value in expected.items():
            assert lookup(tree, key) == value
    elif fn == "expandTilde":
        assert expand_tilde(args["memoryDir"], str(home), args["platform"]) == expected
    elif fn == "requiredModels":
        got = models.required_models(from_dotted(args["config"], home))
        assert [{"task": r.task, "value": r.value} for r in got] == expected
    elif fn == "modelConfigErrors":
        assert args["resolve"] == "always true"
        config = from_dotted(args["config"], home)
        for strict in (True, False):
            got = models.model_config_errors(config, {}, resolve=lambda _v: True, strict=strict)
            assert got == expected
    elif fn == "session_start":
        # No model anywhere, surfacing on by default: pi-memory's check finds dream and
        # surfacing without a model, and the notification lists both.
        config = load_config(tmp_path, {}, home=home).config
        errors = models.model_config_errors(config, {}, strict=True)
        assert [e.split(" — ")[0] for e in errors] == [e.split(" — ")[0] for e in args["errors"]]
        assert config_error_notification(errors) == expected
    elif fn == "memory tool when misconfigured":
        first = 'no model for dream — set "dream.model" or "defaults.model" in memory.json'
        got = tool_unavailable_message([first, "later"])
        assert got == expected.replace("{first error line}", first)
    else:
        raise AssertionError(f"no implementation mapped for {fn}")


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vector: dict[str, Any], hermetic_home: Path, tmp_path: Path) -> None:
    run(vector, hermetic_home, tmp_path)
