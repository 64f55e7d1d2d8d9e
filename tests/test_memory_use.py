"""Used, ignored, repeated: what the agent did with its memories, judged by the background review
from the transcript, kept per session in the cache, and added up by ``show`` into candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_memory import recalls
from pi_memory.entry import Entry
from pi_memory.memory_use import judge
from pi_memory.recalls import REPEATED, SURFACED, USED, Use
from pi_memory.transcripts import ASSISTANT, TOOL, USER, Turn
from tests.fake_provider import FakeProvider, Say
from tests.jobhelp import category_row, cli, configure

WHEN = "2026-10-01 10:00:00"
RELEASE = Entry(
    "20261001-aaaa", WHEN, "proj", "user", "release",
    "Releases go out with `make release-tag`; tag first, then push the tag.",
)  # fmt: skip
NODE = Entry(
    "20261002-bbbb", WHEN, "proj", "user", "node",
    "Use Node 22 for every tool; corepack enable first.",
)  # fmt: skip
TABS = Entry(
    "20261003-cccc", WHEN, "proj", "user", "style",
    "Indent Python files with four spaces, never tabs, and keep lines under 100 characters.",
)  # fmt: skip
MEMORIES = [RELEASE, NODE, TABS]


def turns(*parts: tuple[str, str] | tuple[str, str, tuple[str, ...]]) -> list[Turn]:
    made = []
    for at, part in enumerate(parts):
        calls = part[2] if len(part) == 3 else ()
        made.append(Turn(at, part[0], part[1], tool_calls=calls))
    return made


def test_a_memory_acted_on_is_used_and_one_never_touched_is_ignored() -> None:
    conversation = turns(
        (USER, "Cut the next release please."),
        (ASSISTANT, "Tagging and releasing.", ('Bash {"command":"make release-tag VERSION=1.2"}',)),
        (TOOL, "tagged v1.2"),
    )
    verdicts = judge(conversation, MEMORIES, {RELEASE.id, NODE.id})
    assert verdicts == {RELEASE.id: {SURFACED, USED}, NODE.id: {SURFACED}}


def test_a_memory_found_by_a_search_or_named_by_id_is_used() -> None:
    searched = turns(
        (USER, "Which Node version?"),
        (ASSISTANT, "Let me look.", ('memory_search {"query":"node"}',)),
        (TOOL, f"{NODE.id} #node Use Node 22 for every tool"),
    )
    assert judge(searched, MEMORIES, {NODE.id}) == {NODE.id: {SURFACED, USED}}
    named = turns((USER, "ok"), (ASSISTANT, f"As memory {NODE.id} says, I use Node 22."))
    assert judge(named, MEMORIES, {NODE.id}) == {NODE.id: {SURFACED, USED}}


def test_a_memory_said_in_a_reply_is_cited() -> None:
    cited = turns(
        (USER, "Format this file."),
        (
            ASSISTANT,
            "I indent Python files with four spaces, never tabs, lines under 100 characters.",
        ),
    )
    assert judge(cited, MEMORIES, {TABS.id}) == {TABS.id: {SURFACED, USED}}
    # One shared word is no citation.
    vague = turns((USER, "Format this file."), (ASSISTANT, "Done: Python files formatted."))
    assert judge(vague, MEMORIES, {TABS.id}) == {TABS.id: {SURFACED}}


def test_the_user_saying_a_memory_again_after_an_answer_is_a_repetition() -> None:
    corrected = turns(
        (USER, "Reformat utils.py."),
        (ASSISTANT, "Reformatted with tabs."),
        (USER, "No! Indent with four spaces, never tabs. Keep lines under 100 characters."),
    )
    assert judge(corrected, MEMORIES, ()) == {TABS.id: {REPEATED}}


def test_a_first_prompt_or_a_long_paste_is_not_a_repetition() -> None:
    first = turns(
        (USER, "Indent with four spaces, never tabs, lines under 100 characters."),
        (ASSISTANT, "Sure."),
    )
    assert judge(first, MEMORIES, ()) == {}
    paste = " ".join(f"word{i}" for i in range(60))
    long = turns(
        (USER, "Go."),
        (ASSISTANT, "Done."),
        (USER, f"Indent four spaces never tabs lines under 100 characters {paste}"),
    )
    assert judge(long, MEMORIES, ()) == {}


def test_a_superseded_memory_is_not_judged() -> None:
    old = TABS._replace(superseded_by="20261009-dddd")
    corrected = turns(
        (USER, "Go."),
        (ASSISTANT, "Tabs."),
        (USER, "Four spaces, never tabs, lines under 100 characters."),
    )
    assert judge(corrected, [old], {old.id}) == {}


# -- the session's file and the tally -----------------------------------------------------


def test_a_sessions_verdicts_round_trip_and_damage_reads_as_none() -> None:
    text = recalls.render_session_use({"b": {USED, SURFACED}, "a": {REPEATED}, "c": set()})
    assert text == '{"a": ["repeated"], "b": ["surfaced", "used"]}\n'
    assert recalls.parse_session_use(text) == {"a": {REPEATED}, "b": {SURFACED, USED}}
    assert recalls.parse_session_use("{not json") == {}
    assert recalls.parse_session_use('{"a": ["bogus"], "b": "used", "c": ["used"]}') == {
        "c": {USED}
    }


def test_candidates_to_retire_and_to_promote() -> None:
    sessions = [
        {"quiet": {SURFACED}, "busy": {SURFACED, USED}, "said": {REPEATED}},
        {"quiet": {SURFACED}, "busy": {SURFACED, USED}},
        {"quiet": {SURFACED}, "busy": {SURFACED, USED}, "twice": {SURFACED}},
    ]
    uses = recalls.tally(sessions)
    assert uses["quiet"] == Use(3, 0, 0) and uses["quiet"].ignored == 3
    ids = ["quiet", "busy", "said", "twice", "gone"]
    assert [key for key, _ in recalls.to_retire(uses, ids)] == ["quiet"]
    assert [key for key, _ in recalls.to_promote(uses, ids)] == ["said", "busy"]
    # A memory no longer in the store is no candidate.
    assert recalls.to_retire(uses, ["busy"]) == []


def test_one_session_rewrites_its_own_file_and_never_counts_twice(tmp_path: Path) -> None:
    recalls.save_session_use(tmp_path, "s1", {"a": {SURFACED}})
    recalls.save_session_use(tmp_path, "s1", {"a": {SURFACED, USED}})
    recalls.save_session_use(tmp_path, "s2", {"a": {SURFACED}})
    assert recalls.load_uses(tmp_path) == {"a": Use(2, 1, 0)}


# -- as the background review runs it ------------------------------------------------------


def claude_transcript(path: Path, session: str, lines: list[tuple[str, object]]) -> Path:
    records = []
    for at, (role, content) in enumerate(lines):
        message: dict[str, object] = {"role": role, "content": content}
        if role == "assistant":
            message["id"] = f"msg_{at}"
        records.append({
            "type": role, "message": message, "uuid": f"u-{at}", "sessionId": session,
            "parentUuid": f"u-{at - 1}" if at else None,
            "timestamp": f"2026-11-30T09:00:{at:02d}.000Z", "cwd": "/home/u/proj",
        })  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    store = root / ".pi" / "agent" / "memory-auto"
    store.mkdir(parents=True)
    (store / "CONVENTIONS.md").write_text(
        "".join(category_row(e.id, e.time, e.keyword, e.body) for e in MEMORIES), "utf-8"
    )
    monkeypatch.chdir(root)
    return root


def review_session(tmp_path: Path, session: str) -> None:
    from pi_memory.session import state

    state.save(session, state.SessionState(), state.SessionState(surfaced=(RELEASE.id, NODE.id)))
    transcript = claude_transcript(tmp_path / f"{session}.jsonl", session, [
        ("user", "Cut the next release please."),
        ("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash",
                        "input": {"command": "make release-tag VERSION=1.2"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "tagged"}]),
        ("assistant", [{"type": "text", "text": "Released with tabs in the changelog."}]),
        ("user", "Indent with four spaces, never tabs, and keep lines under 100 characters!"),
    ])  # fmt: skip
    code, _, err = cli("extract", "--transcript", str(transcript), "--session", session)
    assert (code, err) == (0, ""), err


def test_the_review_keeps_verdicts_and_show_lists_the_candidates(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    fake_provider.script(Say("NONE"), Say("NONE"), Say("NONE"))
    for number in range(3):
        review_session(tmp_path, f"session-{number}")
    code, out, _ = cli("show")
    assert code == 0
    block = out[out.index("Candidates") :].splitlines()
    from pi_memory.launcher import this_package

    assert block[:5] == [
        "Candidates, from the reviewed sessions:",
        f"  promote? {TABS.id} #style: the user said it again in 3 sessions",
        f"  promote? {RELEASE.id} #release: used in 3 sessions",
        f"  retire?  {NODE.id} #node: surfaced in 3 sessions, never used",
        f"  (promote: {this_package().command('promote', 'ID')}; retire: write a better one "
        f"with --supersedes ID, or remove it in {this_package().command('ui')})",
    ]
    code, out, _ = cli("show", "--json")
    retire = json.loads(out)["candidates"]["retire"]
    assert retire == [{"id": NODE.id, "surfaced": 3, "used": 0, "ignored": 3, "repeated": 0}]


def test_a_dry_run_review_keeps_no_verdicts(
    project: Path, hermetic_home: Path, fake_provider: FakeProvider, tmp_path: Path
) -> None:
    configure(fake_provider, hermetic_home, "openai")
    fake_provider.script(Say("NONE"))
    transcript = claude_transcript(tmp_path / "t.jsonl", "s", [
        ("user", "Go."), ("assistant", [{"type": "text", "text": "Done."}]),
    ])  # fmt: skip
    assert cli("extract", "--transcript", str(transcript), "--session", "s", "--dry-run")[0] == 0
    from pi_memory.fs.cache_home import cache_home

    assert not (Path(cache_home()) / recalls.USE_DIRECTORY).exists()
