"""``dream`` and the extract agent end to end: tool calls from the loopback provider, staged,
then committed once; a fault anywhere leaves the layer byte-identical."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.clihelp import REPO
from tests.fake_provider import Fail, FakeProvider, Say
from tests.jobhelp import (
    GOLDEN,
    category_row,
    check_golden,
    check_golden_json,
    cli,
    configure,
    files_entry,
    files_project,
    picture,
)

MEMORIES = (
    (
        "20261003-cccc",
        "Deploy A",
        "Deploy goes through rsync to staging.",
        "2026-10-03T10:00:00.000Z",
    ),
    (
        "20261004-dddd",
        "Deploy B",
        "Deploy uses rsync to reach staging.",
        "2026-10-04T10:00:00.000Z",
    ),
    ("20261005-eeee", "misc", "Tests run with pytest -q.", "2026-10-05T10:00:00.000Z"),
)
DREAM_STEPS = [
    Say(tool_calls=[("memory", {"action": "list"})]),
    Say(tool_calls=[("memory", {"action": "search", "query": "rsync"})]),
    Say(
        tool_calls=[
            (
                "memory",
                {
                    "action": "replace",
                    "name": "Deploy B",
                    "content": "Deploy goes through rsync to staging.",
                },
            ),
            ("memory", {"action": "remove", "name": "Deploy A"}),
            ("memory", {"action": "rename", "name": "misc", "new_name": "Test command"}),
            ("memory", {"action": "remove", "name": "Nope"}),
            ("memory", {"action": "delete_everything"}),
        ]
    ),
    Say(tool_calls=[("memory", {"action": "rebuild_index"})]),
    Say("Merged the two deploy memories and renamed misc."),
]


@pytest.fixture
def files_store(
    tmp_path: Path,
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_provider: FakeProvider,
) -> Path:
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    directory = files_project(tmp_path, hermetic_home, fake_provider, "openai")
    index = ["# Memory Index", ""]
    for id_, name, body, modified in MEMORIES:
        file = f"{name.replace(' ', '-')}.md"
        (directory / file).write_text(
            files_entry(id_, name, description=body, kind="project", modified=modified, body=body)
        )
        index.append(f"- [{name}]({file}) — {body}")
    (directory / "MEMORY.md").write_text("\n".join(index) + "\n")
    return directory


def _files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*.md"))


def test_a_dream_stages_every_action_and_commits_once(
    files_store: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.script(*DREAM_STEPS)
    code, out, err = cli("dream", "--yes", "--json")
    assert (code, err) == (0, "")
    check_golden_json("dream_files.result.json", json.loads(out))
    bodies = [p.json for p in fake_provider.posts()]
    check_golden("dream_files.request1.json", fake_provider.posts()[0].body)
    tools = bodies[0]["tools"][0]["function"]["parameters"]["properties"]["action"]["enum"]
    assert tools == ["add", "replace", "remove", "list", "search", "rename", "rebuild_index"]
    last = bodies[-1]["messages"]
    assert [m["role"] for m in last].count("tool") == 8
    # pi-memory's rename: the file name and the index line follow the new name.
    assert _files(files_store) == ["Deploy-B.md", "MEMORY.md", "Test-command.md"]
    assert "name: Test command" in (files_store / "Test-command.md").read_text()
    index = (files_store / "MEMORY.md").read_text()
    assert "[Test command](Test-command.md)" in index and "Deploy-A.md" not in index
    assert "misc.md" not in index
    (point,) = (files_store / ".backups").iterdir()
    assert point.name.endswith("-dream")
    assert sorted(p.name for p in point.iterdir()) == [
        "Deploy-A.md",
        "Deploy-B.md",
        "MEMORY.md",
        "misc.md",
    ]
    meta = json.loads((files_store / ".dream-meta.json").read_text())
    assert meta["sessionsSinceDream"] == 0 and meta["lastDreamAt"].endswith("Z")
    assert not (files_store / ".dream.lock").exists()


@pytest.mark.parametrize("fault_at", [0, 2, 4])
def test_a_fault_at_any_round_leaves_the_layer_byte_identical(
    fault_at: int, files_store: Path, fake_provider: FakeProvider
) -> None:
    before = picture(files_store)
    fake_provider.script(*DREAM_STEPS[:fault_at], *[Fail(500)] * 4)
    code, out, err = cli("dream", "--yes")
    assert (code, out) == (1, "")
    assert err.startswith("dream: the model never answered")
    assert picture(files_store) == before


def test_dry_run_lists_the_plan_and_writes_nothing(
    files_store: Path, fake_provider: FakeProvider
) -> None:
    before = picture(files_store)
    fake_provider.script(*DREAM_STEPS)
    code, out, _ = cli("dream", "--dry-run")
    assert code == 0
    assert out.splitlines()[:5] == [
        "dream: would make 4 changes · Merged the two deploy memories and renamed misc.",
        '  + replace "Deploy B"',
        '  + remove "Deploy A"',
        '  + rename "misc" → "Test command"',
        "  + rebuild_index",
    ]
    assert picture(files_store) == before


def test_extract_is_skipped_not_queued_while_a_dream_holds_the_layer(
    files_store: Path, fake_provider: FakeProvider
) -> None:
    from pi_memory.jobs import dream_lock

    assert dream_lock.take(files_store)
    try:
        code, out, _ = cli("extract", "--transcript", str(GOLDEN / "session.jsonl"))
        assert (code, out) == (0, "extract: skipped — a dream holds this layer\n")
        assert cli("dream", "--yes")[1] == "dream: skipped — another dream is tidying this layer\n"
    finally:
        dream_lock.release(files_store)
    assert fake_provider.posts() == []


def test_the_extract_agent_writes_what_it_staged(
    files_store: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.script(
        Say(tool_calls=[("memory", {"action": "list"})]),
        Say(
            tool_calls=[
                (
                    "memory",
                    {
                        "action": "add",
                        "name": "Dev server port",
                        "description": "the dev server listens on 8080, not 3000",
                        "content": "The dev server listens on port 8080.",
                        "type": "project",
                    },
                ),
                ("memory", {"action": "rename", "name": "misc", "new_name": "x"}),
            ]
        ),
        Say("Stored the new port."),
    )
    code, out, err = cli("extract", "--transcript", str(GOLDEN / "session.jsonl"), "--json")
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["changes"] == [{"line": 'add "Dev server port"'}]
    assert result["rejected"] == ["Unknown action: rename (use add, replace, remove, list, search)"]
    check_golden("extract_agent.request1.json", fake_provider.posts()[0].body)
    tools = fake_provider.posts()[0].json["tools"][0]["function"]["parameters"]["properties"]
    assert tools["action"]["enum"] == ["add", "replace", "remove", "list", "search"]
    assert "new_name" not in tools
    assert "Dev-server-port.md" in _files(files_store)


def test_the_extract_agents_job_receipt_names_the_memory_it_wrote(
    files_store: Path, fake_provider: FakeProvider
) -> None:
    """The agent's changes are lines, not memories: the receipt of a review run by the real
    worker still lists the id of the memory it added (what the notice counts as learned)."""
    import time

    from pi_memory import receipts
    from pi_memory.jobs import records, worker
    from pi_memory.open_store import open_store

    add = {"action": "add", "name": "Dev server port", "description": "port 8080",
           "content": "The dev server listens on port 8080.", "type": "project"}  # fmt: skip
    fake_provider.script(Say(tool_calls=[("memory", add)]), Say("Stored the new port."))
    review = records.JobRecord(
        kind=records.REVIEW,
        session="s-files",
        cwd=str(Path.cwd()),
        transcript=str(GOLDEN / "session.jsonl"),
        host="claude-code",
        end=(GOLDEN / "session.jsonl").stat().st_size,
        created=time.time(),
    )
    records.write_record(review)
    assert worker.run_worker([records.key_of(review)]) == 0
    (job,) = receipts.read(receipts.Filter(kind=receipts.JOB))
    added = [e.id for e in open_store().store.read_all() if e.body.endswith("port 8080.")]
    assert (job.event, job.outcome, job.ids, job.layers) == (
        "review",
        "ok",
        tuple(added),
        ("project",),
    )
    assert job.learned == 1 and job.spent > 0


def test_the_extract_agent_stops_after_five_rounds(
    files_store: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.script(*[Say(tool_calls=[("memory", {"action": "list"})])] * 6)
    code, out, _ = cli("extract", "--transcript", str(GOLDEN / "session.jsonl"), "--json")
    assert code == 0
    assert json.loads(out)["counts"] == {"rounds": 5}
    assert "tools" not in fake_provider.posts()[-1].json
    assert len(fake_provider.posts()) == 6


def test_a_dream_over_the_categories_layout_uses_pi_memory_autos_operations(
    tmp_path: Path,
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_provider: FakeProvider,
) -> None:
    root = tmp_path / "proj"
    store = root / ".pi" / "agent" / "memory-auto"
    store.mkdir(parents=True)
    (store / "DECISIONS.md").write_text(
        category_row(
            "20261001-aaaa", "2026-10-01 10:00:00", "dev-server", "The dev server uses 3000."
        )
        + category_row(
            "20261002-bbbb", "2026-10-02 10:00:00", "devserver-port", "The dev server uses 8080."
        )
    )
    monkeypatch.chdir(root)
    configure(fake_provider, hermetic_home, "anthropic")
    before = (store / "DECISIONS.md").read_bytes()
    fake_provider.script(
        Say(tool_calls=[("list", {})]),
        Say(
            tool_calls=[
                ("merge", {"keep": "20261002-bbbb", "drop": ["20261001-aaaa"]}),
                ("rename", {"from": "devserver-port", "to": "dev-server"}),
                (
                    "write",
                    {
                        "body": "Run the tests with pytest -q.",
                        "keyword": "tests",
                        "file": "CONVENTIONS.md",
                    },
                ),
                ("merge", {"keep": "20991231-zzzz", "drop": []}),
            ]
        ),
        Say("Done."),
    )
    code, out, err = cli("dream", "project", "--yes", "--json")
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert [c["line"].split(":")[0] for c in result["changes"]] == [
        "merge 20261001-aaaa into 20261002-bbbb",
        "rename #devserver-port → #dev-server",
        result["changes"][2]["line"].split(":")[0],
    ]
    assert result["rejected"] == ["merge: KEEP 20991231-zzzz is not a memory of this layer"]
    check_golden("dream_categories.request1.json", fake_provider.posts()[0].body)
    assert (store / "DECISIONS.md.bak").read_bytes() == before
    text = (store / "DECISIONS.md").read_text()
    assert "20261001-aaaa" not in text and "tags: dev-server" in text
    assert "pytest -q" in (store / "CONVENTIONS.md").read_text()


def test_nudge_after_sessions_or_hours(tmp_path: Path) -> None:
    from pi_memory.jobs.dream import count_session, nudge, read_meta, write_meta

    now = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    for _ in range(4):
        meta = count_session(tmp_path, now)
    assert nudge(meta, now, after_sessions=5, after_hours=24) == ""
    meta = count_session(tmp_path, now)
    assert nudge(meta, now, after_sessions=5, after_hours=24) == (
        "5 sessions without a dream: run python -m pi_memory dream to tidy the memory"
    )
    write_meta(tmp_path, meta._replace(sessions=0, last_dream="2026-11-30T10:00:00.000Z"))
    later = count_session(tmp_path, now)  # a dream happened: counting starts again
    assert later.sessions == 1
    assert nudge(later, now, after_sessions=5, after_hours=24) == (
        "26 hours since the last dream: run python -m pi_memory dream to tidy the memory"
    )
    assert nudge(later, now - timedelta(hours=3), after_sessions=5, after_hours=24) == ""
    assert read_meta(tmp_path) == later._replace(sessions=0)  # counted outside the layer


def test_a_marker_left_by_a_dead_dream_is_named_never_taken_over(
    files_store: Path, fake_provider: FakeProvider
) -> None:
    from pi_memory.fs.lock import format_record, this_host

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    marker = files_store / ".dream.lock"
    marker.write_bytes(
        format_record(int(dead.stdout), this_host(), "2026-12-01T00:00:00.000Z", "dream")
    )
    code, out, err = cli("dream", "--yes")
    assert (code, out) == (1, "")
    assert err == (
        f"pi_memory: a dream that is gone (dream (pid {int(dead.stdout)} on {this_host()}, started "
        f"2026-12-01T00:00:00.000Z)) left {marker}: delete that file to dream again\n"
    )
    assert marker.exists()
    assert fake_provider.posts() == []


def test_session_start_counts_new_sessions_and_says_when_to_dream(
    tmp_path: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.hookhelp import Hook, make_project, payload
    from tests.jobhelp import configure

    root = make_project(tmp_path)
    configure(
        fake_provider,
        hermetic_home,
        "openai",
        layout="files",
        memoryDir=str(tmp_path / "mem"),
        dream={"nudgeAfterSessions": 2},
    )
    hook = Hook(capsys, monkeypatch)
    code, _, err = hook(
        "tool", "memory", stdin='{"action": "add", "name": "Port", "content": "8080."}', cwd=root
    )
    assert (code, err) == (0, "")
    start = payload("claude-code", "SessionStart.startup", root)
    resume = payload("claude-code", "SessionStart.resume", root)
    answers = [
        json.loads(hook("hook", "session-start", stdin=event, cwd=root)[1] or "{}")
        for event in (start, resume, start)
    ]
    assert "systemMessage" not in answers[0]
    assert "systemMessage" not in answers[1]  # a resumed session is not a new one
    assert answers[2]["systemMessage"] == (
        "2 sessions without a dream: run python -m pi_memory dream to tidy the memory"
    )
    assert fake_provider.posts() == []


def test_without_a_terminal_a_dream_needs_yes_and_never_waits(
    files_store: Path, fake_provider: FakeProvider
) -> None:
    before = picture(files_store)
    fake_provider.script(*DREAM_STEPS)
    code, out, err = cli("dream")
    assert (code, out) == (1, "")
    assert err == ("dream: nothing changed: no terminal to ask for confirmation on — pass --yes\n")
    assert fake_provider.posts() == []
    assert picture(files_store) == before


def _dream_on_a_terminal(reply: bytes) -> tuple[int, str, str]:
    """``python -m pi_memory dream`` with a pseudo-terminal as stdin, answering ``reply``."""
    leader, follower = pty.openpty()
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "pi_memory", "dream"],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        os.write(leader, reply)
        out, err = child.communicate(timeout=60)
    finally:
        os.close(leader)
        os.close(follower)
    return child.returncode, out.decode(), err.decode()


def test_on_a_terminal_a_dream_asks_first(files_store: Path, fake_provider: FakeProvider) -> None:
    before = picture(files_store)
    fake_provider.script(*DREAM_STEPS)
    code, out, err = _dream_on_a_terminal(b"n\n")
    assert err.startswith("Dream: let the model tidy the project memory at ")
    assert err.endswith("[y/N] ")
    assert (code, out) == (1, "Dream cancelled: nothing changed.\n")
    assert fake_provider.posts() == [] and picture(files_store) == before
    code, out, err = _dream_on_a_terminal(b"y\n")
    assert code == 0, err
    assert out.startswith("dream: made 4 changes")
    assert "Test-command.md" in _files(files_store)


def test_a_tool_answer_to_a_headless_agent_is_capped(
    tmp_path: Path,
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_provider: FakeProvider,
) -> None:
    from pi_memory.config.defaults import TOOL_RESULT_MAX_BYTES

    root = tmp_path / "proj"
    store = root / ".pi" / "agent" / "memory-auto"
    store.mkdir(parents=True)
    flood = "\n".join(f"line {n} of a pasted log: flood flood flood" for n in range(20_000))
    (store / "DECISIONS.md").write_text(
        category_row("20261001-aaaa", "2026-10-01 10:00:00", "dev-server", "The port is 3000.")
        + category_row("20261002-bbbb", "2026-10-02 10:00:00", "pasted-log", flood)
    )
    monkeypatch.chdir(root)
    configure(fake_provider, hermetic_home, "anthropic")
    fake_provider.script(Say(tool_calls=[("list", {})]), Say("Nothing to change."))
    code, _, err = cli("dream", "project", "--yes", "--json")
    assert (code, err) == (0, "")
    answers = [
        block["content"]
        for message in fake_provider.posts()[1].json["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert len(answers) == 1 and "The port is 3000." in answers[0]
    assert len(answers[0].encode()) <= TOOL_RESULT_MAX_BYTES + 200
    assert "more bytes not shown" in answers[0]
