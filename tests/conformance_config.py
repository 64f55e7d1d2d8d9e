"""Adapters for the configuration vectors (see tests/conformance.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from pi_memory.config import defaults, models
from pi_memory.config.load import PROJECT_CONFIG, USER_CONFIG, load_config
from pi_memory.config.messages import config_error_notification
from pi_memory.config.parse import parse_config
from pi_memory.config.render import pi_memory_dict
from pi_memory.config.schema import Config
from pi_memory.naming.home import expand_tilde


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


def _lookup_or_none(tree: dict[str, Any], dotted: str) -> Any:
    node: Any = tree
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def load_config_case(args: dict[str, Any], expected: dict[str, Any], home: Path, tmp: Path) -> None:
    """``loadConfig``: the global file, and a project file trusted or not."""
    root = tmp / "proj"
    root.mkdir(exist_ok=True)
    user: dict[str, Any] = dict(args.get("global") or {})
    if "project" in args:
        (root / PROJECT_CONFIG).parent.mkdir(parents=True, exist_ok=True)
        (root / PROJECT_CONFIG).write_text(json.dumps(args["project"]), encoding="utf-8")
        if args.get("trusted", True):
            user["trustedProjects"] = [*user.get("trustedProjects", []), str(root)]
    user_file = home / USER_CONFIG
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text(json.dumps(user), encoding="utf-8")
    loaded = load_config(root, {}, home=home)
    if "project" not in args or args.get("trusted", True):
        assert loaded.problems == ()
    tree = pi_memory_dict(loaded.config)
    for key, value in expected.items():
        if key == "requiredModels":
            got = models.required_models(loaded.config)
            assert [{"task": r.task, "value": r.value} for r in got] == value
        else:
            assert _lookup_or_none(tree, key) == value, key


def config_of(given: dict[str, Any], home: Path) -> Config:
    """A configuration written as dotted keys (``defaults.model``) or as a nested object."""
    raw = given.get("config") or {}
    return from_dotted(raw, home) if any("." in key for key in raw) else from_dotted_tree(raw, home)


def from_dotted_tree(tree: dict[str, Any], home: Path) -> Config:
    loaded = parse_config(tree, cwd=str(home), home=str(home), env={})
    assert loaded.errors == ()
    return loaded.config


def resolver(spec: Any) -> Callable[[str], bool]:
    """A model registry as a vector describes it: always/never, a list of known ids, or
    ids (or every id) whose lookup throws."""
    known: list[str] = []
    throws: list[str] | None = None
    answer = False
    if isinstance(spec, str):
        answer = "true" in spec
        if "throw" in spec:
            throws = []
    elif isinstance(spec, list):
        known = spec
    elif isinstance(spec, dict):
        known = spec.get("resolvable", spec.get("known", []))
        if "throws" in spec:
            throws = list(spec["throws"]) if isinstance(spec["throws"], list) else []

    def resolve(value: str) -> bool:
        if throws is not None and (not throws or value in throws):
            raise RuntimeError(f"registry failed on {value}")
        return answer or value in known

    return resolve


def full_errors(abbreviated: list[str]) -> list[str]:
    """The design's full error lines for abbreviated ones (``no model for dream — …``)."""
    out: list[str] = []
    for error in abbreviated:
        task = error.split(" for ", 1)[1].split()[0]
        if error.startswith("no model"):
            out += models.model_errors([models.ModelRequirement(task, None)], bool)
        else:
            value = error.split('"')[1]
            out += models.model_errors([models.ModelRequirement(task, value)], lambda _v: False)
    return out


def misconfigured_tool(expected: str, home: Path, tmp: Path) -> None:
    """The real ``memory`` tool of a store whose model does not resolve."""
    import os

    from pi_memory.agent_tools.memory import run as memory

    user_file = home / USER_CONFIG
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text('{"layout": "files", "defaults": {"model": "nope/x"}}', encoding="utf-8")
    here = os.getcwd()
    os.chdir(tmp)
    try:
        ok, text = memory({"action": "list"})
    finally:
        os.chdir(here)
    first = 'model "nope/x" for dream is not resolvable (unknown id or missing credentials)'
    assert ok is False
    assert text == expected.replace("{first error line}", first).replace(
        "/memory", "python -m pi_memory show"
    )


def run(vector: dict[str, Any], home: Path, tmp_path: Path) -> None:
    args, expected = vector["input"], with_home(vector["expected"], home)
    fn = args["fn"]
    if fn == "DEFAULT_CONFIG":
        loaded = load_config(tmp_path, {}, home=home)
        assert pi_memory_dict(loaded.config) == expected
        assert {**expected, "memoryDir": "~/.pi/memory"} == defaults.DEFAULT_CONFIG
    elif fn == "loadConfig":
        load_config_case(args, expected, home, tmp_path)
    elif fn == "expandTilde":
        home_dir = args.get("homedir", str(home))
        want = expected.replace(str(home), home_dir) if "homedir" in args else expected
        assert expand_tilde(args["memoryDir"], home_dir, args.get("platform") or "linux") == want
    elif fn == "requiredModels":
        got = models.required_models(config_of(args, home))
        assert [{"task": r.task, "value": r.value} for r in got] == expected
    elif fn == "modelConfigErrors":
        got = models.model_config_errors(
            config_of(args, home), {}, resolve=resolver(args.get("resolve")), strict=True
        )
        assert got == expected
    elif fn == "session_start":
        errors = full_errors(args.get("errors") or [])
        if args.get("hasUI") is False or not errors:
            assert expected in (None, "")
        else:
            assert config_error_notification(errors) == expected
    else:
        assert fn == "memory tool when misconfigured"
        misconfigured_tool(expected, home, tmp_path)
