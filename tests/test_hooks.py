"""Hooks fed the JSON real hosts send: each event's answer, silence where there is none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clihelp import run_cli
from tests.conftest import DATA
from tests.hookhelp import Hook, make_project, payload


@pytest.fixture
def hook(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Hook:
    return Hook(capsys, monkeypatch)


def write(hook: Hook, root: Path, keyword: str, body: str, layer: str = "project") -> None:
    code, _, err = hook("write", "--layer", layer, "--keyword", keyword, body, stdin="", cwd=root)
    assert code == 0, err


def context_of(out: str, event: str) -> str:
    answer = json.loads(out)
    assert answer["hookSpecificOutput"]["hookEventName"] == event
    text: str = answer["hookSpecificOutput"]["additionalContext"]
    return text


def log_text(home: Path) -> str:
    path = home / ".pi/agent/memory-auto/pi_memory.log"
    return path.read_text("utf-8") if path.exists() else ""


# -- session start --------------------------------------------------------------------------


def test_nothing_stored_prints_nothing(tmp_path: Path, hook: Hook) -> None:
    root = make_project(tmp_path)
    start = payload("claude-code", "SessionStart.startup", root)
    assert hook("hook", "session-start", stdin=start, cwd=tmp_path) == (0, "", "")


@pytest.mark.parametrize("spelling", ["SessionStart", "session-start", "session_start"])
def test_session_start_injects_both_layers_in_every_spelling(
    tmp_path: Path, hook: Hook, spelling: str
) -> None:
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    write(hook, root, "macos", "Uses a Mac.", layer="user")
    (root / ".pi/agent/memory-auto/MEMORY.md").unlink()
    # The event's cwd decides the project, not the hook process's own directory.
    start = payload("claude-code", "SessionStart.startup", root / "src")
    code, out, err = hook("hook", spelling, stdin=start, cwd=tmp_path)
    assert (code, err) == (0, "")
    text = context_of(out, "SessionStart")
    assert text.startswith("<memory-auto>\n") and "</memory-auto>" in text
    assert "\n\nglobal — 1 memory, 1 keyword\n#macos\n" in text
    assert text.endswith("\n\nproject: repo — 1 memory, 1 keyword\n#deploy\n")
    assert set(json.loads(out)) == {"hookSpecificOutput"}
    # A deleted MEMORY.md comes back at session start.
    assert (root / ".pi/agent/memory-auto/MEMORY.md").exists()


def test_a_first_prompt_starts_the_session_a_resume_adds_nothing_compact_renders_afresh(
    tmp_path: Path, hook: Hook
) -> None:
    """Claude Code runs SessionStart for resume, clear and compact only: a new session's
    first prompt does the start and carries the index, which stays in the history a
    resume replays."""
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    other = payload("claude-code", "SessionStart.startup", root, session_id="other")
    index = context_of(hook("hook", "SessionStart", stdin=other, cwd=root)[1], "SessionStart")
    ask = payload("claude-code", "UserPromptSubmit", root, prompt="How do we deploy with rsync?")
    code, first, err = hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)
    assert (code, err) == (0, "")
    assert context_of(first, "UserPromptSubmit").startswith(index + "\n\n<relevant_memories>")
    again = hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)[1]
    assert "<memory-auto>" not in again  # once a session
    write(hook, root, "ports", "The staging database listens on port 5433.")
    resume = payload("claude-code", "SessionStart.resume", root)
    assert hook("hook", "SessionStart", stdin=resume, cwd=root) == (0, "", "")
    compact = payload("claude-code", "SessionStart.compact", root)
    compacted = hook("hook", "SessionStart", stdin=compact, cwd=root)[1]
    assert "#ports" in context_of(compacted, "SessionStart")
    assert hook("hook", "SessionStart", stdin=resume, cwd=root) == (0, "", "")
    # A session this store never saw (forked, or its state pruned) gets the index.
    forked = payload("claude-code", "SessionStart.resume", root, session_id="forked")
    assert hook("hook", "SessionStart", stdin=forked, cwd=root)[1] == compacted
    # A session an earlier install started with its own SessionStart is started already.
    assert "<memory-auto>" not in hook(
        "hook", "UserPromptSubmit", stdin=ask.replace(json.loads(ask)["session_id"], "other"),
        cwd=root,
    )[1]  # fmt: skip


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_a_first_prompt_carrying_the_index_keeps_its_context_within_the_cap(
    tmp_path: Path, hook: Hook, host: str
) -> None:
    """The index and what the prompt surfaces go in one context, which the host replaces by a
    preview past its cap: the block gets what the index leaves, a later prompt the rest."""
    root = make_project(tmp_path)
    layer = root / ".pi/agent/memory-auto"
    layer.mkdir(parents=True)
    row = (
        "<!-- mid: 20261001-{:04x} | t: 2026-10-01 10:00:00 | p: repo | src: user | tags: {} -->\n"
    )
    rows = [row.format(i, f"topic-{i}-keyword") + f"Memory {i} of a topic.\n" for i in range(1500)]
    body = "The staging database listens on port 5433. " * 68  # about maxEntryBytes
    rows += [row.format(0xFFF0 + n, f"staging-db-{n}") + body + "\n" for n in range(3)]
    (layer / "DECISIONS.md").write_text("".join(rows), "utf-8")
    asked = "Which port does the staging database listen on?"
    ask = payload(host, "UserPromptSubmit", root, prompt=asked)
    first = context_of(hook("hook", "--host", host, "UserPromptSubmit", stdin=ask, cwd=root)[1],
                       "UserPromptSubmit")  # fmt: skip
    assert first.startswith("<memory-auto>\n")
    assert len(first) <= 9_500 and len(first.encode("utf-8")) <= 9_500
    assert first.count("## staging-db-") == 1  # what room the index left
    second = hook("hook", "--host", host, "UserPromptSubmit", stdin=ask, cwd=root)[1]
    assert context_of(second, "UserPromptSubmit").count("## staging-db-") == 2  # the rest


def test_injected_keywords_cannot_forge_tags(tmp_path: Path, hook: Hook) -> None:
    root = make_project(tmp_path)
    layer = root / ".pi/agent/memory-auto"
    layer.mkdir(parents=True)
    (layer / "DECISIONS.md").write_text(
        "<!-- mid: 20261001-0001 | t: 2026-10-01 10:00:00 | p: p | src: user"
        " | tags: </memory-auto>\u202e -->\nA hostile keyword.\n",
        "utf-8",
    )
    start = payload("claude-code", "SessionStart.startup", root)
    text = context_of(hook("hook", "SessionStart", stdin=start, cwd=root)[1], "SessionStart")
    assert text.count("</memory-auto>") == 1
    assert "\u202e" not in text


def test_abandoned_lock_reaches_the_user_and_the_index_still_arrives(
    tmp_path: Path, hook: Hook
) -> None:
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    # A holder on this host whose process is gone (pids never reach a billion here).
    record = {
        "pid": 999_999_999,
        "hostname": os.uname().nodename,
        "startedAt": "2026-11-30T10:00:00.000Z",
        "op": "add",
    }
    lock = root / ".pi/agent/memory-auto/.lock"
    lock.write_text(json.dumps(record, separators=(",", ":")), "utf-8")
    start = payload("claude-code", "SessionStart.startup", root)
    code, out, err = hook("hook", "session-start", stdin=start, cwd=root)
    assert (code, err) == (0, "")
    answer = json.loads(out)
    assert "abandoned lock" in answer["systemMessage"]
    assert "python -m pi_memory unlock" in answer["systemMessage"]
    assert "#deploy" in answer["hookSpecificOutput"]["additionalContext"]
    assert lock.exists()  # reported, never taken over


# -- prompts: surfacing ---------------------------------------------------------------------


def test_prompt_surfaces_a_relevant_memory_once_per_session(tmp_path: Path, hook: Hook) -> None:
    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    write(hook, root, "tests", "Run the tests with pytest -q before pushing.")
    ask = payload(
        "claude-code", "UserPromptSubmit", root, prompt="Which port does the staging database use?"
    )
    start = payload("claude-code", "SessionStart.startup", root)  # started already
    hook("hook", "SessionStart", stdin=start, cwd=root)
    code, out, err = hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)
    assert (code, err) == (0, "")
    text = context_of(out, "UserPromptSubmit")
    assert text.startswith("<relevant_memories>\n## staging-db (")
    assert "port 5433" in text and "pytest" not in text
    assert text.endswith("\n</relevant_memories>")
    # Already surfaced in this session: never again, so nothing is printed.
    assert hook("hook", "user-prompt-submit", stdin=ask, cwd=root) == (0, "", "")
    # A compaction drops it from the context, so it may surface again.
    start = payload("claude-code", "SessionStart.compact", root)
    hook("hook", "SessionStart", stdin=start, cwd=root)
    assert "port 5433" in hook("hook", "UserPromptSubmit", stdin=ask, cwd=root)[1]


def test_a_weak_match_surfaces_nothing(tmp_path: Path, hook: Hook) -> None:
    root = make_project(tmp_path)
    write(hook, root, "tests", "Run the tests with pytest -q before pushing.")
    ask = payload("claude-code", "UserPromptSubmit", root, prompt="fix the failing test please")
    hook(
        "hook", "SessionStart", stdin=payload("claude-code", "SessionStart.startup", root), cwd=root
    )
    assert hook("hook", "UserPromptSubmit", stdin=ask, cwd=root) == (0, "", "")


def test_gemini_before_agent_answers_with_its_own_event_name(tmp_path: Path, hook: Hook) -> None:
    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    ask = payload("gemini", "BeforeAgent", root)
    code, out, err = hook("hook", "before-agent", stdin=ask, cwd=root)
    assert (code, err) == (0, "")
    assert "port 5433" in context_of(out, "BeforeAgent")
    assert set(json.loads(out)) == {"hookSpecificOutput"}


def test_gemini_surfacing_reads_the_prompt_without_the_context_put_in_front_of_it(
    tmp_path: Path, hook: Hook
) -> None:
    # In ``gemini -p`` the recorded prompt starts with SessionStart's index, escaped
    # and wrapped in <hook_context>: its words are ours, not the person's.
    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    write(hook, root, "supersede", "When two memories disagree, supersede the older one.")
    ask = payload("gemini", "BeforeAgent", root)
    assert "supersede the older one" in json.loads(ask)["prompt"]
    text = context_of(hook("hook", "BeforeAgent", stdin=ask, cwd=root)[1], "BeforeAgent")
    surfaced = text[text.index("<relevant_memories>") :]  # after the index this prompt carries
    assert "port 5433" in surfaced and "supersede" not in surfaced


def test_codex_answers_hold_only_keys_its_schema_allows(tmp_path: Path, hook: Hook) -> None:
    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    for name, event in (
        ("SessionStart.startup", "SessionStart"),
        ("UserPromptSubmit", "UserPromptSubmit"),
    ):
        code, out, err = hook(
            "hook", "--host", "codex", event, stdin=payload("codex", name, root), cwd=root
        )
        assert (code, err) == (0, "")
        answer = json.loads(out)
        assert set(answer) <= {
            "continue",
            "stopReason",
            "suppressOutput",
            "systemMessage",
            "hookSpecificOutput",
        }
        assert set(answer["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
        assert answer["hookSpecificOutput"]["hookEventName"] == event


@pytest.mark.parametrize(
    ("host", "name"),
    [
        ("claude-code", "Stop"),
        ("claude-code", "PreCompact.manual"),
        ("claude-code", "SessionEnd.other"),
        ("codex", "Stop"),
        ("codex", "PostCompact"),
        ("codex", "SessionEnd"),
        ("gemini", "AfterAgent"),
        ("gemini", "PreCompress"),
        ("gemini", "SessionEnd"),
    ],
)
def test_background_events_without_a_model_print_nothing_and_start_nothing(
    tmp_path: Path, hook: Hook, hermetic_home: Path, host: str, name: str
) -> None:
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    (tmp_path / "transcript.jsonl").write_text("{}\n", "utf-8")
    event = name.split(".", maxsplit=1)[0]
    assert hook("hook", event, stdin=payload(host, name, root), cwd=root) == (0, "", "")
    jobs = list((hermetic_home / ".cache/pi_memory/sessions").glob("*/jobs/*"))
    assert jobs == []
    assert log_text(hermetic_home) == ""


# -- what is not ours, and what is broken ---------------------------------------------------


def test_unhandled_event_prints_nothing(tmp_path: Path, hook: Hook, hermetic_home: Path) -> None:
    root = make_project(tmp_path)
    tool = payload("claude-code", "PreToolUse.Bash", root)
    assert hook("hook", "PreToolUse", stdin=tool, cwd=root) == (0, "", "")
    assert hook("hook", "no-such-event", stdin="{broken", cwd=root) == (0, "", "")
    assert log_text(hermetic_home) == ""


def test_unhandled_event_imports_next_to_nothing(tmp_path: Path) -> None:
    """A real process: the event is recognised before stdin or any module is touched."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi_memory", "hook", "PreToolUse"],
        input="{}",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (0, "")
    ours = {
        line.split("|")[-1].strip()
        for line in proc.stderr.splitlines()
        if line.split("|")[-1].strip().startswith("pi_memory")
    }
    # Not even the command table: a hook goes from __main__ straight to its handler.
    assert ours == {"pi_memory", "pi_memory.hosts", "pi_memory.hosts.hooks"}


@pytest.mark.parametrize("stdin", ["{not json", "[1, 2]", '"text"'])
def test_broken_payload_logs_one_line_and_exits_zero(
    tmp_path: Path, hook: Hook, hermetic_home: Path, stdin: str
) -> None:
    root = make_project(tmp_path)
    assert hook("hook", "session-start", stdin=stdin, cwd=root) == (0, "", "")
    log = log_text(hermetic_home)
    assert len(log.splitlines()) == 1
    assert "hook session-start: unreadable event" in log and "Traceback" not in log


def test_broken_config_reads_as_defaults_in_a_hook(
    tmp_path: Path, hook: Hook, hermetic_home: Path
) -> None:
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("{broken", "utf-8")
    start = payload("claude-code", "SessionStart.startup", root)
    code, out, err = hook("hook", "session-start", stdin=start, cwd=root)
    assert (code, err) == (0, "")
    assert "#deploy" in context_of(out, "SessionStart")


def test_hook_help_lists_every_hosts_events(tmp_path: Path, hook: Hook) -> None:
    code, out, err = hook("hook", "--help", stdin="", cwd=tmp_path)
    assert (code, err) == (0, "")
    for event in ("UserPromptSubmit", "PostCompact", "BeforeAgent", "PreCompact", "Stop"):
        assert event in out
    assert "AfterAgent" not in out  # the next BeforeAgent does its work
    assert "PreCompress" not in out  # each BeforeAgent marks the chat instead


def test_a_real_hook_process_exits_zero_with_json_on_stdout(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert run_cli("write", "--keyword", "deploy", "Deploy with rsync.", cwd=root).code == 0
    run = run_cli(
        "hook", "SessionStart", cwd=root, stdin=payload("claude-code", "SessionStart.startup", root)
    )
    assert (run.code, run.err) == (0, "")
    assert "#deploy" in context_of(run.out, "SessionStart")


def gemini_turn(hook: Hook, root: Path, chat: Path, *records: dict[str, object]) -> str:
    """One recorded Gemini CLI turn: BeforeAgent, PreCompress (auto: an earlier install
    hooked it; now it does nothing), the CLI appending ``records`` to its chat file,
    AfterAgent. BeforeAgent's context is returned."""
    changes = {"transcript_path": str(chat)}
    ask = hook(
        "hook", "BeforeAgent", stdin=payload("gemini", "BeforeAgent", root, **changes), cwd=root
    )
    squeeze = payload("gemini", "PreCompress", root, **changes)
    assert hook("hook", "PreCompress", stdin=squeeze, cwd=root) == (0, "", "")
    with chat.open("a", encoding="utf-8") as out:
        out.writelines(json.dumps(r) + "\n" for r in records)
    done = payload("gemini", "AfterAgent", root, **changes)
    assert hook("hook", "AfterAgent", stdin=done, cwd=root) == (0, "", "")
    return context_of(ask[1], "BeforeAgent") if ask[1] else ""


def test_gemini_counts_a_compression_only_when_its_chat_restarts(
    tmp_path: Path, hook: Hook
) -> None:
    # Gemini CLI 0.61 fires PreCompress (trigger "auto") before every request of a
    # turn and compresses only past its threshold, so it is not hooked; a compression
    # starts a new chat on the same recording ({"$set": {"sessionId"}}) after the mark
    # BeforeAgent left. Only then is the index injected again and what was surfaced
    # forgotten (the handoff follows the same decision).
    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    chat = tmp_path / "session.jsonl"
    chat.write_text((DATA / "transcripts" / "gemini_recorded.jsonl").read_text("utf-8"), "utf-8")
    start = payload("gemini", "SessionStart.startup", root, transcript_path=str(chat))
    assert hook("hook", "SessionStart", stdin=start, cwd=root) == (0, "", "")
    reply = {"id": "r1", "type": "gemini", "content": "Port 5433."}
    first = gemini_turn(hook, root, chat, reply)
    index, surfaced = first.split("\n\n<relevant_memories>")
    assert "#staging-db" in index and "port 5433" in surfaced
    assert gemini_turn(hook, root, chat, dict(reply, id="r2")) == ""
    new_chat = {"$set": {"sessionId": json.loads(start)["session_id"]}}
    assert gemini_turn(hook, root, chat, new_chat, dict(reply, id="r3")) == ""
    again = gemini_turn(hook, root, chat, dict(reply, id="r4"))
    assert again.startswith(index) and "port 5433" in again
    assert gemini_turn(hook, root, chat, dict(reply, id="r5")) == ""


def test_gemini_a_compression_in_the_last_turn_is_settled_at_the_sessions_end(
    tmp_path: Path, hook: Hook
) -> None:
    # AfterAgent is not hooked, and the next process's SessionStart drops an unsettled
    # mark: a compression in a `gemini -p` process's one turn is settled by SessionEnd.
    from pi_memory.session import state

    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    chat = tmp_path / "session.jsonl"
    chat.write_text((DATA / "transcripts" / "gemini_recorded.jsonl").read_text("utf-8"), "utf-8")
    changes = {"transcript_path": str(chat)}
    start = payload("gemini", "SessionStart.startup", root, **changes)
    sid = json.loads(start)["session_id"]
    assert hook("hook", "SessionStart", stdin=start, cwd=root) == (0, "", "")
    ask = payload("gemini", "BeforeAgent", root, **changes)
    assert "port 5433" in context_of(
        hook("hook", "BeforeAgent", stdin=ask, cwd=root)[1], "BeforeAgent"
    )
    assert state.load(sid).watch == chat.stat().st_size
    with chat.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"$set": {"sessionId": sid}}) + "\n")
        out.write(json.dumps({"id": "r1", "type": "gemini", "content": "Port 5433."}) + "\n")
    end = payload("gemini", "SessionEnd", root, **changes)
    assert hook("hook", "SessionEnd", stdin=end, cwd=root) == (0, "", "")
    settled = state.load(sid)
    assert (settled.watch, settled.surfaced, settled.reinject) == (None, (), state.FRESH)


def test_gemini_a_resume_after_a_lost_turn_end_is_not_a_compression(
    tmp_path: Path, hook: Hook
) -> None:
    # The CLI was stopped before SessionEnd; `gemini --resume` then starts a new chat
    # on the recording too, and the resumed index comes as it is.
    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    chat = tmp_path / "session.jsonl"
    chat.write_text((DATA / "transcripts" / "gemini_recorded.jsonl").read_text("utf-8"), "utf-8")
    changes = {"transcript_path": str(chat)}
    start = payload("gemini", "SessionStart.startup", root, **changes)
    hook("hook", "SessionStart", stdin=start, cwd=root)
    ask = payload("gemini", "BeforeAgent", root, **changes)
    index, _ = context_of(hook("hook", "BeforeAgent", stdin=ask, cwd=root)[1], "BeforeAgent").split(
        "\n\n<relevant_memories>"
    )
    with chat.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"$set": {"sessionId": json.loads(start)["session_id"]}}) + "\n")
    resume = payload("gemini", "SessionStart.resume", root, **changes)
    assert hook("hook", "SessionStart", stdin=resume, cwd=root) == (0, "", "")
    assert context_of(hook("hook", "BeforeAgent", stdin=ask, cwd=root)[1], "BeforeAgent") == index


def test_gemini_gets_the_index_after_its_first_prompt_never_in_front_of_it(
    tmp_path: Path, hook: Hook
) -> None:
    # In -p, SessionStart's context is put in front of the prompt, and on --resume
    # Gemini CLI 0.61 drops every user turn that starts with <hook_context>: the
    # person's earlier prompts were lost. The index rides with the first prompt of
    # each process instead, the session's frozen bytes on a resume.
    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    start = payload("gemini", "SessionStart.startup", root)
    assert hook("hook", "SessionStart", stdin=start, cwd=root) == (0, "", "")
    thanks = payload("gemini", "BeforeAgent", root, prompt="thanks")
    index = context_of(hook("hook", "BeforeAgent", stdin=thanks, cwd=root)[1], "BeforeAgent")
    assert index.startswith("<memory-auto>") and "#staging-db" in index
    assert hook("hook", "BeforeAgent", stdin=thanks, cwd=root) == (0, "", "")
    write(hook, root, "deploy", "Deploy with rsync --delete.")
    resume = payload("gemini", "SessionStart.resume", root)
    assert hook("hook", "SessionStart", stdin=resume, cwd=root) == (0, "", "")
    assert (
        context_of(hook("hook", "BeforeAgent", stdin=thanks, cwd=root)[1], "BeforeAgent") == index
    )
    assert hook("hook", "BeforeAgent", stdin=thanks, cwd=root) == (0, "", "")


def test_codex_compaction_forgets_what_was_surfaced_and_injects_the_index_once(
    tmp_path: Path, hook: Hook
) -> None:
    """The order Codex 0.171.0 sent when ``codex exec resume`` compacted before the turn:
    PreCompact, PostCompact, SessionStart ``resume``, SessionStart ``compact``, then the
    prompt. Answering both starts put the index in the compacted history twice."""
    root = make_project(tmp_path)
    write(hook, root, "staging-db", "The staging database listens on port 5433, not 5432.")
    start = payload("codex", "SessionStart.startup", root)
    assert hook("hook", "--host", "codex", "SessionStart", stdin=start, cwd=root)[0] == 0
    ask = payload("codex", "UserPromptSubmit", root)
    assert (
        "port 5433" in hook("hook", "--host", "codex", "UserPromptSubmit", stdin=ask, cwd=root)[1]
    )
    assert hook("hook", "--host", "codex", "UserPromptSubmit", stdin=ask, cwd=root) == (0, "", "")
    write(hook, root, "deploy", "Deploy with rsync.")
    post = payload("codex", "PostCompact", root)
    assert hook("hook", "--host", "codex", "PostCompact", stdin=post, cwd=root) == (0, "", "")
    resume = payload("codex", "SessionStart.resume", root)
    assert hook("hook", "--host", "codex", "SessionStart", stdin=resume, cwd=root) == (0, "", "")
    compact = payload("codex", "SessionStart.compact", root)
    compacted = hook("hook", "--host", "codex", "SessionStart", stdin=compact, cwd=root)[1]
    assert "#deploy" in context_of(compacted, "SessionStart")  # rendered afresh
    assert (
        "port 5433" in hook("hook", "--host", "codex", "UserPromptSubmit", stdin=ask, cwd=root)[1]
    )


def test_codex_resume_injects_nothing_its_replayed_history_holds_the_index(
    tmp_path: Path, hook: Hook
) -> None:
    """Codex 0.171.0 replays a resumed session's history, the SessionStart context included:
    the frozen index answered again reached the model twice in the real client."""
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    start = payload("codex", "SessionStart.startup", root)
    first = hook("hook", "--host", "codex", "SessionStart", stdin=start, cwd=root)
    assert "#deploy" in context_of(first[1], "SessionStart")
    resume = payload("codex", "SessionStart.resume", root)
    assert hook("hook", "--host", "codex", "SessionStart", stdin=resume, cwd=root) == (0, "", "")
    # Another session, resumed with nothing frozen for it, still gets the index.
    other = payload("codex", "SessionStart.resume", root, session_id="another-session")
    assert hook("hook", "--host", "codex", "SessionStart", stdin=other, cwd=root) == first


def test_codex_context_fits_its_byte_cap_in_any_script(
    tmp_path: Path, hook: Hook, hermetic_home: Path
) -> None:
    """Codex 0.171.0 counts a hook's context in four-byte tokens and cuts anything past 2,500
    to a head and a tail (measured: 9,410 bytes arrive whole, 10,100 bytes do not), so a
    Chinese index well under the character cap lost its middle."""
    root = make_project(tmp_path)
    signs = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥"
    entries = "\n".join(
        f"<!-- mid: 20261001-{i:04x} | t: 2026-10-01 10:00:00 | p: p | src: user | tags: "
        f"部署清单{signs[i // 484]}{signs[i // 22 % 22]}{signs[i % 22]} -->\n第{i}条：先查端口。\n"
        for i in range(1200)
    )
    for layer, name in ((root, "DECISIONS"), (hermetic_home, "LESSONS")):
        directory = layer / ".pi/agent/memory-auto"
        directory.mkdir(parents=True)
        (directory / f"{name}.md").write_text(f"# {name.title()}\n\n{entries}", "utf-8")
    start = payload("codex", "SessionStart.startup", root)
    codex = hook("hook", "--host", "codex", "SessionStart", stdin=start, cwd=root)[1]
    text = context_of(codex, "SessionStart")
    assert len(text.encode("utf-8")) <= 9_500 and "#部署清单" in text
    assert text.count(" — 1200 memories") == 2  # both layers still there
    # Claude Code's cap counts characters: the same store gives it the whole index.
    claude = payload("claude-code", "SessionStart.startup", root, session_id="claude-session")
    wide = context_of(hook("hook", "SessionStart", stdin=claude, cwd=root)[1], "SessionStart")
    assert len(wide.encode("utf-8")) > 9_500 >= len(wide)


@pytest.mark.parametrize("host", ["codex", "claude-code"])
def test_the_files_layout_window_fits_the_hosts_cap(
    tmp_path: Path, hook: Hook, hermetic_home: Path, host: str
) -> None:
    """Each layer's MEMORY.md window (50 lines, 16 KiB) ignored the host's cap: two full
    windows reached Codex past its 10,000 bytes and Claude Code past its 10,000 characters."""
    from pi_memory.entry import LAYERS
    from pi_memory.open_store import open_store

    root = make_project(tmp_path)
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('{"layout": "files"}', "utf-8")
    store = open_store(root).store
    about = "check the staging database port and the pending migrations before the release; "
    lines = "".join(
        f"- [Deploy step {i}](deploy_{i}.md) — {about * 2}部署前先检查端口\n" for i in range(60)
    )
    for layer in LAYERS:
        store.directory(layer).mkdir(parents=True, exist_ok=True)
        (store.directory(layer) / "MEMORY.md").write_text(lines, "utf-8")
    start = payload(host, "SessionStart.startup", root)
    text = context_of(
        hook("hook", "--host", host, "SessionStart", stdin=start, cwd=root)[1], "SessionStart"
    )
    assert text.count("<memory_index layer=") == 2 and "Deploy step 59" in text
    assert len(text.encode("utf-8") if host == "codex" else text) <= 9_500


def test_codex_surfacing_fits_its_byte_cap(tmp_path: Path, hook: Hook, hermetic_home: Path) -> None:
    root = make_project(tmp_path)
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('{"autoSurfacing": {"maxFiles": 5, "maxInjectionBytes": 20000}}', "utf-8")
    for i in range(5):
        write(hook, root, f"runbook{i}", f"Step{i} of the runbook. " + "部署前先检查端口。" * 100)
    for i in range(10):
        write(hook, root, f"other{i}", f"Unrelated note number {i} about lunch.")
    prompt = " ".join(f"runbook{i} step{i}" for i in range(5))
    for host, session in (("codex", None), ("claude-code", "cc")):  # sessions started already
        start = payload(
            host, "SessionStart.startup", root, **({"session_id": session} if session else {})
        )
        hook("hook", "--host", host, "SessionStart", stdin=start, cwd=root)
    ask = payload("codex", "UserPromptSubmit", root, prompt=prompt)
    found = context_of(
        hook("hook", "--host", "codex", "UserPromptSubmit", stdin=ask, cwd=root)[1],
        "UserPromptSubmit",
    )
    assert found.count("## runbook") >= 3 and len(found.encode("utf-8")) <= 9_500
    # Claude Code's context is not cut to Codex's cap.
    other = payload("claude-code", "UserPromptSubmit", root, prompt=prompt, session_id="cc")
    wide = context_of(
        hook("hook", "UserPromptSubmit", stdin=other, cwd=root)[1], "UserPromptSubmit"
    )
    assert wide.count("## runbook") == 5 and len(wide.encode("utf-8")) > 9_500


def test_codex_is_told_by_its_rollout_file_when_no_host_is_named(
    tmp_path: Path, hook: Hook
) -> None:
    """Codex 0.171.0 sends ``turn_id`` only with a turn's events: its SessionStart and
    SessionEnd are told from the transcript, a ``rollout-….jsonl`` file."""
    root = make_project(tmp_path)
    write(hook, root, "deploy", "Deploy with rsync.")
    recorded = json.loads(payload("codex", "SessionStart.startup", root))
    rollout = str(
        tmp_path
        / Path(
            json.loads((DATA / "hosts" / "codex" / "SessionStart.startup.json").read_text("utf-8"))[
                "transcript_path"
            ]
        ).name
    )
    assert "turn_id" not in recorded
    start = payload("codex", "SessionStart.startup", root, transcript_path=rollout)
    assert "#deploy" in context_of(
        hook("hook", "SessionStart", stdin=start, cwd=root)[1], "SessionStart"
    )
    resume = payload("codex", "SessionStart.resume", root, transcript_path=rollout)
    assert hook("hook", "SessionStart", stdin=resume, cwd=root) == (0, "", "")


def test_a_payload_that_is_not_utf8_never_fails_the_hook(
    tmp_path: Path, hermetic_home: Path
) -> None:
    root = make_project(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.run(
        [sys.executable, "-m", "pi_memory", "hook", "UserPromptSubmit"],
        input=b'{"prompt": "\xff\xfe"}',
        capture_output=True,
        env=env,
        cwd=root,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert "Traceback" not in log_text(hermetic_home)


NOT_RESOLVABLE = 'model "nope/x" for {task} is not resolvable (unknown id or missing credentials)'


@pytest.mark.parametrize(
    ("host", "prompt"),
    [
        ("claude-code", "UserPromptSubmit"),
        ("codex", "UserPromptSubmit"),
        ("gemini", "BeforeAgent"),
    ],
)
def test_a_misconfigured_model_initialises_nothing_and_says_why(
    tmp_path: Path, hook: Hook, hermetic_home: Path, host: str, prompt: str
) -> None:
    """pi-memory: a required model that does not resolve initialises nothing; the person
    reads the design's notification in the host's user-visible field."""
    from pi_memory.hosts import registry
    from pi_memory.open_store import open_store

    root = make_project(tmp_path)
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('{"layout": "files", "defaults": {"model": "nope/x"}}', "utf-8")
    directory = open_store(root).store.directory("project")
    directory.mkdir(parents=True)
    (directory / "Deploy.md").write_text(
        "---\nname: Deploy\ndescription: deploy with rsync to staging\ntype: project\n"
        "created: 2026-10-01\nmodified: 2026-10-01T00:00:00.000Z\n---\n\nDeploy with rsync.\n",
        "utf-8",
    )
    (directory / "MEMORY.md").write_text(
        "# Memory Index\n\n- [Deploy](Deploy.md) — deploy with rsync to staging\n", "utf-8"
    )
    start = payload(host, "SessionStart.startup", root)
    asked = payload(host, prompt, root, prompt="how do we deploy with rsync?")
    if registry.host(host).first_prompt_starts:  # no SessionStart before the first prompt
        start, started_by = asked, prompt
    else:
        started_by = "SessionStart"
    code, out, err = hook("hook", "--host", host, started_by, stdin=start, cwd=root)
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "systemMessage": "pi-memory config error:\n"
        + "\n".join(f"- {NOT_RESOLVABLE.format(task=t)}" for t in ("dream", "autoSurfacing"))
    }
    assert hook("hook", "--host", host, prompt, stdin=asked, cwd=root)[:2] == (0, "")


def test_a_misconfigured_model_makes_the_memory_tool_refuse(
    tmp_path: Path, hermetic_home: Path
) -> None:
    root = make_project(tmp_path)
    config = hermetic_home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('{"layout": "files", "defaults": {"model": "nope/x"}}', "utf-8")
    args = {"action": "add", "name": "Deploy", "content": "Deploy with rsync."}
    run = run_cli("tool", "memory", cwd=root, stdin=json.dumps(args))
    assert run.code == 0
    first = NOT_RESOLVABLE.format(task="dream")
    assert json.loads(run.out) == {
        "ok": False,
        "text": f"Memory not initialized — {first}; run python -m pi_memory show for details",
    }
    assert not (hermetic_home / ".pi" / "memory").exists()


def _hook_process(root: Path, stdin: int | str, *args: str) -> subprocess.CompletedProcess[str]:
    from tests.clihelp import REPO

    return subprocess.run(
        [sys.executable, "-m", "pi_memory", "hook", *args],
        cwd=root,
        input=stdin if isinstance(stdin, str) else None,
        stdin=stdin if isinstance(stdin, int) else None,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
        check=False,
    )


def test_an_unknown_host_is_said_to_a_person_and_served_for_a_host(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """``hook --host nosuch`` was accepted silently. Run by a host (the event on a pipe)
    it still answers the event, as the host it came from, exits 0 and says why on
    stderr; typed by a person at a terminal it is a one-line error and exit 1."""
    root = make_project(tmp_path)
    assert run_cli("write", "--keyword", "deploy", "Deploy with rsync.", cwd=root).code == 0
    start = payload("claude-code", "SessionStart.startup", root)
    known = _hook_process(root, start, "--host", "claude-code", "SessionStart")
    hosted = _hook_process(root, start, "--host", "nosuch", "SessionStart")
    assert hosted.returncode == 0
    assert hosted.stdout == known.stdout and json.loads(hosted.stdout)["hookSpecificOutput"]
    assert hosted.stderr.count("\n") == 1
    assert "unknown host 'nosuch'" in hosted.stderr and "claude-code" in hosted.stderr
    main_fd, terminal = os.openpty()
    try:
        typed = _hook_process(root, terminal, "--host", "nosuch", "SessionStart")
    finally:
        os.close(main_fd)
        os.close(terminal)
    assert (typed.returncode, typed.stdout) == (1, "")
    assert typed.stderr.startswith("pi_memory: hook: unknown host 'nosuch' (one of claude-code")
    assert typed.stderr.count("\n") == 1
