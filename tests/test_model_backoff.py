"""A model that failed is left alone at prompt time for a while: the prompt costs nothing.

The prompt hook runs as a process, the way a host runs it, against a real HTTP
server on 127.0.0.1 that answers 500 or hangs; the server's request log says
whether the model was asked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from pi_memory.model import backoff
from tests.fake_provider import Fail, FakeProvider, Hang, Say, memory_json, write_memory_json
from tests.hookhelp import make_project, payload
from tests.inproc import call

ROOT = Path(__file__).resolve().parent.parent
MODEL = "fake/test-model"
PROMPT = "which port does the staging database listen on?"


def test_the_back_off_doubles_from_thirty_seconds_to_half_an_hour() -> None:
    assert [backoff.period(n) for n in range(8)] == [0, 30, 60, 120, 240, 480, 960, 1800]
    assert backoff.period(500) == backoff.CAP


def test_failures_lengthen_the_back_off_and_an_answer_ends_it(hermetic_home: Path) -> None:
    assert not backoff.waiting(MODEL)
    first = backoff.failed(MODEL, "HTTP 500 (server_error)")
    assert (first.failures, round(first.until - first.failed_at)) == (1, 30)
    assert backoff.waiting(MODEL)
    second = backoff.failed(MODEL, "timed out")
    assert (second.failures, round(second.until - second.failed_at)) == (2, 60)
    assert backoff.every() == [second]
    assert not backoff.waiting("fake/other-model")
    backoff.answered(MODEL)
    assert backoff.read(MODEL) is None and not backoff.waiting(MODEL)


def test_an_unreadable_record_means_ask(hermetic_home: Path) -> None:
    path = backoff.path_for(MODEL)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff{not json")
    assert not backoff.waiting(MODEL)
    assert backoff.failed(MODEL, "HTTP 500").failures == 1


@pytest.fixture
def project(tmp_path: Path, hermetic_home: Path, fake_provider: FakeProvider) -> Path:
    """A project with two memories and a side-query model served by ``fake_provider``."""
    write_memory_json(hermetic_home, memory_json(fake_provider, model=MODEL))
    root = make_project(tmp_path)
    wrote = call(
        "write",
        "--keyword",
        "staging-db",
        "The staging database listens on port 5433, not 5432.",
        cwd=root,
    )
    assert wrote.code == 0, wrote.err
    assert call("write", "--keyword", "editor", "The user edits in Helix.", cwd=root).code == 0
    return root


def prompt_hook(root: Path) -> tuple[str, float]:
    """The Claude Code prompt hook as its own process, in a new session each time (a session
    surfaces a memory once): what it injects, and how long it took."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    session = str(uuid.uuid4())
    event = payload("claude-code", "UserPromptSubmit", root, prompt=PROMPT, session_id=session)
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "pi_memory", "hook", "--host", "claude-code", "user-prompt-submit"],
        cwd=root,
        env=env,
        input=event,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (run.returncode, run.stderr) == (0, "")
    return run.stdout, time.monotonic() - started


def age(model: str) -> None:
    """Let the back-off run out, as the passing of its period would."""
    record = backoff.read(model)
    assert record is not None
    backoff.save(record._replace(until=time.time() - 1))


def test_a_failing_model_is_asked_once_then_left_alone_until_its_back_off_ends(
    project: Path, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    # The side-query's time starts before its first request: on a machine loaded
    # past 30, 4 s can go on importing the client, and the model is never asked.
    settings = memory_json(fake_provider, model=MODEL, autoSurfacing={"timeoutMs": 20_000})
    write_memory_json(hermetic_home, settings)
    fake_provider.default = Fail(500)
    first, _ = prompt_hook(project)
    asked = len(fake_provider.posts())
    assert asked >= 1  # the first prompt pays for finding out
    assert "port 5433" in first  # and the scorer answered
    record = backoff.read(MODEL)
    assert record is not None and record.failures == 1 and "HTTP 500" in record.error
    for _ in range(2):
        again, _ = prompt_hook(project)
        assert len(fake_provider.posts()) == asked  # not asked at all
        assert "port 5433" in again
    age(MODEL)
    prompt_hook(project)
    assert len(fake_provider.posts()) > asked  # the period is over: asked again
    record = backoff.read(MODEL)
    assert record is not None and record.failures == 2  # and it failed again: longer now
    assert round(record.until - record.failed_at) == 60
    age(MODEL)
    editor_id = _id_of(project, "editor")
    fake_provider.default = Say(editor_id)
    answer, _ = prompt_hook(project)
    assert "Helix" in answer  # the model decided
    assert backoff.read(MODEL) is None  # an answer ends the back-off


def test_a_hanging_model_costs_one_prompt_not_every_prompt(
    project: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.default = Hang(30.0)
    _, slow = prompt_hook(project)
    asked = len(fake_provider.posts())
    assert asked >= 1 and slow > 3.0  # the first prompt waits out the side-query's limit
    record = backoff.read(MODEL)
    assert record is not None and record.failures == 1
    answer, fast = prompt_hook(project)
    assert len(fake_provider.posts()) == asked
    assert "port 5433" in answer
    # Not waiting out the side-query's limit again: the second prompt costs the
    # first one's time less that wait, however slow a loaded machine starts Python.
    assert fast < slow - 2.0


def test_a_refusal_counts_as_a_failure_and_a_cut_reply_as_an_answer(
    hermetic_home: Path, fake_provider: FakeProvider
) -> None:
    from pi_memory.config.load import load_for
    from pi_memory.entry import Entry
    from pi_memory.surfacing import Limits, surface

    write_memory_json(hermetic_home, memory_json(fake_provider, model=MODEL))
    config = load_for(hermetic_home, {}).config
    memory = Entry(
        id="20261101-0001",
        time="2026-11-01 10:00:00",
        project="p",
        src="user",
        keyword="db",
        body="The staging database listens on 5433.",
        file="CONVENTIONS.md",
    )
    fake_provider.script(Say(refusal="I cannot help with that."))
    assert surface([memory], PROMPT, Limits(), config=config, env={}).via == "scorer"
    assert backoff.waiting(MODEL)
    fake_provider.script(Say("20261101", stop="length"))
    surface([memory], PROMPT, Limits(), config=config, env={})
    assert backoff.read(MODEL) is None


def _id_of(root: Path, keyword: str) -> str:
    found = call("search", "--json", keyword, cwd=root)
    assert found.code == 0, found.err
    data = json.loads(found.out)
    hits = data if isinstance(data, list) else data.get("results", data.get("entries", []))
    return str(next(h["id"] for h in hits if h.get("keyword") == keyword))
