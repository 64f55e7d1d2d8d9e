"""``python -m pi_memory tool``: the agent tools from a command line, as pi runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_memory.json_input import MAX_DEPTH, TooDeep, loads, nesting_depth
from tests.conftest import REPO


def run_tool(name: str, cwd: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    """A real ``tool`` process: a stack exhausted by the input kills the interpreter here."""
    return subprocess.run(
        [sys.executable, "-m", "pi_memory", "tool", name],
        cwd=cwd,
        check=False,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )


@pytest.mark.parametrize(
    "deep",
    ["[" * 1000 + "]" * 1000, '{"query": ' + "[" * 100_000 + "]" * 100_000 + "}"],
    ids=["1,000 deep", "100,000 deep in an argument"],  # the ids reach the environment
)
def test_deeply_nested_arguments_get_a_json_answer(tmp_path: Path, deep: str) -> None:
    run = run_tool("memory_search", tmp_path, deep)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["ok"] is False
    assert answer["text"].startswith("arguments are not JSON: nested too deeply")
    assert "Traceback" not in run.stderr


def test_a_client_message_reads_as_json_loads_reads_it_errors_included() -> None:
    texts = ['{"a": [1, 2.5e3, -0.0, NaN, -Infinity], "b": "\\u00e9\\ud83d\\ude00"}', " [] \n"]
    for text in texts:
        assert repr(loads(text)) == repr(json.loads(text))
    for bad in ("", " ", '{"a": 1} x', '{"a": }', "\ufeff{}", '{"a": "\x01"}', "[1,]", "{'a': 1}"):
        with pytest.raises(json.JSONDecodeError) as ours:
            loads(bad)
        with pytest.raises(json.JSONDecodeError) as theirs:
            json.loads(bad)
        assert str(ours.value) == str(theirs.value)


def test_nesting_is_measured_outside_strings() -> None:
    assert nesting_depth('{"a": [1, {"b": "[[[[{{{{"}]}') == 3
    assert loads('{"a": "' + "[" * 1000 + '"}') == {"a": "[" * 1000}
    at_limit = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert nesting_depth(at_limit) == MAX_DEPTH and loads(at_limit) is not None
    with pytest.raises(TooDeep):
        loads("[" + at_limit + "]")
