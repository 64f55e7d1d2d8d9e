"""A hook and the MCP server end without the interpreter's finalisation, their output whole.

Each runs as a host starts it (``python -S /path/to/pi_memory ...``), under an
``atexit`` handler that leaves a mark: finalisation would run it. A command a
person types still ends the usual way.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.clihelp import run_cli
from tests.conftest import REPO
from tests.hookhelp import make_project, payload
from tests.mcpclient import default_signals

#: Runs the package as ``python -S /path/to/pi_memory ARGS`` does, after registering an
#: ``atexit`` handler that writes argv[1]: only an interpreter that finalises runs it.
_MARKED = (
    "import atexit, runpy, sys\n"
    "mark = sys.argv[1]\n"
    "atexit.register(lambda: open(mark, 'w').close())\n"
    "sys.argv = [sys.argv[2], *sys.argv[3:]]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def _marked(mark: Path, *args: str) -> list[str]:
    return [sys.executable, "-S", "-c", _MARKED, str(mark), str(REPO / "pi_memory"), *args]


def test_a_hook_leaves_without_finalising_and_its_whole_answer_arrives(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert run_cli("write", "--keyword", "deploy", "Deploy with rsync.", cwd=root).code == 0
    mark = tmp_path / "finalised"
    done = subprocess.run(
        _marked(mark, "hook", "--host", "claude-code", "UserPromptSubmit"),
        input=payload("claude-code", "UserPromptSubmit", root, prompt="how do we deploy?"),
        cwd=root, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    answer = json.loads(done.stdout)
    assert "#deploy" in answer["hookSpecificOutput"]["additionalContext"]
    assert not mark.exists()


def test_the_mcp_server_leaves_without_finalising_on_sigint_and_at_the_end_of_input(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path)
    hello = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}},
    }  # fmt: skip
    for how in ("SIGINT", "end of input"):
        mark = tmp_path / f"finalised-{how}"
        proc = subprocess.Popen(
            _marked(mark, "mcp"), cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, preexec_fn=default_signals if os.name == "posix" else None,  # noqa: PLW1509
        )  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(hello).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        if how == "SIGINT":
            proc.send_signal(signal.SIGINT)
        else:
            proc.stdin.close()
        assert proc.wait(timeout=600) == (130 if how == "SIGINT" else 0)
        assert proc.stderr is not None and proc.stderr.read() == b""
        assert not mark.exists(), how
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()


def test_a_command_a_person_types_still_finalises(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    mark = tmp_path / "finalised"
    done = subprocess.run(
        _marked(mark, "write", "--keyword", "deploy", "Deploy with rsync."),
        cwd=root, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert mark.exists()
