"""Suspect memories as people and models meet them: the injected index, the surfaced
block, ranking, ``show``, ``search``, ``verify``, and the check a turn's end starts."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import pytest

from pi_memory.anchors import cache
from pi_memory.entry import PROJECT, Entry
from pi_memory.launcher import this_package
from pi_memory.open_store import open_store
from pi_memory.retrieval import search
from pi_memory.surfacing import corpus, score
from tests.clihelp import run_cli
from tests.conftest import DATA
from tests.hookhelp import Hook, payload
from tests.test_anchors import commit_file, git

NOW = datetime(2026, 12, 2, 9, 30)
LAYER = ".pi/agent/memory-auto"


@pytest.fixture
def hook(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Hook:
    return Hook(capsys, monkeypatch)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, "src/deploy.py", "def deploy_all():\n    return 3\n")
    return root


def cli(root: Path, *args: str) -> str:
    done = run_cli(*args, cwd=root)
    assert done.code == 0, done.err
    return done.out


def written(root: Path, keyword: str, body: str) -> str:
    out = cli(root, "write", "--json", "--keyword", keyword, body)
    memory_id: str = json.loads(out)["id"]
    return memory_id


def checked(root: Path) -> None:
    store = open_store(root, warn=False).store
    cache.refresh(store.directory(PROJECT), root, time.time())


def made_suspect(root: Path) -> tuple[str, str]:
    """A memory anchored to src/deploy.py, then a commit that changes that file."""
    suspect = written(root, "deploy", "src/deploy.py retries the upload three times")
    fresh = written(root, "release", "Releases are tagged by hand on Fridays")
    checked(root)
    commit_file(root, "src/deploy.py", "def deploy_all():\n    return 5\n")
    checked(root)
    return suspect, fresh


def test_verify_lists_the_suspect_and_anchors_a_confirmed_one_again(project: Path) -> None:
    suspect, _ = made_suspect(project)
    out = cli(project, "verify")
    assert out == (
        "1 anchored project memories checked, 1 suspect\n"
        f"  [{suspect}] #deploy: src/deploy.py changed since\n"
    )
    out = cli(project, "verify", suspect)
    assert out == (
        f"[{suspect}] anchored to src/deploy.py\n1 anchored project memories checked, 0 suspect\n"
    )
    assert json.loads(cli(project, "verify", "--json"))["suspect"] == {}


def test_verify_of_an_unknown_id_is_one_line_and_exit_1(project: Path) -> None:
    done = run_cli("verify", "20260101-abcd", cwd=project)
    assert (done.code, done.out) == (1, "")
    assert done.err.count("\n") == 1 and "no project memory has the id 20260101-abcd" in done.err


def test_show_and_search_say_which_memories_are_suspect(project: Path) -> None:
    suspect, fresh = made_suspect(project)
    shown = cli(project, "show")
    assert "suspect: 1 project memory describe code that changed since" in shown
    assert f"  [{suspect}] #deploy: src/deploy.py changed since" in shown
    assert json.loads(cli(project, "show", "--json"))["suspect"] == {
        suspect: "src/deploy.py changed since"
    }
    found = cli(project, "search", "--mode", "recent")
    assert "  suspect: src/deploy.py changed since — check the code before relying on it" in found
    only = json.loads(cli(project, "search", "--suspect", "--json"))
    assert [(r["id"], r["suspect"]) for r in only["results"]] == [
        (suspect, "src/deploy.py changed since")
    ]
    everything = json.loads(cli(project, "search", "--mode", "recent", "--json"))
    assert {r["id"]: r["suspect"] for r in everything["results"]}[fresh] is None


def test_the_check_leaves_the_memory_files_as_they_were(project: Path) -> None:
    written(project, "deploy", "src/deploy.py retries the upload three times")
    before = {p.name: p.read_bytes() for p in (project / LAYER).glob("*.md")}
    commit_file(project, "src/deploy.py", "changed\n")
    checked(project)
    cli(project, "verify")
    assert {p.name: p.read_bytes() for p in (project / LAYER).glob("*.md")} == before


def test_a_suspect_memory_ranks_below_a_fresh_one() -> None:
    older = Entry(
        "20260101-aaaa", "2026-01-01 10:00:00", "p", "user", "deploy", "deploy rsync nightly"
    )
    newer = older._replace(id="20260102-bbbb", time="2026-01-02 10:00:00")
    now = datetime(2026, 2, 1)
    assert [h.entry.id for h in search([older, newer], "deploy rsync", now=now).hits] == [
        newer.id,
        older.id,
    ]
    demoted = search([older, newer], "deploy rsync", now=now, suspect={newer.id: "x changed since"})
    assert [h.entry.id for h in demoted.hits] == [older.id, newer.id]
    assert demoted.suspect == {newer.id: "x changed since"}
    ranked = score(corpus([older, newer], suspect={newer.id: "x changed since"}), "deploy rsync")
    assert [item.id for _, item in ranked] == [older.id, newer.id]
    assert ranked[1][1].name == "deploy (20260102-bbbb) — suspect: x changed since"


# -- what the model reads: golden files ------------------------------------------------------


def pinned(text: str) -> str:
    """``text`` with this interpreter's command line as a person types it."""
    return text.replace(this_package().command(), "pi-memory")


def test_the_injected_index_and_the_surfaced_block_say_it(project: Path, hook: Hook) -> None:
    suspect, _ = made_suspect(project)
    start = payload("claude-code", "SessionStart.startup", project)
    _, out, _ = hook("hook", "SessionStart", stdin=start, cwd=project)
    text = pinned(json.loads(out)["hookSpecificOutput"]["additionalContext"])
    golden = DATA / "anchors" / "injection_suspect.txt"
    assert text.replace(suspect, "ID") == golden.read_text("utf-8")
    prompt = payload(
        "claude-code", "UserPromptSubmit", project, prompt="does the upload retry in deploy?"
    )
    _, out, _ = hook("hook", "UserPromptSubmit", stdin=prompt, cwd=project)
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    surfaced = context[context.index("<relevant_memories>") :]
    golden = DATA / "anchors" / "surfaced_suspect.txt"
    assert surfaced.replace(suspect, "ID") == golden.read_text("utf-8")


def test_a_prompt_starts_the_check_and_the_next_start_reads_it(project: Path, hook: Hook) -> None:
    """Claude Code's turn ends are not hooked: a prompt does their work."""
    suspect = written(project, "deploy", "src/deploy.py retries the upload three times")
    commit_file(project, "src/deploy.py", "def deploy_all():\n    return 5\n")
    directory = open_store(project, warn=False).store.directory(PROJECT)
    assert cache.due(directory, project, time.time())
    (project.parent / "transcript.jsonl").write_text("")
    asked = payload("claude-code", "UserPromptSubmit", project, prompt="what now?")
    assert hook("hook", "UserPromptSubmit", stdin=asked, cwd=project)[0] == 0
    deadline = time.monotonic() + 30
    while cache.due(directory, project, time.time()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cache.read(directory)[suspect].reason == "src/deploy.py changed since"
    start = payload("claude-code", "SessionStart.startup", project)
    _, out, _ = hook("hook", "SessionStart", stdin=start, cwd=project)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert f"- [{suspect}] #deploy: src/deploy.py changed since" in text


def test_the_files_layouts_memory_tool_anchors_and_its_index_says_suspect(
    project: Path,
) -> None:
    from pi_memory.agent_tools.memory import run_memory_tool
    from pi_memory.store import Store
    from tests.conftest import files_store

    def opened() -> Store:
        return files_store(project / "memory", project_root=project)

    args = {"action": "add", "name": "Deploy retries", "content": "src/deploy.py retries thrice."}
    assert run_memory_tool(opened(), "project", args, NOW).ok
    cache.refresh(project / "memory", project, time.time())
    assert opened().suspects() == {}
    commit_file(project, "src/deploy.py", "changed\n")
    cache.refresh(project / "memory", project, time.time())
    store = opened()
    [memory] = store.read(PROJECT)
    assert store.suspects() == {memory.id: "src/deploy.py changed since"}
    index = (project / "memory" / "MEMORY.md").read_text("utf-8")
    assert "suspect" not in index
    assert store.injection().endswith(
        f"- [{memory.id}] Deploy retries: src/deploy.py changed since\n</suspect_memories>\n"
    )


def test_the_extract_agent_and_the_dream_anchor_what_they_write(project: Path) -> None:
    from pi_memory.jobs.staging import Staging
    from pi_memory.model.types import ToolCall
    from tests.conftest import files_store

    store = files_store(project / "memory", project_root=project)
    staging = Staging([], ("add", "replace"), NOW)
    args = {"action": "add", "name": "Deploy retries", "content": "src/deploy.py retries thrice."}
    staging.answer(ToolCall("t1", "memory", args))
    with store.lock(PROJECT, "dream"):
        done, refused = staging.commit(store, PROJECT)
    assert (len(done), refused) == (1, [])
    commit_file(project, "src/deploy.py", "changed\n")
    [memory] = store.layer(PROJECT).read()
    assert cache.refresh(project / "memory", project, time.time())[memory.id].state == "suspect"


#: Runs one hook as a host does, then names every anchors module and ``subprocess`` if loaded.
HOOK = """
import io, sys
sys.stdin = io.StringIO(sys.argv[2])
from pi_memory.cli import main
code = main(["hook", sys.argv[1]])
sys.stdout = sys.__stdout__
print(code, sorted(m for m in sys.modules if m.startswith("pi_memory.anchors")))
"""


def test_the_hooks_read_verdicts_and_load_no_code_that_runs_git(project: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    made_suspect(project)
    (project.parent / "transcript.jsonl").write_text("")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    git_code = {
        "pi_memory.anchors.project",
        "pi_memory.anchors.check",
        "pi_memory.anchors.mentions",
    }
    for event, name in [
        ("SessionStart", "SessionStart.startup"),
        ("UserPromptSubmit", "UserPromptSubmit"),
        ("Stop", "Stop"),
    ]:
        for _ in range(2):  # the full work, then the fast path's note
            data = payload("claude-code", name, project, prompt="does deploy retry the upload?")
            done = subprocess.run(
                [sys.executable, "-c", HOOK, event, data],
                cwd=project, env=env, capture_output=True, text=True, check=True,
            )  # fmt: skip
            code, loaded = done.stdout.splitlines()[-1].split(" ", 1)
            assert code == "0", done.stderr
            assert set(json.loads(loaded.replace("'", '"'))) & git_code == set(), event
