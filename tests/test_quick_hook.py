"""A hook answered from the note with os and sys alone says and writes what the full hook does.

Each hook runs as the hosts run it (``python -S PACKAGE hook --host HOST EVENT``),
in a process of its own, with the payloads the hosts send. Whether the quick
path answered is read from the modules the process imported. The reference for
each answer is the full hook's, run with no note at all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi_memory.naming.layer_files import RECALLS_FILE
from tests.hookhelp import make_project

PACKAGE = Path(__file__).resolve().parent.parent / "pi_memory"
ROWS = (
    "<!-- mid: 20261001-aaaa | t: 2026-10-01 10:00:00 | p: repo | src: user | tags: psql -->\n"
    "Postgres listens on port 5433 in staging.\n"
    "<!-- mid: 20261002-bbbb | t: 2026-10-02 10:00:00 | p: repo | src: user | tags: deploy -->\n"
    "Deploys go through rsync from the release branch.\n"
)
#: Each host and the event names of a session's start, end and a turn's end.
HOSTS = {
    "claude-code": ("SessionStart", "SessionEnd", ""),
    "codex": ("SessionStart", "SessionEnd", ""),
    "gemini": ("SessionStart", "SessionEnd", ""),
    "pi": ("SessionStart", "SessionEnd", "Stop"),
}


class Setup:
    def __init__(self, tmp_path: Path) -> None:
        self.root = make_project(tmp_path)
        #: The modules the last hook imported, in order.
        self.imported: list[str] = []
        self.layer = self.root / ".pi/agent/memory-auto"
        self.layer.mkdir(parents=True)
        (self.layer / "DECISIONS.md").write_text(ROWS, "utf-8")
        self.home = tmp_path / "home"
        self.cache = tmp_path / "cache"
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.env.update(
            HOME=str(self.home),
            XDG_CACHE_HOME=str(self.cache),
            XDG_STATE_HOME=str(tmp_path / "state"),
        )
        for name in list(self.env):
            if name.startswith("PI_MEMORY_"):
                del self.env[name]

    def hook(self, host: str, event: str, **fields: object) -> tuple[str, bool]:
        """The hook's stdout and whether it was answered without the package."""
        data = {
            "session_id": "s1",
            "cwd": str(self.root),
            "transcript_path": str(self.root.parent / "t.jsonl"),
            "hook_event_name": event,
            **fields,
        }
        argv = ["-X", "importtime", "-S", str(PACKAGE), "hook", "--host", host, event]
        done = subprocess.run(
            [sys.executable, *argv], input=json.dumps(data), cwd=self.root, env=self.env,
            capture_output=True, text=True, check=True, timeout=600,
        )  # fmt: skip
        quick = "pi_memory.hosts.lifecycle" not in done.stderr
        rows = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line]
        self.imported = rows[1:]  # the first row is the header
        return done.stdout, quick

    def cli(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "-S", str(PACKAGE), *args], cwd=self.root, env=self.env,
            capture_output=True, check=True, timeout=600,
        )  # fmt: skip

    def fresh(self, host: str, **fields: str) -> str:
        """The full hook's answer with no note (in a session of its own)."""
        shutil.rmtree(self.cache / "pi_memory" / "hooks", ignore_errors=True)
        out, quick = self.hook(host, "SessionStart", **{"session_id": "fresh", **fields})
        assert not quick
        return out

    def state(self, session: str) -> object:
        return json.loads((self.cache / "pi_memory/sessions" / session / "state.json").read_text())


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


def quick_then_full_twice(setup: Setup, host: str, event: str, prompt: dict[str, str]) -> list[str]:
    """Sends ``event`` twice in session "b" on the quick path and twice in session "a" on
    the full hook, alternately; asserts the two sessions were answered alike and returns
    the answers."""
    answers: dict[str, list[str]] = {"a": [], "b": []}
    for _ in range(2):
        out, quick = setup.hook(host, event, session_id="b", **prompt)
        assert quick
        answers["b"].append(out)
        shutil.rmtree(setup.cache / "pi_memory" / "hooks")  # the full hook for the other
        out, quick = setup.hook(host, event, session_id="a", **prompt)
        assert not quick
        answers["a"].append(out)
    assert answers["a"] == answers["b"]
    return answers["b"]


def receipts_by_session(setup: Setup) -> dict[str, list[dict[str, object]]]:
    """Sessions "a" and "b"'s receipts, without what differs between two runs."""
    log = Path(setup.env["XDG_STATE_HOME"], "pi_memory/receipts/receipts.jsonl").read_text()
    rows = [json.loads(line) for line in log.splitlines()]
    return {
        s: [{**r, "at": "", "ms": 0, "session": ""} for r in rows if r["session"] == s]
        for s in "ab"
    }


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_a_start_answered_quickly_says_and_keeps_what_the_full_hook_does(
    setup: Setup, host: str
) -> None:
    full, quick = setup.hook(host, "SessionStart", source="startup", session_id="a")
    assert not quick
    for source in ("startup", "clear", "compact", "resume"):
        out, quick = setup.hook(host, "SessionStart", source=source, session_id="b")
        assert quick, source
        assert out == setup.hook(host, "SessionStart", source=source, session_id="a")[0]
    assert setup.state("b") == setup.state("a")
    assert (host != "gemini") == ("<memory-auto>" in full)
    log = Path(setup.env["XDG_STATE_HOME"], "pi_memory/receipts/receipts.jsonl").read_text()
    rows = [json.loads(line) for line in log.splitlines()]
    by = {s: [{**r, "at": "", "ms": 0} for r in rows if r["session"] == s] for s in "ab"}
    assert [r["note"] for r in by["b"]] == ["startup", "clear", "compact", "resume"]
    assert by["b"] == [{**r, "session": "b"} for r in by["a"][1:]]


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_an_end_and_a_turns_end_with_nothing_to_do_are_answered_quickly(
    setup: Setup, host: str
) -> None:
    _, end, turn = HOSTS[host]
    setup.hook(host, "SessionStart", source="startup")
    out, quick = setup.hook(host, end, reason="exit")
    assert (out, quick) == ("", True)  # Gemini's too: no compression mark waits
    if turn:
        out, quick = setup.hook(host, turn, turn_id="t1", prompt_response="Done.")
        assert (out, quick) == ("", host != "gemini")


@pytest.mark.parametrize("host", ["claude-code", "codex", "gemini"])
def test_a_prompt_answered_quickly_says_and_keeps_what_the_full_hook_does(
    setup: Setup, host: str
) -> None:
    """The scorer's pick from the corpus beside the note, the index where the host takes it
    with the first prompt (Gemini CLI), the state and the receipts, as the full hook has them."""
    prompt = {"prompt": "which port does postgres listen on in staging?"}
    event = {"claude-code": "UserPromptSubmit", "codex": "UserPromptSubmit"}.get(
        host, "BeforeAgent"
    )
    for session in ("a", "b"):
        setup.hook(host, "SessionStart", source="startup", session_id=session)
    assert not setup.hook(host, event, session_id="warm", **prompt)[1]  # builds the corpus
    # the memory, then nothing: it was surfaced in this session already
    answers = quick_then_full_twice(setup, host, event, prompt)
    context = json.loads(answers[0])["hookSpecificOutput"]["additionalContext"]
    assert "5433" in context
    assert ("<memory-auto>" in context) == (host == "gemini")
    assert answers[1] == ""
    assert setup.state("b") == setup.state("a")
    by = receipts_by_session(setup)
    assert [r["event"] for r in by["b"]][-2:] == ["surface", "surface"]
    assert by["b"] == by["a"]


def test_a_first_prompt_that_starts_the_session_quickly_does_what_the_full_hook_does(
    setup: Setup,
) -> None:
    """Claude Code runs no SessionStart before a new session's first prompt: that prompt
    starts the session and carries the index, quickly or not, with the same state and
    receipts."""
    host, prompt = "claude-code", {"prompt": "which port does postgres listen on in staging?"}
    assert not setup.hook(host, "UserPromptSubmit", session_id="warm", **prompt)[1]
    answers = quick_then_full_twice(setup, host, "UserPromptSubmit", prompt)
    context = json.loads(answers[0])["hookSpecificOutput"]["additionalContext"]
    assert "#psql" in context and "5433" in context
    assert answers[1] == ""
    assert setup.state("b") == setup.state("a")
    by = receipts_by_session(setup)
    assert [(r["event"], r["note"]) for r in by["b"]] == [
        ("inject", "startup"), ("inject", "prompt"), ("surface", "scorer"), ("surface", "scorer")
    ]  # fmt: skip
    assert by["b"] == by["a"]
    # Its resume adds nothing: Claude Code's replayed history holds the index.
    assert setup.hook(host, "SessionStart", source="resume", session_id="b")[0] == ""
    started = json.loads(setup.fresh(host, source="startup"))["hookSpecificOutput"]
    assert context.startswith(started["additionalContext"] + "\n\n<relevant_memories>\n")


#: Modules that cost a hook's start-up milliseconds each and that a prompt the quick path
#: answers has no use for (the corpus is read with ``_json``; annotations need no ``typing``;
#: an ASCII prompt is tokenised with ``str.translate``, and no keyword needs splitting;
#: caches are dicts and lists rather than ``functools``'s, annotations' ``collections.abc``
#: is the type checker's alone, and the corpus's offsets are read without ``array``, each of
#: which imports ``collections``; how far the notices looked is read as bytes, not with the
#: ASCII codec's module; the note's name is hashed without ``zlib``'s shared library; the
#: surfaced block is cut to size without the layer's file names, which name ``MEMORY.md``).
QUICK_PROMPT_SPARES = (
    *("typing", "pathlib", "json", "argparse", "subprocess", "datetime", "re"),
    *("collections", "collections.abc", "functools", "array", "encodings.ascii", "zlib"),
    *("pi_memory.naming", "pi_memory.naming.layer_files"),
)


def test_a_prompt_answered_quickly_imports_none_of_the_costly_modules(setup: Setup) -> None:
    prompt = {"prompt": "which port does postgres listen on in staging?"}
    setup.hook("claude-code", "SessionStart", source="startup", session_id="a")
    assert not setup.hook("claude-code", "UserPromptSubmit", session_id="warm", **prompt)[1]
    out, quick = setup.hook("claude-code", "UserPromptSubmit", session_id="a", **prompt)
    assert quick
    assert "5433" in out
    ours = setup.imported[setup.imported.index("pi_memory") :]  # 3.9's runpy loads typing
    assert sorted(m for m in ours if m in QUICK_PROMPT_SPARES) == []


def test_a_prompt_the_quick_path_cannot_answer_takes_the_full_hook(setup: Setup) -> None:
    """Context in front of the prompt, a new chat begun since the last prompt's mark (maybe
    a compression), no corpus yet."""
    chat = setup.root.parent / "t.jsonl"
    chat.write_text('{"type": "user"}\n', "utf-8")
    setup.hook("gemini", "SessionStart", source="startup", session_id="a")
    ask = {"prompt": "which port does postgres listen on in staging?"}
    assert not setup.hook("gemini", "BeforeAgent", session_id="a", **ask)[1]  # no corpus yet
    marked = {"prompt": "<hook_context>x</hook_context> which port does postgres listen on?"}
    assert not setup.hook("gemini", "BeforeAgent", session_id="b", **marked)[1]
    assert setup.hook("gemini", "BeforeAgent", session_id="a", **ask)[1]
    with open(chat, "a", encoding="utf-8") as more:
        more.write('{"$set": {"sessionId": "s2"}}\n')
    assert not setup.hook("gemini", "BeforeAgent", session_id="a", **ask)[1]
    assert setup.hook("gemini", "BeforeAgent", session_id="c", **ask)[1]


def test_gemini_marks_where_its_chat_ends_at_each_prompt_as_the_full_hook_does(
    setup: Setup,
) -> None:
    # PreCompress fires before every request and is not hooked: each BeforeAgent marks the
    # chat recording's end, and the next prompt or the session's end settles the mark.
    chat = setup.root.parent / "t.jsonl"
    chat.write_text('{"type": "user"}\n', "utf-8")
    ask = {"prompt": "which port does postgres listen on in staging?"}
    assert not setup.hook("gemini", "BeforeAgent", session_id="warm", **ask)[1]  # the corpus

    def both(event: str, **fields: str) -> str:
        out, quick = setup.hook("gemini", event, session_id="quick", **fields)
        assert quick
        shutil.rmtree(setup.cache / "pi_memory" / "hooks")  # the full hook for the other
        assert setup.hook("gemini", event, session_id="full", **fields) == (out, False)
        assert setup.state("quick") == setup.state("full")
        return out

    assert "5433" in both("BeforeAgent", **ask)
    assert setup.state("quick")["watch"] == chat.stat().st_size  # type: ignore[index]
    with open(chat, "a", encoding="utf-8") as more:
        more.write('{"type": "gemini"}\n')
    # The chat went on, nothing was compressed: settled, and marked again.
    assert both("BeforeAgent", prompt="thanks") == ""
    assert setup.state("quick")["watch"] == chat.stat().st_size  # type: ignore[index]
    with open(chat, "a", encoding="utf-8") as more:
        more.write('{"type": "gemini"}\n')
    assert both("SessionEnd", reason="exit") == ""
    assert setup.state("quick")["watch"] is None  # type: ignore[index]
    assert not setup.hook("gemini", "BeforeAgent", session_id="warm", **ask)[1]  # the note
    # A new chat begun since the mark (a compression): the full hook's work.
    assert both("BeforeAgent", prompt="thanks") == ""
    with open(chat, "a", encoding="utf-8") as more:
        more.write('{"$set": {"sessionId": "s2"}}\n')
    assert setup.hook("gemini", "SessionEnd", reason="exit", session_id="quick") == ("", False)
    after = setup.state("quick")
    assert (after["watch"], after["reinject"], after["surfaced"]) == (None, "fresh", [])  # type: ignore[index]
    # An earlier install's PreCompress: not this host's event any more, nothing changes.
    for trigger in ("auto", "manual"):
        assert setup.hook("gemini", "PreCompress", trigger=trigger, session_id="quick")[0] == ""
    assert setup.state("quick") == after


def edit_in_place(path: Path, old: str, new: str, *, keep_time: bool) -> None:
    """Change ``path`` without a new inode (same size when ``old`` and ``new`` are)."""
    before = path.stat()
    with open(path, "r+", encoding="utf-8") as handle:
        text = handle.read().replace(old, new)
        handle.seek(0)
        handle.write(text)
        handle.truncate()
    if keep_time:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


CHANGES = (
    "write",
    "write to the other layer",
    "a repeat",
    "delete by hand",
    "an editor's save",
    "same size in place",
    "same size in place, time kept",
    "a git checkout",
)


@pytest.mark.parametrize("change", CHANGES)
def test_after_each_change_a_start_injects_what_the_full_hook_would(
    setup: Setup, change: str
) -> None:
    host = "claude-code"
    setup.hook(host, "SessionStart", source="startup", session_id="a")
    before, quick = setup.hook(host, "SessionStart", source="startup", session_id="b")
    assert quick
    category = setup.layer / "DECISIONS.md"
    if change == "write":
        setup.cli("write", "--keyword", "cache", "The cache moved to redis.")
    elif change == "write to the other layer":
        setup.cli("write", "--layer", "user", "--keyword", "editor", "The user edits in vim.")
    elif change == "a repeat":
        setup.cli("write", "--keyword", "psql", "Postgres listens on port 5433 in staging.")
    elif change == "delete by hand":
        category.write_text(ROWS[: ROWS.index("<!--", 1)], "utf-8")  # the second one gone
    elif change == "an editor's save":
        text = category.read_text("utf-8").replace("tags: deploy", "tags: release")
        temp = category.with_suffix(".swp")
        temp.write_text(text, "utf-8")
        os.replace(temp, category)
    elif change.startswith("same size in place"):
        edit_in_place(category, "tags: deploy", "tags: reploy", keep_time="kept" in change)
    else:
        git = ["git", "-C", str(setup.root), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
        subprocess.run([*git, "commit", "-qm", "one"], check=True, capture_output=True)
        subprocess.run([*git, "checkout", "-qb", "other"], check=True, capture_output=True)
        category.write_text(ROWS.replace("tags: psql", "tags: postgres"), "utf-8")
        subprocess.run([*git, "commit", "-qam", "two"], check=True, capture_output=True)
        subprocess.run([*git, "checkout", "-q", "-"], check=True, capture_output=True)
        subprocess.run([*git, "checkout", "-q", "other"], check=True, capture_output=True)
    after, quick = setup.hook(host, "SessionStart", source="startup", session_id="c")
    if change == "same size in place, time kept":
        # Only the change time tells: the note is not believed. (The parse cache, keyed
        # by inode, size and modification time, may still hold the old rows: then the
        # full hook's answer is the old one too.)
        assert not quick
        return
    assert after == setup.fresh(host, source="startup")
    if change != "a repeat":
        assert after != before
    if change in ("write", "write to the other layer", "a repeat"):
        # The write brought the note up to date: the start after it is answered quickly.
        assert setup.hook(host, "SessionStart", source="startup", session_id="d") == (after, True)


def test_a_locked_layer_a_pending_pruning_and_a_job_to_tell_take_the_full_hook(
    setup: Setup,
) -> None:
    host = "claude-code"
    setup.hook(host, "SessionStart", source="startup", session_id="a")
    lock = setup.layer / ".lock"
    lock.write_text("", "utf-8")
    assert not setup.hook(host, "SessionStart", source="startup", session_id="b")[1]
    lock.unlink()
    setup.hook(host, "SessionStart", source="startup", session_id="b")
    assert setup.hook(host, "SessionStart", source="startup", session_id="b")[1]
    mark = setup.cache / "pi_memory/sessions/.pruned"
    os.utime(mark, (0, 0))
    assert not setup.hook(host, "SessionStart", source="startup", session_id="c")[1]
    assert mark.stat().st_mtime > 86_400  # the full hook pruned
    job = {
        "at": "2026-12-02T06:00:00+00:00", "host": host, "session": "z", "kind": "job",
        "event": "review", "layers": ["project"], "ids": ["x", "y"], "bytes": 0, "tokens": 0,
        "spent": 0, "ms": 5, "outcome": "ok", "note": "",
    }  # fmt: skip
    log = Path(setup.env["XDG_STATE_HOME"], "pi_memory/receipts/receipts.jsonl")
    with open(log, "a", encoding="ascii") as handle:
        handle.write(json.dumps(job, separators=(",", ":")) + "\n")
    out, quick = setup.hook(host, "SessionStart", source="startup", session_id="d")
    assert not quick
    assert json.loads(out)["systemMessage"] == "memory: learned 2"
    assert setup.hook(host, "SessionStart", source="startup", session_id="e")[1]


# -- what the module repeats, against the modules that own it -----------------------------------


def test_its_json_reads_and_writes_as_the_json_package_does() -> None:
    from pi_memory.hosts.quick_hook import Encoded, ascii_string, dumps, loads

    texts = [
        '{"a": "\\u00e9\\ud83d\\ude00", "b": [1, 2.5, -3e2, true, null], "c": {"d": "x\\ny"}}',
        '  {"cwd": "/tmp/a b", "n": NaN}\n',
        "[1, 2]",
        '[-Infinity, Infinity, 12345678901234567890, 1.0e-3, "\\"", ""]',
    ]
    for text in texts:
        assert repr(loads(text)) == repr(json.loads(text))
    for bad in ('{"a": 1} x', '{"a": }', "\ufeff{}", '{"a": "\x01"}'):
        with pytest.raises(json.JSONDecodeError):
            json.loads(bad)
        with pytest.raises(ValueError, match=r"\w"):
            loads(bad)
    value = {"frozen": "é\n\x7f\u2028<memory-auto>", "surfaced": ["a"], "n": 3, "w": None}
    assert dumps(value) == json.dumps(value, ensure_ascii=False)
    answer = {"id": 1, "r": {"t": ("é😀", 1.5e16, -0.0, False), "e": [], "o": {}}, "x": 10**20}
    assert dumps(answer, ascii_only=True) == json.dumps(answer)
    assert dumps(answer) == json.dumps(answer, ensure_ascii=False)
    for odd in ({1: "a key that is no string"}, [float("nan")], {"inf": float("inf")}, {"s": {1}}):
        with pytest.raises(ValueError, match=r"not a"):
            dumps(odd, ascii_only=True)
    assert ascii_string('é\x7f"\\') == json.dumps('é\x7f"\\')
    listed = '[{"name":"a"},  {"b": [1,2]}]'  # as written, spacing and all
    assert dumps({"tools": Encoded(listed)}, ascii_only=True) == '{"tools": ' + listed + "}"
    assert dumps([Encoded('"é"')]) == '["é"]'
    with pytest.raises(ValueError, match=r"not ASCII"):
        dumps([Encoded('"é"')], ascii_only=True)


def test_its_receipt_is_the_receipts_modules_line() -> None:
    from pi_memory import receipts
    from pi_memory.hosts import quick_hook

    for text, source in (("<memory-auto>\nindex é\n</memory-auto>", "startup"), ("", " re\nsume ")):
        line = quick_hook._receipt("codex", "s-1", text, 0.0, source).decode("ascii")
        outcome = receipts.OK if text else receipts.NOTHING
        made = receipts.made(
            receipts.HOOK, receipts.INJECT, host="codex", session="s-1", text=text,
            note=source, outcome=outcome,
        )  # fmt: skip
        ours = json.loads(line)
        assert line == receipts.encode(made._replace(at=ours["at"], ms=ours["ms"]))
    assert quick_hook.stamp(1_700_000_000.5) == receipts.stamp(1_700_000_000.5)


def test_its_session_state_follows_the_moments_of_a_session() -> None:
    from pi_memory.hosts.quick_hook import safe_session, start_state
    from pi_memory.session import moments, state
    from pi_memory.session.dirs import session_key

    states = [
        {},
        {"frozen": "old", "reinject": "fresh", "watch": 40, "surfaced": ["x", 3], "turns": 2},
        {"frozen": None, "reinject": "bogus", "watch": True, "surfaced": "x"},
        {"frozen": "", "reinject": "frozen", "watch": -1},
    ]
    for data in states:
        for source in ("startup", "resume", "clear", "compact", ""):
            for at_prompt in (False, True):
                for replays in (False, True):
                    loaded = state.decode(data)
                    after, text = moments.started(
                        loaded,
                        source=source,
                        injection="new",
                        injected_index_at_prompt=at_prompt,
                        replays_context=replays,
                    )
                    before, now = state.encode(loaded), state.encode(after)
                    changes = {k: v for k, v in now.items() if before.get(k) != v}
                    assert start_state(data, source, "new", at_prompt, replays) == (changes, text)
    for sid in ("55443e9c-7173", "a/b", ".x", "x" * 101, "é", "ok_1.2"):
        assert safe_session(sid) == (session_key(sid) == sid)


def test_its_environment_names_the_launcher_the_package_does() -> None:
    from pi_memory.hosts.quick_hook import launcher_argv
    from pi_memory.launcher import this_package

    assert launcher_argv() == this_package().argv


def test_a_search_that_reorders_the_index_leaves_the_next_start_its_answer(setup: Setup) -> None:
    host = "claude-code"
    setup.cli("search", "deploy")  # the layer's first recall log: a new file, the full work
    setup.hook(host, "SessionStart", source="startup", session_id="a")
    for n, word in enumerate(("psql", "psql", "deploy", "psql")):
        setup.cli("search", word)
        out, quick = setup.hook(host, "SessionStart", source="startup", session_id=f"b{n}")
        assert quick, n
        assert out == setup.fresh(host, source="startup"), n
        setup.hook(host, "SessionStart", source="startup", session_id="a")


def test_a_search_that_credits_nothing_leaves_the_next_start_its_answer(setup: Setup) -> None:
    """A search whose words name no keyword of its hits writes no recall log: the note
    the last start left still answers the next one."""
    host = "claude-code"
    setup.hook(host, "SessionStart", source="startup", session_id="a")
    recalls = setup.layer / RECALLS_FILE
    for n, words in enumerate((["rsync"], ["postgres", "5433"], ["nothing-matches-this"])):
        setup.cli("search", *words)
        assert not recalls.exists(), words
        out, quick = setup.hook(host, "SessionStart", source="startup", session_id=f"b{n}")
        assert quick, words
        assert out == setup.fresh(host, source="startup"), words
        setup.hook(host, "SessionStart", source="startup", session_id="a")


def test_the_tool_list_is_answered_from_the_note_while_the_configuration_holds(
    setup: Setup,
) -> None:
    def listed() -> tuple[str, int]:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-S", str(PACKAGE), "tool", "--list"],
            cwd=setup.root, env=setup.env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return done.stdout, done.stderr.count("pi_memory.agent_tools")

    full, loaded = listed()
    assert loaded  # no note yet
    setup.hook("pi", "SessionStart", source="startup")
    assert listed() == (full, 0)
    config = setup.home / ".pi/agent/memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"layout": "files", "trustedProjects": []}), "utf-8")
    changed, loaded = listed()
    assert loaded
    assert changed != full  # the files layout offers its own tool


def test_a_pi_start_asked_for_the_tools_answers_them_first_quickly_or_not(setup: Setup) -> None:
    # pi's extension registers the tools and keeps the index from one process.
    listed = subprocess.run(
        [sys.executable, "-S", str(PACKAGE), "tool", "--list"],
        cwd=setup.root, env=setup.env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    full, quick = setup.hook("pi", "SessionStart", source="startup", session_id="a", tools=True)
    assert not quick
    tools, _, index = full.partition("\n")
    assert tools + "\n" == listed
    assert index.startswith("<memory-auto>\n") and "#psql" in index
    out, quick = setup.hook("pi", "SessionStart", source="startup", session_id="b", tools=True)
    assert quick
    assert out == full
    assert setup.hook("pi", "SessionStart", source="startup", session_id="c") == (index, True)
    assert setup.state("b") == setup.state("a") == setup.state("c")
    # Another host's answer is its envelope alone: only pi's extension asks.
    out, _ = setup.hook("codex", "SessionStart", source="startup", session_id="d", tools=True)
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"].startswith("<memory-auto>")


def test_a_write_renders_the_note_again_keeping_its_tool_list(setup: Setup) -> None:
    def listed() -> str:
        done = subprocess.run(
            [sys.executable, "-S", str(PACKAGE), "tool", "--list"],
            cwd=setup.root, env=setup.env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return done.stdout

    host = "claude-code"
    setup.cli("write", "--file", "DECISIONS.md", "--keyword", "deploy", "Deploys wait for CI.")
    setup.hook(host, "SessionStart", source="startup")  # the layer's files all there now
    full = listed()
    note = next((setup.cache / "pi_memory/hooks").rglob("*.json"))
    block = json.loads(note.read_text("utf-8"))["quick"]
    written = subprocess.run(
        [sys.executable, "-X", "importtime", "-S", str(PACKAGE), "write", "--file", "DECISIONS.md",
         "--keyword", "psql", "Staging's Postgres takes connections on port 5433."],
        cwd=setup.root, env=setup.env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "pi_memory.hosts.note_render" in written.stderr  # the note was rendered again
    assert "pi_memory.hosts.lifecycle" not in written.stderr  # and nothing else of a hook
    assert "pi_memory.agent_tools.registry" not in written.stderr  # its tool list was kept
    assert "pi_memory.receipts" not in written.stderr  # and its block's facts, but its guards
    assert json.loads(note.read_text("utf-8"))["quick"] == block
    assert "#psql (2)" in json.loads(note.read_text("utf-8"))["injection"]
    assert json.loads(note.read_text("utf-8"))["quick"]["tools"] == full.strip()
    out, quick = setup.hook(host, "SessionStart", source="startup", session_id="s2")
    assert quick
    assert out == setup.fresh(host, source="startup")
    assert listed() == full


def test_how_far_the_notices_looked_is_read_as_the_full_hook_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_memory.hosts import hook_receipts, quick_hook

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    told = hook_receipts.told_file()
    told.parent.mkdir(parents=True, exist_ok=True)
    contents = (
        b"00000000000000001234 00000000000000000567\n", b"12 34", b" 7\t8 \n", b"-1 5",
        b"1 2 3", b"12", b"", "１２ ３４".encode(), b"\xff\xfe 1", b"0x1 2", b"1_0 2",
    )  # fmt: skip
    for content in contents:
        told.write_bytes(content)
        assert quick_hook._told(str(told)) == hook_receipts._told(), content
    told.unlink()
    assert quick_hook._told(str(told)) == hook_receipts._told() == (0, 0)


def test_a_notes_name_is_the_64_bit_fnv_1a_hash_of_its_directory() -> None:
    from pi_memory.hosts.quick_hook import note_stem

    # The published test vectors of FNV-1a 64 (the empty string, "a", "foobar").
    assert note_stem("") == "cbf29ce484222325"
    assert note_stem("a") == "af63dc4c8601ec8c"
    assert note_stem("foobar") == "85944171f73967e8"
    named = {note_stem(f"/home/me/project-{n}") for n in range(1000)}
    assert len(named) == 1000
    assert note_stem("/srv/caf\xe9") != note_stem("/srv/cafe")
    assert len(note_stem("/srv/\udcff")) == 16  # undecodable bytes as the OS gave them
