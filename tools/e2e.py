"""End to end with the real Claude Code, offline: the memory learns, returns and surfaces.

    E2E=DIR python tools/e2e.py [--e2e DIR] [--fakes DIR] [--only recall|newcomer|inbox]

Takes Claude Code from ``$E2E`` (the pinned list in ``tools/e2e_common.py``;
installed there from npm if missing; default ``$TMPDIR/pi_memory_e2e``), then
re-runs itself inside a private network namespace (``unshare -n``: loopback
only) and drives ``claude -p`` against a fake Anthropic server on 127.0.0.1
(the shared host tools' ``fake_anthropic.py``), with this package's hooks installed for
SessionStart (resume, clear and compact), UserPromptSubmit, PreCompact and SessionEnd
(as ``install`` does: a new session's first prompt does its start, the next prompt
does a turn end's work, SessionEnd runs ``async``) and a ``memory.json`` whose
model is that same fake server.

Scenario, each step one ``claude -p`` process:

1. session 1 states a fact over two turns; at SessionEnd a detached
   worker runs the review and the fake, answering as a model would, proposes
   the memory, which is written to the project layer;
2. session 2's first request carries the memory's keyword in the index;
3. a later prompt about the fact gets the memory surfaced (the side-query's
   answer names it) through UserPromptSubmit;
4. after ``/compact`` the index is injected again;
5. within session 2 the injected index is byte-identical in every request;
   ``log --json`` holds the receipts of each step (the index injected, the review
   scheduled and what it wrote, the memory surfaced), and session 2's start showed
   the person ``memory: learned N`` (a ``hook_system_message``), which no request to
   the model carries;
6. a memory anchored to ``src/deploy.py`` turns suspect: a commit changes the
   file, a session's hooks (its start or a prompt) start the background check, and the next
   session's injected context says ``src/deploy.py changed since``;
7. a memory written in another worktree of the repository (``git worktree
   add``) is in the next session's injected index in the main checkout,
   while its file is only in that worktree;
8. no worker process is left behind.

Then, as a newcomer, in a fresh HOME with nothing written by hand:

9. ``install claude-code --model claude-cli/haiku`` writes the hooks and the
   model; a session states the fact, and the background review, run by
   ``claude -p`` itself (the ``claude-cli`` provider) against the same fake,
   writes the memory; the next session's first request carries it;
10. with ``extractMemories.approval: inbox`` the review's proposal is staged,
    not injected in the next session; ``inbox accept`` makes it a memory, and
    the session after that carries it.

Codex CLI and Gemini CLI have checks of their own: ``tools/e2e_codex.py``,
``tools/e2e_gemini.py``.
Exits 0 when every check passed, 1 when one failed, 2 when the run was
impossible (no npm, no unshare, install failed) — always with one visible line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.e2e_common import (
    Fake,
    claude_code_env,
    client,
    default_e2e,
    default_fakes,
    ensure_clients,
    in_private_network,
    learned_receipts,
    logged,
    workdir,
)

ROOT = Path(__file__).resolve().parent.parent
#: The events ``install claude-code`` hooks (Stop is not: the next prompt does its work).
EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd")
FACT = "The staging database listens on port 5433, not the default 5432."
#: What the fake answers to our review request (it carries ``<existing-memories>``).
REVIEW_REPLY = (
    "===MEMORY===\nLAYER: project\nFILE: CONVENTIONS\nKEYWORD: staging-db\nBODY:\n" + FACT + "\n"
)


def say(text: str) -> None:
    print(f"e2e: {text}", flush=True)


def messages(fake: Fake) -> list[dict[str, Any]]:
    """The model requests the fake logged (its script posts are not requests)."""
    return [r for r in fake.requests() if r["path"].startswith("/v1/messages")]


def setup(work: Path, fake_url: str) -> tuple[dict[str, str], Path, Path]:
    home, project = work / "home", work / "proj"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    from pi_memory.hosts.claude_code import HOST
    from pi_memory.hosts.host import AFTER_FIRST_PROMPT

    def group(event: str) -> dict[str, Any]:
        command = f"{sys.executable} -m pi_memory hook {event}"
        handler: dict[str, Any] = {"type": "command", "command": command, "timeout": 30}
        if event in HOST.background_events:
            handler["async"] = True  # as install writes it: Claude Code exits without waiting
        made: dict[str, Any] = {"hooks": [handler]}
        # As install writes it: a new session's first prompt does the start.
        return {"matcher": AFTER_FIRST_PROMPT, **made} if event == "SessionStart" else made

    settings = {"hooks": {event: [group(event)] for event in EVENTS}}
    settings_path = work / "settings.json"
    settings_path.write_text(json.dumps(settings, indent=2), "utf-8")
    memory = {
        "defaults": {"model": "fake/claude-fake"},
        "providers": {"fake": {"baseUrl": fake_url, "api": "anthropic"}},
    }
    config = home / ".pi" / "agent" / "memory.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps(memory, indent=2), "utf-8")
    env = claude_code_env(home, work / "tmp", fake_url)
    env.update(PYTHONPATH=str(ROOT), PI_MEMORY_AUTO_REVIEW_TURNS="2")
    (work / "tmp").mkdir()
    return env, project, settings_path


def wait_for(check: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def stored(env: dict[str, str], project: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "pi_memory", "search", "--json", "staging", "database", "port"],
        cwd=project, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return []
    return [r for r in json.loads(done.stdout)["results"] if "5433" in r["body"]]


def workers_alive() -> list[str]:
    """Command lines of this package's background workers still running."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "run_worker" in cmdline and str(os.getpid()) != proc.name:
            found.append(cmdline)
    return found


def of_session(requests: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    """Claude Code's own requests for one session (the worker's model calls are not)."""
    return [r for r in requests if r["headers"].get("x-claude-code-session-id") == session_id]


def notices(home: Path, session_id: str) -> list[str]:
    """What Claude Code showed the person of the hooks' ``systemMessage`` in one session:
    its transcript's ``hook_system_message`` entries (the UI shows them; the model does not
    get them)."""
    found = []
    for path in (home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"):
        for line in path.read_text("utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            attachment = entry.get("attachment") or {}
            if attachment.get("type") == "hook_system_message":
                found.append(str(attachment.get("content", "")))
    return found


def system_texts(request: dict[str, Any]) -> list[str]:
    """The texts of the ``role: system`` messages Claude Code puts hook context in."""
    texts = []
    for message in request["body"].get("messages", []):
        if message.get("role") != "system":
            continue
        content = message.get("content")
        blocks = [{"text": content}] if isinstance(content, str) else content or []
        texts.extend(b.get("text", "") for b in blocks if isinstance(b, dict))
    return texts


def scenario(claude: Path, work: Path, fake_script: Path) -> int:
    fake = Fake(fake_script, work / "fake_requests.jsonl")
    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        say(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    try:
        env, project, settings = setup(work, fake.url)
        fake.script([{"match": "<existing-memories>", "text": REVIEW_REPLY}])

        def claude_p(*args: str) -> subprocess.CompletedProcess[str]:
            done = subprocess.run(
                [str(claude), "-p", *args, "--settings", str(settings)],
                cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                say(f"claude -p {args[0]!r} exited {done.returncode}: {done.stderr.strip()[-300:]}")
            return done

        first = claude_p(f"Note for later: {FACT}", "--output-format", "json")
        sid1 = json.loads(first.stdout)["session_id"]
        claude_p("Please keep that port in mind for the deploy scripts.", "--resume", sid1)
        learned = wait_for(lambda: stored(env, project), 60)
        check(learned, "session 1 left a memory (the background review wrote it)")
        memories = stored(env, project)
        memory_id = memories[0]["id"] if memories else "none"
        check(
            wait_for(lambda: learned_receipts(logged(project, env), sid1), 30),
            "log --json holds session 1's review receipt, naming the memory it wrote",
        )
        receipts = logged(project, env)
        check(
            any(r["event"] == "inject" and r["session"] == sid1 for r in receipts)
            and any(r["event"] == "schedule" and r["session"] == sid1 for r in receipts),
            "log --json holds session 1's hook receipts (index injected, review scheduled)",
        )
        n = sum(len(r["ids"]) for r in learned_receipts(receipts))

        second = claude_p("What should I check before deploying?", "--output-format", "json")
        sid2 = json.loads(second.stdout)["session_id"]
        told = notices(Path(env["HOME"]), sid2)
        check(
            f"memory: learned {n}" in told,
            f"session 2's start showed the person 'memory: learned {n}' (shown: {told})",
        )
        session2 = of_session(messages(fake), sid2)
        first_texts = system_texts(session2[0]) if session2 else []
        check(
            any("#staging-db" in t for t in first_texts),
            "session 2's first request carries the memory in the index",
        )

        fake.script(
            [{"match": "=== Memory Files ===", "text": json.dumps({"selected_files": [memory_id]})}]
        )
        before = len(messages(fake))
        claude_p("Which port does the staging database listen on?", "--resume", sid2)
        asked = of_session(messages(fake)[before:], sid2)
        surfaced = [t for r in asked for t in system_texts(r) if "<relevant_memories>" in t]
        check(
            any("port 5433" in t for t in surfaced),
            "a later prompt got the memory surfaced through UserPromptSubmit",
        )
        check(
            any(memory_id in r["ids"] for r in logged(project, env, "--event", "surface")),
            "log --json holds the surfacing receipt, naming the memory",
        )

        claude_p("/compact", "--resume", sid2)
        before = len(messages(fake))
        claude_p("Thanks, that is all.", "--resume", sid2)
        after = of_session(messages(fake)[before:], sid2)
        check(
            any("#staging-db" in t for r in after for t in system_texts(r)),
            "after /compact the index is injected again",
        )

        indexes = {
            text
            for r in of_session(messages(fake), sid2)
            for text in system_texts(r)
            if "<memory-auto>" in text
        }
        check(len(indexes) <= 2, f"session 2 saw {len(indexes)} distinct index texts (≤ 2)")
        turns = [[t for t in system_texts(r) if "<memory-auto>" in t] for r in session2 + asked]
        check(
            all(turn == turns[0] for turn in turns) and bool(turns and turns[0]),
            "the injected index is byte-identical across the turns before the compaction",
        )
        check(
            not any("memory: learned" in json.dumps(r["body"]) for r in messages(fake)),
            "the notice never reached the model (no request carries it)",
        )
        suspect_scenario(claude_p, env, project, fake, check)
        worktree_scenario(claude_p, env, project, fake, check)
        check(wait_for(lambda: not workers_alive(), 30), "no background worker outlived its job")
    finally:
        fake.stop()
    if failures:
        say(f"FAILED {len(failures)} of the checks")
        return 1
    say("passed")
    return 0


GIT_ENV: dict[str, str] = {
    "GIT_AUTHOR_NAME": "e2e",
    "GIT_AUTHOR_EMAIL": "e2e@example.com",
    "GIT_COMMITTER_NAME": "e2e",
    "GIT_COMMITTER_EMAIL": "e2e@example.com",
}


def commit(project: Path, env: dict[str, str], relative: str, text: str) -> None:
    path = project / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    for args in (["add", relative], ["commit", "-q", "-m", f"change {relative}"]):
        subprocess.run(["git", "-C", str(project), *args], env={**env, **GIT_ENV}, check=True)


def suspect_scenario(
    claude_p: Any, env: dict[str, str], project: Path, fake: Fake, check: Any
) -> None:
    """An anchored memory turns suspect in the next session after a commit changes its file."""
    commit(project, env, "src/deploy.py", "def deploy_all():\n    return 3\n")
    body = "src/deploy.py retries the upload three times before it gives up."
    subprocess.run(
        [sys.executable, "-m", "pi_memory", "write", "--keyword", "deploy-retries", body],
        cwd=project, env=env, capture_output=True, check=True,
    )  # fmt: skip
    commit(project, env, "src/deploy.py", "def deploy_all():\n    return 5\n")

    def suspects() -> list[dict[str, Any]]:
        done = subprocess.run(
            [sys.executable, "-m", "pi_memory", "search", "--suspect", "--json"],
            cwd=project, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        return json.loads(done.stdout)["results"] if done.returncode == 0 else []

    check(not suspects(), "no memory is suspect before a session's hooks checked")
    claude_p("I committed a change to the deploy script.")
    checked = wait_for(suspects, 60)
    check(checked, "that session's hooks started the background check; it found the memory suspect")
    third = claude_p("How does the deploy retry?", "--output-format", "json")
    sid = json.loads(third.stdout)["session_id"] if third.returncode == 0 else ""
    first = of_session(messages(fake), sid)[:1]
    texts = [t for r in first for t in system_texts(r)]
    check(
        any("<suspect_memories>" in t and "src/deploy.py changed since" in t for t in texts),
        "the next session's injected index says the memory is suspect: src/deploy.py changed since",
    )


def newcomer_env(work: Path, fake_url: str, claude: Path) -> tuple[dict[str, str], Path]:
    """A fresh HOME and project, ``claude`` on PATH as a user has it, nothing configured."""
    home, project = work / "home", work / "proj"
    home.mkdir()
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = claude_code_env(home, work / "tmp", fake_url)
    path = os.pathsep.join([str(claude.parent), env.get("PATH", "")])
    env.update(PYTHONPATH=str(ROOT), PATH=path)
    (work / "tmp").mkdir()
    return env, project


def pi_memory(env: dict[str, str], project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_memory", *args],
        cwd=project, env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip


def inbox_items(env: dict[str, str], project: Path) -> list[dict[str, Any]]:
    done = pi_memory(env, project, "inbox", "list", "--json")
    items: list[dict[str, Any]] = json.loads(done.stdout)["items"] if done.returncode == 0 else []
    return items


def review_requests(fake: Fake) -> list[dict[str, Any]]:
    """The review's requests that Claude Code itself sent, for the small model install chose."""
    return [
        r
        for r in messages(fake)
        if "<existing-memories>" in json.dumps(r["body"])
        and r["headers"].get("user-agent", "").startswith("claude-cli/")
        and "haiku" in str(r["body"].get("model", ""))
    ]


def run_requests(fake: Fake, done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """The requests of one ``claude -p --output-format json`` run's session."""
    try:
        sid = json.loads(done.stdout)["session_id"]
    except (ValueError, KeyError):
        return []
    return of_session(messages(fake), sid)


def first_request_texts(fake: Fake, done: subprocess.CompletedProcess[str]) -> list[str]:
    """The hook texts of a ``claude -p --output-format json`` run's first request."""
    asked = run_requests(fake, done)
    return system_texts(asked[0]) if asked else []


def newcomer_scenario(claude: Path, work: Path, fake_script: Path, *, inbox: bool) -> int:
    """``install claude-code --model claude-cli/haiku`` in a fresh HOME, then a session;
    the review runs through ``claude -p``. With ``inbox``, the proposal waits for
    ``inbox accept`` first."""
    fake = Fake(fake_script, work / "fake_requests.jsonl")
    failures: list[str] = []
    mode = "inbox" if inbox else "newcomer"

    def check(ok: bool, what: str) -> None:
        say(("ok   " if ok else "FAIL ") + f"[{mode}] {what}")
        if not ok:
            failures.append(what)

    try:
        env, project = newcomer_env(work, fake.url, claude)
        installed = pi_memory(env, project, "install", "claude-code", "--model", "claude-cli/haiku")
        check(installed.returncode == 0, f"install said: {installed.stdout.strip()[-300:]}")
        config = Path(env["HOME"]) / ".pi" / "agent" / "memory.json"
        if inbox:  # the one setting a person who approves writes into install's file
            data = json.loads(config.read_text("utf-8"))
            data["extractMemories"] = {"approval": "inbox"}
            config.write_text(json.dumps(data, indent=2), "utf-8")
        fake.script([{"match": "<existing-memories>", "text": REVIEW_REPLY}])

        def claude_p(*args: str) -> subprocess.CompletedProcess[str]:
            done = subprocess.run(
                [str(claude), "-p", *args, "--output-format", "json"],
                cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                say(f"claude -p {args[0]!r} exited {done.returncode}: {done.stderr.strip()[-300:]}")
            return done

        first = claude_p(f"Note for later: {FACT}")
        sid1 = json.loads(first.stdout).get("session_id", "") if first.stdout else ""
        claude_p("Please keep that port in mind for the deploy scripts.", "--resume", sid1)
        check(
            wait_for(lambda: review_requests(fake), 90),
            "the background review asked the model through claude -p (claude-cli/haiku)",
        )
        if inbox:
            staged = wait_for(lambda: inbox_items(env, project), 60)
            check(staged, "the review's proposal waits in the inbox")
            check(not stored(env, project), "the proposal is not a memory before it is accepted")
            shown = pi_memory(env, project, "show").stdout
            check("inbox: 1 proposal waits" in shown, "show says a proposal waits in the inbox")
            later = run_requests(fake, claude_p("Which port does the staging database use?"))
            check(
                bool(later) and not any("5433" in json.dumps(r["body"]) for r in later),
                "the next session is shown the proposal nowhere (index or surfacing)",
            )
            items = inbox_items(env, project)
            accepted = pi_memory(
                env, project, "inbox", "accept", items[0]["id"] if items else "0000"
            )
            check(accepted.returncode == 0, f"inbox accept said: {accepted.stdout.strip()}")
        learned = wait_for(lambda: stored(env, project), 60)
        check(learned, "the memory is in the store")
        after = claude_p("What should I check before deploying?")
        check(
            any("#staging-db" in t for t in first_request_texts(fake, after)),
            "the next session's first request carries the memory in the index",
        )
        check(wait_for(lambda: not workers_alive(), 30), "no background worker outlived its job")
    finally:
        fake.stop()
    if failures:
        say(f"[{mode}] FAILED {len(failures)} of the checks")
        return 1
    say(f"[{mode}] passed")
    return 0


def worktree_scenario(
    claude_p: Any, env: dict[str, str], project: Path, fake: Fake, check: Any
) -> None:
    """A memory learned in another worktree reaches a session in the main checkout."""
    feature = project.parent / "feature"
    subprocess.run(
        ["git", "-C", str(project), "worktree", "add", "-q", "-b", "feature", str(feature)],
        env={**env, **GIT_ENV}, check=True,
    )  # fmt: skip
    body = "The feature branch builds with make release, not make all."
    subprocess.run(
        [sys.executable, "-m", "pi_memory", "write", "--keyword", "release-build", body],
        cwd=feature, env=env, capture_output=True, check=True,
    )  # fmt: skip
    layer = Path(".pi/agent/memory-auto")
    mine = any("make release" in p.read_text("utf-8") for p in (project / layer).glob("*.md"))
    check(not mine, "the worktree's memory is written to the worktree's own layer only")
    done = claude_p("What should I know about the build?", "--output-format", "json")
    sid = json.loads(done.stdout)["session_id"] if done.returncode == 0 else ""
    texts = [t for r in of_session(messages(fake), sid)[:1] for t in system_texts(r)]
    check(
        any(
            "from another worktree of this repository" in t and "#release-build" in t for t in texts
        ),
        "a session in the main checkout gets the other worktree's memory in its index",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--e2e", type=Path, default=default_e2e())
    parser.add_argument("--fakes", type=Path, default=None)
    parser.add_argument(
        "--only", choices=("recall", "newcomer", "inbox"), help="run one scenario (default: all)"
    )
    args = parser.parse_args(argv)
    fakes = (args.fakes or default_fakes()).resolve()
    e2e: Path = args.e2e.resolve()
    ensure_clients(e2e, "cc")
    in_private_network()
    claude, fake = client(e2e, "cc"), fakes / "fake_anthropic.py"
    results = []
    if args.only in (None, "recall"):
        results.append(scenario(claude, workdir(e2e, "cc"), fake))
    for name in ("newcomer", "inbox"):
        if args.only in (None, name):
            work = workdir(e2e, f"cc-{name}")
            results.append(newcomer_scenario(claude, work, fake, inbox=name == "inbox"))
    return max(results)


if __name__ == "__main__":
    raise SystemExit(main())
