"""A newcomer who answers yes to install's question learns from the first session: the
question on a real pseudo-terminal, then the hooks as processes, the background review
run through the ``claude`` program on PATH (a stand-in speaking ``claude -p``'s JSON),
and the next session's injected index showing what was learned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hookhelp import make_project, payload
from tests.test_install_model import MEMORY_JSON, env_for, hook, on_a_terminal, start

FACT = "The staging database listens on port 5433, not the default 5432."
REPLY = (
    "===MEMORY===\nLAYER: project\nFILE: CONVENTIONS\nKEYWORD: staging-db\nBODY:\n" + FACT + "\n"
)
#: ``claude -p --output-format json`` as the stand-in answers it: the review's memory for
#: the review's prompt (the conversation on stdin), and each command line logged.
CLAUDE = f"""#!{sys.executable}
import json, os, sys
prompt = sys.stdin.read()
with open(os.environ["CLAUDE_STAND_IN_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
text = {REPLY!r} if "<existing-memories>" in prompt and {FACT[:30]!r} in prompt else "NONE"
print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "result": text,
                  "usage": {{"input_tokens": len(prompt) // 4, "output_tokens": 40}}}}))
"""


def _transcript(path: Path) -> None:
    """Two turns of a Claude Code session (a review skips a shorter one as trivial)."""

    def said(role: str, text: str) -> dict[str, object]:
        content = text if role == "user" else [{"type": "text", "text": text}]
        return {"type": role, "message": {"role": role, "content": content}}

    lines = [
        said("user", f"Note for later: {FACT}"),
        said("assistant", "Noted: 5433 for staging."),
        said("user", "Please keep that port in mind for the deploy scripts."),
        said("assistant", "I will use 5433 in the deploy scripts."),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")


def _path_with_claude(tmp_path: Path) -> str:
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "claude").write_text(CLAUDE, "utf-8")
    (folder / "claude").chmod(0o755)
    return os.pathsep.join([str(folder), str(Path(sys.executable).parent), "/usr/bin", "/bin"])


def _stored(root: Path, home: Path, path: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "pi_memory", "search", "--json", "staging", "database"],
        cwd=root, env=env_for(home, path), capture_output=True, text=True, check=False,
    )  # fmt: skip
    found = json.loads(done.stdout)["results"] if done.returncode == 0 else []
    return [r for r in found if "5433" in str(r["body"])]


def test_yes_to_the_question_learns_from_the_first_session(
    tmp_path: Path, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, shown = on_a_terminal(["install", "claude-code"], b"y\n", hermetic_home, tmp_path)
    assert code == 0 and "[y/N]" in shown, shown
    assert json.loads((hermetic_home / MEMORY_JSON).read_text("utf-8"))["defaults"] == {
        "model": "claude-cli/haiku"
    }
    root = make_project(tmp_path)
    _transcript(tmp_path / "transcript.jsonl")
    path = _path_with_claude(tmp_path)
    log = tmp_path / "claude-argv.jsonl"
    monkeypatch.setenv("CLAUDE_STAND_IN_LOG", str(log))  # the hooks' children inherit it
    assert "additionalContext" not in json.dumps(start(root, hermetic_home, path))
    for turn in ("turn-1", "turn-2"):  # the second prompt says the first turn ended
        asked = payload("claude-code", "UserPromptSubmit", root, prompt="hi", prompt_id=turn)
        hook("UserPromptSubmit", asked, root, hermetic_home, path)
    deadline = time.monotonic() + 60
    while not _stored(root, hermetic_home, path) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _stored(root, hermetic_home, path), "the background review learned nothing"
    calls = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert any(argv[-2:] == ["--model", "haiku"] for argv in calls)
    later = payload("claude-code", "SessionStart.startup", root, session_id="second-session")
    started = hook("SessionStart", later, root, hermetic_home, path)
    assert "#staging-db" in json.dumps(started)
