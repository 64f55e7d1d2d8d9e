"""``extract`` end to end: a transcript in, the loopback provider asked, the store written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fake_provider import Drop, Fail, FakeProvider, Hang, Raw, Say
from tests.jobhelp import (
    GOLDEN,
    category_row,
    check_golden,
    check_golden_json,
    cli,
    configure,
    picture,
    without_new_ids,
)

SESSION = GOLDEN / "session.jsonl"
OLD_IDS = ("20261001-aaaa", "20261002-bbbb")
REVIEW_REPLY = (
    "===MEMORY===\nLAYER: project\nFILE: DECISIONS.md\nKEYWORD: dev-server\n"
    "SUPERSEDES: 20261001-aaaa\nBODY:\nThe dev server listens on port 8080.\n"
    "===MEMORY===\nLAYER: user\nFILE: DECISIONS.md\nKEYWORD: x\nBODY:\nCrossed layers.\n"
    "===MEMORY===\nLAYER: project\nFILE: CONVENTIONS.md\nKEYWORD: tests\n"
    "BODY:\nRun the tests with pytest -q before every commit.\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    store = root / ".pi" / "agent" / "memory-auto"
    store.mkdir(parents=True)
    (store / "DECISIONS.md").write_text(
        category_row(
            OLD_IDS[0], "2026-10-01 10:00:00", "dev-server", "The dev server listens on port 3000."
        )
    )
    (store / "CONVENTIONS.md").write_text(
        category_row(OLD_IDS[1], "2026-10-02 10:00:00", "lint", "Lint with ruff before pushing.")
    )
    monkeypatch.chdir(root)
    return root


def _store(project: Path, home: Path) -> dict[str, bytes]:
    return picture(project / ".pi", home / ".pi" / "agent" / "memory-auto")


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_review_stores_what_validates_and_supersedes(
    api: str, project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    configure(fake_provider, hermetic_home, api)
    fake_provider.script(Say(REVIEW_REPLY))
    code, out, err = cli("extract", "--transcript", str(SESSION), "--json")
    assert (code, err) == (0, "")
    (request,) = fake_provider.posts()
    check_golden(f"extract_review_{api}.request.json", request.body)
    assert b"ghp_" not in request.body  # the token in the tool output was redacted
    check_golden_json("extract_review.result.json", without_new_ids(json.loads(out), OLD_IDS))
    decisions = (project / ".pi/agent/memory-auto/DECISIONS.md").read_text()
    assert "superseded-by: " in decisions and "listens on port 8080" in decisions
    code, out, _ = cli("search", "--mode", "tag", "tests")
    assert "pytest -q before every commit" in out


def test_the_same_turn_is_not_reviewed_twice_and_a_new_turn_starts_at_the_cursor(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    fake_provider.script(Say("NONE"))
    assert cli("extract", "--transcript", str(SESSION))[1] == "extract: nothing worth storing\n"
    code, out, _ = cli("extract", "--transcript", str(SESSION))
    assert (code, out) == (0, "extract: skipped — turn 2 was already reviewed\n")
    longer = tmp_path / "session.jsonl"
    extra = {
        "parentUuid": "u-06",
        "type": "user",
        "uuid": "u-07",
        "sessionId": "s",
        "message": {"role": "user", "content": "And deploy with make deploy."},
    }
    longer.write_text(SESSION.read_text() + json.dumps(extra) + "\n")
    fake_provider.script(Say("NONE"))
    assert cli("extract", "--transcript", str(longer))[0] == 0
    prompt = fake_provider.posts()[-1].json["messages"][-1]["content"]
    assert "[User]: And deploy with make deploy." in prompt
    assert "listens on port 8080 now" not in prompt  # covered by the first review
    assert len(fake_provider.posts()) == 2


def test_a_trivial_session_never_reaches_the_model(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    short = tmp_path / "short.jsonl"
    short.write_text("".join(SESSION.read_text().splitlines(keepends=True)[:2]))
    code, out, _ = cli("extract", "--transcript", str(short))
    assert (code, out) == (0, "extract: skipped — trivial session (2 messages, fewer than 4)\n")
    assert fake_provider.posts() == []


FAULTS = [
    pytest.param([Fail(500)] * 4, id="500s"),
    pytest.param([Fail(429, retry_after="0")] * 4, id="429-storm"),
    pytest.param([Raw(b"{not json")], id="malformed"),
    pytest.param([Say("===MEMORY===\nKEYWORD: k\nBODY:\nCut", stop="length")], id="length"),
    pytest.param([Say("")], id="empty"),
    pytest.param([Say(refusal="I can't help with that.")], id="refusal"),
    pytest.param([Drop()] * 4, id="dropped"),
]


@pytest.mark.parametrize("steps", FAULTS)
def test_a_model_fault_leaves_the_store_byte_identical(
    steps: list[object], project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    before = _store(project, hermetic_home)
    fake_provider.script(*steps)  # type: ignore[arg-type]
    code, out, err = cli("extract", "--transcript", str(SESSION))
    assert code == 1
    assert out == ""
    assert err.startswith("extract: the model never answered: ")
    assert err.count("\n") == 1
    assert _store(project, hermetic_home) == before


def test_a_timeout_is_a_model_fault_too(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    from datetime import datetime

    from pi_memory.jobs.extract import extract
    from pi_memory.open_store import open_store

    configure(fake_provider, hermetic_home, "openai")
    before = _store(project, hermetic_home)
    fake_provider.script(Hang(3))
    config, store, _, _ = open_store()
    outcome = extract(store, config, SESSION, now=datetime.now(), timeout=0.3)
    assert (outcome.ok, outcome.status) == (False, "failed")
    assert outcome.detail.startswith("the model never answered")
    assert _store(project, hermetic_home) == before


def test_dry_run_writes_nothing_and_moves_no_cursor(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    before = _store(project, hermetic_home)
    fake_provider.script(Say(REVIEW_REPLY), Say("NONE"))
    code, out, _ = cli("extract", "--transcript", str(SESSION), "--dry-run")
    assert code == 0
    assert out.startswith("extract: would store 2 memories\n  + project/DECISIONS.md #dev-server")
    assert _store(project, hermetic_home) == before
    assert cli("extract", "--transcript", str(SESSION))[0] == 0
    assert len(fake_provider.posts()) == 2


def test_handoff_in_the_files_layout_stores_at_most_two(
    tmp_path: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memory_dir = tmp_path / "mem"
    configure(fake_provider, hermetic_home, "anthropic", layout="files", memoryDir=str(memory_dir))
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    # No SUPERSEDES: this empty layer has no memory to supersede, which would leave the block out.
    reply = REVIEW_REPLY.replace("FILE: DECISIONS.md\nKEYWORD: x", "KEYWORD: x").replace(
        "SUPERSEDES: 20261001-aaaa\n", ""
    ) + ("===MEMORY===\nKEYWORD: third\nBODY:\nA third memory is one too many.\n")
    fake_provider.script(Say(reply))
    code, out, err = cli("extract", "--transcript", str(SESSION), "--handoff", "--json")
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert [c["keyword"] for c in result["changes"]] == ["dev-server", "x"]
    assert result["rejected"][-1] == "memory 4: over the limit of 2 per review"
    check_golden("extract_handoff_anthropic.request.json", fake_provider.posts()[0].body)
    # The project layer's directory is named after the whole path of ``root``, whose
    # temporary parents may hold underscores of their own: only its ending is ours.
    files = sorted(
        ("proj" if p.parent.name.endswith("proj") else p.parent.name) + "/" + p.name
        for p in memory_dir.rglob("*.md")
    )
    assert files == [
        "proj/MEMORY.md",
        "proj/The-dev-server-listens-on-port-8080.md",
        "user/Crossed-layers.md",
        "user/MEMORY.md",
    ]


def test_not_a_transcript_is_one_line_and_nonzero(project: Path, tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    code, out, err = cli("extract", "--transcript", str(bad))
    assert (code, out) == (1, "")
    assert err.startswith("pi_memory: ") or err.startswith("extract") or "not a transcript" in err
    assert err.count("\n") == 1


def test_without_a_model_the_command_says_what_to_configure(
    project: Path, fake_provider: FakeProvider
) -> None:
    code, _, err = cli("extract", "--transcript", str(SESSION))
    assert code == 1
    assert "no model for extractMemories" in err
    assert fake_provider.posts() == []


@pytest.mark.parametrize(
    "sample",
    [
        "codex_rollout.jsonl",
        "gemini_session.json",
        "pi_branches.jsonl",
        "claude_code_branches.jsonl",
    ],
)
def test_every_host_format_reaches_the_review_as_its_turns(
    sample: str, project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    from pi_memory.transcripts.read import read_transcript
    from pi_memory.transcripts.render import serialize

    path = GOLDEN.parent / "transcripts" / sample
    configure(fake_provider, hermetic_home, "openai")
    fake_provider.script(Say("NONE"))
    code, out, _ = cli("extract", "--transcript", str(path))
    assert (code, out) == (0, "extract: nothing worth storing\n")
    prompt = fake_provider.posts()[0].json["messages"][-1]["content"]
    conversation = prompt.split("<conversation>\n", 1)[1].rsplit("\n</conversation>", 1)[0]
    assert conversation == serialize(read_transcript(path)[1])


def test_a_failed_review_marks_nothing_reviewed_and_the_rerun_asks_again(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    fake_provider.script(*[Fail(500)] * 4)
    assert cli("extract", "--transcript", str(SESSION))[0] == 1
    fake_provider.script(Say("NONE"))
    code, out, _ = cli("extract", "--transcript", str(SESSION))
    assert (code, out) == (0, "extract: nothing worth storing\n")


def test_a_failed_background_review_leaves_the_turn_to_the_command_line(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    from datetime import datetime

    from pi_memory.jobs.extract import extract
    from pi_memory.open_store import open_store

    configure(fake_provider, hermetic_home, "openai")
    fake_provider.script(*[Fail(500)] * 4)
    config, store, _, _ = open_store()
    outcome = extract(
        store, config, SESSION, now=datetime.now(), session="s-9", background=True,
        check_turn=False,
    )  # fmt: skip
    assert outcome.status == "failed"
    fake_provider.script(Say("NONE"))
    code, out, _ = cli("extract", "--transcript", str(SESSION), "--session", "s-9")
    assert (code, out) == (0, "extract: nothing worth storing\n")


def test_a_background_review_that_brings_a_layer_to_its_threshold_starts_the_round(
    project: Path,
    hermetic_home: Path,
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The consolidation check follows the index rebuild of a background extraction too."""
    import time

    from pi_memory.jobs import records, worker
    from pi_memory.open_store import open_store
    from tests.test_jobs_records import wait_for

    monkeypatch.setenv("PI_MEMORY_AUTO_CONSOLIDATE_EVERY", "2")
    configure(fake_provider, hermetic_home, "openai")
    opened = open_store()
    opened.store.refresh_indexes()  # as a session start leaves it: the watermark at 0
    # The review stores two project memories; the round it starts finds no model answer.
    fake_provider.script(Say(REVIEW_REPLY), *[Fail(500)] * 8)
    review = records.JobRecord(
        kind=records.REVIEW,
        session="s-threshold",
        cwd=str(project),
        transcript=str(SESSION),
        end=SESSION.stat().st_size,
        created=time.time(),
    )
    assert "stored 2 memories" in worker.execute(review, opened.store, opened.config, 60.0).detail
    log_file = hermetic_home / ".pi/agent/memory-auto/pi_memory.log"
    wait_for(lambda: log_file.exists() and "job consolidate-project" in log_file.read_text("utf-8"))
    wait_for(lambda: not records.claim_path(records.CONSOLIDATE).exists())
    assert [(r.layer, r.attempts) for r in records.pending(records.CONSOLIDATE)] == [("project", 1)]


def test_a_job_stopped_by_the_daily_cap_is_one_log_line_and_doctor_lists_it(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    """The worker runs a real review record while today's tokens are past the cap: the
    log says so in one line (no traceback), the record keeps the error, doctor shows it."""
    import time
    from datetime import datetime

    from pi_memory.jobs import records, worker
    from pi_memory.jobs.status import job_states
    from pi_memory.model import ledger

    configure(fake_provider, hermetic_home, "openai", dailyTokenCap=1000)
    user_layer = hermetic_home / ".pi/agent/memory-auto"
    user_layer.mkdir(parents=True, exist_ok=True)
    spent = ledger.LedgerLine(ledger.stamp(datetime.now().astimezone()), "extract", "f/m", 900, 200)
    ledger.record(user_layer, spent)
    review = records.JobRecord(
        kind=records.REVIEW,
        session="s-capped",
        cwd=str(project),
        transcript=str(SESSION),
        end=SESSION.stat().st_size,
        created=time.time(),
    )
    records.write_record(review)
    assert worker.run_worker([records.key_of(review)]) == 0
    assert fake_provider.posts() == []
    log = (user_layer / "pi_memory.log").read_text("utf-8")
    lines = [line for line in log.splitlines() if "review-" in line or "Traceback" in line]
    assert len(lines) == 1 and "Traceback" not in log
    assert "dailyTokenCap" in lines[0]
    [state] = job_states(time.time())
    assert (state.name, state.failed, state.attempts) == (review.name, False, 1)
    assert "dailyTokenCap" in state.error
