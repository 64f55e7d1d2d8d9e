"""End to end with the real Gemini CLI 0.61.0, offline: the memory learns, returns and surfaces.

    python tools/e2e_gemini.py [--e2e DIR] [--fakes ../shared/hosts] [--keep]

Installs ``@google/gemini-cli`` at a pinned version from npm into DIR unless
it is there (``$E2E``, default ``$TMPDIR/pi_memory_e2e``), then re-runs itself
inside ``unshare -n`` (loopback only) and drives ``gemini -p`` against
``tools/fake_gemini.py`` on 127.0.0.1 (``GOOGLE_GEMINI_BASE_URL``,
``GEMINI_API_KEY``, ``security.auth.selectedType: gemini-api-key``; the
project is trusted in ``~/.gemini/trustedFolders.json``). The hooks and the
MCP server come from ``python -S pi_memory install gemini`` in a private
HOME; this package's own model (the review, the side-query) is the shared
``fake_anthropic.py``.

Scenario, each step one ``gemini -p`` process:

1. session 1 states a fact over two turns; at SessionEnd a
   detached worker runs the review and the fake proposes the memory;
2. session 2's first request carries the memory's keyword in the index
   (BeforeAgent's context, after the prompt: see ``pi_memory/hosts/gemini.py``);
3. a prompt about the fact gets the memory surfaced through BeforeAgent, and
   the resumed session's history still holds the earlier prompt;
4. within session 2 the injected index is byte-identical in every request,
   and an uneventful turn neither re-injects it nor starts a handoff (Gemini
   fires PreCompress before every request, compressing or not, so install
   does not hook it: each BeforeAgent marks the chat recording instead);
5. a compression (``/compress`` is not reachable in ``-p``: the fake reports
   990,000 prompt tokens on a tool call, so the CLI compresses before the next
   request) is followed by the handoff, and the next request has the index;
6. session 3's review runs through the ``gemini-cli`` provider, a real
   ``gemini -p`` against the same fake: its request carries the review's
   system prompt and the redacted conversation, the reply becomes a memory,
   the child session runs none of the user's hooks (a probe hook stays
   silent for it) and gets no tools; a call with a tool gets its
   ``<tool_call>`` reply parsed, with the token counts gemini reports;
7. no worker process outlives its job;
8. ``log --json`` holds the receipts of sessions 1 and 2 (the review and the
   memory it wrote, the index, the memory surfaced), and session 2 showed the
   person ``memory: learned N`` (``Hook system message: …`` on stderr), which
   no request to the model carries.

Exit 0: every check passed; 1: one failed; 2: the run was impossible (one
``e2e: NOT RUN — reason`` line).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.e2e_common import (
    Checks,
    Fake,
    client,
    default_e2e,
    default_fakes,
    ensure_clients,
    git_project,
    in_private_network,
    learned_receipts,
    logged,
    not_run,
    package,
    workdir,
)

FACT = "The staging database listens on port 5433, not the default 5432."
#: What the fake answers to our review request (it carries ``<existing-memories>``).
REVIEW_REPLY = (
    "===MEMORY===\nLAYER: project\nFILE: CONVENTIONS\nKEYWORD: staging-db\nBODY:\n" + FACT + "\n"
)
#: Gemini CLI wraps each hook's additionalContext in this tag, its ``<`` and ``>`` escaped.
HOOK_CONTEXT = re.compile(r"<hook_context>(.*?)</hook_context>", re.DOTALL)
SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"disableAutoUpdate": True},
}


def main_requests(fake: Fake) -> list[dict[str, Any]]:
    """The CLI's conversation requests (not its routing, compression or other side calls)."""
    return [
        r
        for r in fake.requests()
        if "streamGenerateContent" in r["path"] and "state_snapshot" not in system_text(r)
    ]


def compressions(fake: Fake) -> int:
    """The CLI's summary requests (its compression prompt asks for a ``<state_snapshot>``)."""
    return sum("state_snapshot" in system_text(r) for r in fake.requests())


def hook_texts(content: dict[str, Any]) -> list[str]:
    """The hook contexts in one turn, unescaped: what our hooks printed."""
    found = []
    for part in content.get("parts", []):
        found.extend(html.unescape(t) for t in HOOK_CONTEXT.findall(part.get("text", "")))
    return found


def contexts(request: dict[str, Any]) -> list[str]:
    """Every hook context in the request's user turns, in order."""
    users = [c for c in request["body"].get("contents", []) if c.get("role") == "user"]
    return [text for content in users for text in hook_texts(content)]


def last_turn_contexts(request: dict[str, Any]) -> list[str]:
    users = [c for c in request["body"].get("contents", []) if c.get("role") == "user"]
    return hook_texts(users[-1]) if users else []


def handoffs(fake: Fake) -> int:
    """Handoff extractions this package asked its model for (its prompt says why)."""
    return sum("about to be compacted" in json.dumps(r.get("body")) for r in fake.requests())


def system_text(request: dict[str, Any]) -> str:
    system = (request.get("body") or {}).get("systemInstruction") or {}
    return "".join(p.get("text", "") for p in system.get("parts", []))


def declared(request: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers the model."""
    tools = (request.get("body") or {}).get("tools") or []
    return [f.get("name", "") for t in tools for f in t.get("functionDeclarations") or []]


def wait_for(check: Callable[[], Any], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def workers_alive() -> list[str]:
    """Command lines of this package's background workers still running."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or proc.name == str(os.getpid()):
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "run_worker" in cmdline:
            found.append(cmdline)
    return found


def overhead(
    gemini: Callable[..., Any], durations: list[float], uninstall: Callable[[], Any]
) -> str:
    """``gemini -p`` in a new session, three times with this package installed and three
    without: the medians, in one line."""
    import statistics

    def median(count: int) -> float:
        durations.clear()
        for _ in range(count):
            gemini("hello")
        return statistics.median(durations)

    with_it = median(3)
    uninstall()
    without = median(3)
    return (
        f"gemini -p in a new session: {with_it:.2f} s with the hooks and MCP server "
        f"installed, {without:.2f} s without (medians of 3)"
    )


#: Session 3's fact; its review runs through the ``gemini-cli`` provider.
VAULT_FACT = "The deploy key lives in the vault under secret/deploy, never in the repository."
VAULT_REPLY = (
    "===MEMORY===\nLAYER: project\nFILE: CONVENTIONS\nKEYWORD: deploy-key\nBODY:\n"
    + VAULT_FACT
    + "\n"
)
#: A secret said in session 3: the child's request must carry it redacted.
OLD_KEY = "AKIAQ3EGRV7ZX2K5W4PT"
CHILD_MODEL = "gemini-child-model"
#: Thinking tokens the fake reports for the tool call reply; they count as output.
THOUGHTS = 50


def review_through_gemini(
    checks: Checks,
    gemini: Callable[..., Any],
    *,
    cli_fake: Fake,
    env: dict[str, str],
    gemini_bin: Path,
    stored: Callable[[str], bool],
) -> None:
    """Session 3: the review job runs ``gemini -p`` itself (the ``gemini-cli`` provider)
    against the same fake, and that child session runs none of the user's hooks."""
    from pi_memory.config.parse import parse_config
    from pi_memory.model.client import chat
    from pi_memory.model.errors import ModelUnavailable
    from pi_memory.model.types import Message, ToolSpec

    home = Path(env["HOME"])
    wait_for(lambda: not workers_alive(), 30)  # session 2's last jobs keep their model
    config = home / ".pi" / "agent" / "memory.json"
    memory = json.loads(config.read_text("utf-8"))
    memory["providers"]["geminicli"] = {"api": "gemini-cli", "command": str(gemini_bin)}
    memory["extractMemories"] = {"model": f"geminicli/{CHILD_MODEL}"}
    config.write_text(json.dumps(memory, indent=2), "utf-8")
    settings_file = home / ".gemini" / "settings.json"
    plain = settings_file.read_text("utf-8")
    probe = home / "probe-hook.jsonl"  # a hook of the user's own, on every event
    hook = {"type": "command", "command": f"cat >> {probe}; echo >> {probe}"}
    settings = json.loads(plain)
    for event in ("SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd"):
        settings["hooks"].setdefault(event, []).append({"hooks": [hook]})
    settings_file.write_text(json.dumps(settings, indent=2), "utf-8")
    cli_fake.script([{"match": "<existing-memories>", "text": VAULT_REPLY}])
    before = len(cli_fake.requests())
    try:
        said = f"Remember this: {VAULT_FACT} The old key {OLD_KEY} was revoked."
        first = gemini(said, "--output-format", "json")
        sid3 = json.loads(first.stdout or "{}").get("session_id", "")
        gemini("Good, that is how the deploy scripts should read it.", "--resume", sid3)
        checks.check(
            "session 3's review ran through the real gemini -p (gemini-cli) and stored its memory",
            wait_for(lambda: stored("secret/deploy"), 120),
        )
        wait_for(lambda: not workers_alive(), 30)
    finally:
        settings_file.write_text(plain, "utf-8")
    review_prompt = "You maintain a long-term memory for a coding agent."
    child = [r for r in cli_fake.requests()[before:] if system_text(r).startswith(review_prompt)]
    sent = json.dumps([r["body"] for r in child])
    checks.check(
        "the child's request has the review's system prompt, the model asked for, no tools",
        bool(child) and all(CHILD_MODEL in r["path"] and not declared(r) for r in child),
        f"{len(child)} child requests: {[r['path'] for r in child]}",
    )
    checks.check(
        "the child's request carries the conversation redacted",
        "<existing-memories>" in sent and "[REDACTED:aws-key]" in sent and OLD_KEY not in sent,
    )
    events = [
        json.loads(line)
        for line in (probe.read_text("utf-8") if probe.exists() else "").splitlines()
        if line.strip()
    ]
    sessions = {str(e.get("session_id")) for e in events}
    checks.check(
        "the user's probe hook ran in session 3 and never in the job's own gemini session",
        sessions == {sid3} and "hook_context" not in sent,
        f"{len(events)} probe events in sessions {sorted(sessions)}, session 3 is {sid3}",
    )
    loaded = parse_config(memory, cwd=str(home), home=str(home))
    tool = ToolSpec("memory", "Change the memory store.", {"type": "object"})
    call_text = '<tool_call>{"name": "memory", "arguments": {"action": "list"}}</tool_call>'
    reply_script = {"match": "what is stored?", "text": "Checking.\n" + call_text}
    cli_fake.script([{**reply_script, "thoughts_tokens": THOUGHTS}])
    try:
        reply = chat(
            loaded.config, "extractMemories", [Message("user", "what is stored?")],
            system="You keep the memory.", tools=[tool], job="extract", background=False,
            env=env, timeout=180,
        )  # fmt: skip
    except ModelUnavailable as err:
        checks.check("a tool call in gemini's reply is parsed", False, str(err)[:300])
        return
    calls = [(c.name, dict(c.arguments)) for c in reply.tool_calls]
    checks.check(
        "a tool call in gemini's reply is parsed, with gemini's token counts",
        calls == [("memory", {"action": "list"})]
        and reply.text == "Checking."
        and reply.tokens_in > 0
        and reply.tokens_out > THOUGHTS,  # the reply's own tokens and the thinking
        f"{calls} {reply.text!r} in={reply.tokens_in} out={reply.tokens_out}",
    )
    print(f"e2e: gemini-cli tool call: {reply.tokens_in} tokens in, {reply.tokens_out} out")


def receipts_and_notice(
    checks: Checks,
    project: Path,
    env: dict[str, str],
    *,
    sessions: tuple[str, str],
    shown: str,
    memory_id: str,
    cli_fake: Fake,
) -> None:
    """``log --json`` holds what sessions 1 and 2 did; session 2's start showed the person
    ``memory: learned N`` (Gemini CLI prints a hook's ``systemMessage`` on stderr as
    ``Hook system message: …``) and no request to the model carries it."""
    sid1, sid2 = sessions
    receipts = logged(project, env)
    learned = learned_receipts(receipts, sid1)
    checks.check("log --json holds session 1's review receipt, naming the memory", bool(learned))
    n = sum(len(r["ids"]) for r in learned_receipts(receipts))
    notice = f"memory: learned {n}"
    checks.check(
        f"session 2 showed the person '{notice}' (Gemini CLI's hook system message)",
        f"Hook system message: {notice}" in shown,
        shown[-400:],
    )
    checks.check(
        "the notice never reached the model",
        not any(notice in json.dumps(r["body"]) for r in main_requests(cli_fake)),
    )
    mine = [r for r in receipts if r["session"] == sid2]
    checks.check(
        "log --json holds session 2's receipts: the index (with the first prompt) and the "
        "memory surfaced",
        any(r["event"] == "inject" and r["bytes"] > 0 for r in mine)
        and any(r["event"] == "surface" and memory_id in r["ids"] for r in mine),
        str([(r["event"], r["outcome"]) for r in mine]),
    )


def node_ok() -> bool:
    """Gemini CLI 0.61.0 asks for Node >= 20."""
    if shutil.which("node") is None:
        return False
    done = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    major = done.stdout.strip().lstrip("v").split(".")[0]
    return major.isdigit() and int(major) >= 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--e2e", type=Path, default=default_e2e())
    parser.add_argument("--fakes", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    fakes = args.fakes or default_fakes()
    e2e = args.e2e.resolve()
    if not node_ok():
        raise not_run("Gemini CLI 0.61.0 needs Node >= 20 on PATH")
    ensure_clients(e2e, "gemini")
    in_private_network()

    gemini_bin = client(e2e, "gemini")
    work = workdir(e2e, "gemini")
    home = work / "home"
    (home / ".gemini").mkdir(parents=True)
    (work / "tmp").mkdir()
    project = git_project(work / "project")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE_"))}
    env = {k: v for k, v in env.items() if not k.startswith(("PI_MEMORY", "XDG_", "ANTHROPIC_"))}
    cli_fake = Fake(Path(__file__).with_name("fake_gemini.py"), work / "fake_gemini.jsonl")
    model_fake = Fake(fakes / "fake_anthropic.py", work / "fake_anthropic.jsonl")
    env.update(
        HOME=str(home),
        TMPDIR=str(work / "tmp"),
        GEMINI_API_KEY="dummy",
        GOOGLE_GEMINI_BASE_URL=cli_fake.url,
        NO_PROXY="127.0.0.1,localhost",
        PI_MEMORY_AUTO_REVIEW_TURNS="2",
    )
    checks = Checks()
    try:
        settings = home / ".gemini" / "settings.json"
        settings.write_text(json.dumps(SETTINGS, indent=2), "utf-8")
        trusted = {str(project): "TRUST_FOLDER"}
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted), "utf-8")
        memory = {
            "defaults": {"model": "fake/claude-fake"},
            "providers": {"fake": {"baseUrl": model_fake.url, "api": "anthropic"}},
        }
        config = home / ".pi" / "agent" / "memory.json"
        config.parent.mkdir(parents=True)
        config.write_text(json.dumps(memory, indent=2), "utf-8")
        out = package("install", "gemini", cwd=project, env=env)
        written = json.loads(settings.read_text("utf-8"))
        checks.check(
            "install gemini adds the three hooks and keeps the settings",
            set(written.get("hooks", {})) == {"SessionStart", "BeforeAgent", "SessionEnd"}
            and written.get("security") == SETTINGS["security"],
            out,
        )
        model_fake.script([{"match": "<existing-memories>", "text": REVIEW_REPLY}])
        durations: list[float] = []

        def gemini(*argv: str) -> subprocess.CompletedProcess[str]:
            started = time.monotonic()
            done = subprocess.run(
                [str(gemini_bin), "-p", *argv],
                cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
            durations.append(time.monotonic() - started)
            if done.returncode != 0:
                print(f"e2e: gemini -p {argv[0]!r} exited {done.returncode}: "
                      f"{done.stderr.strip()[-400:]}", flush=True)  # fmt: skip
            return done

        def stored() -> list[dict[str, Any]]:
            done = subprocess.run(
                [sys.executable, "-S", str(Path(__file__).resolve().parent.parent / "pi_memory"),
                 "search", "--json", "staging", "database", "port"],
                cwd=project, env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                return []
            return [r for r in json.loads(done.stdout)["results"] if "5433" in r["body"]]

        first = gemini(f"Note for later: {FACT}", "--output-format", "json")
        sid1 = json.loads(first.stdout or "{}").get("session_id", "")
        gemini("Please keep that port in mind for the deploy scripts.", "--resume", sid1)
        checks.check(
            "session 1 left a memory (the background review wrote it)", wait_for(stored, 60)
        )
        memories = stored()
        memory_id = memories[0]["id"] if memories else "none"
        idle = wait_for(lambda: not workers_alive(), 30)
        checks.check("no worker outlived session 1's jobs", idle)
        handoffs_before = handoffs(model_fake)

        before = len(main_requests(cli_fake))
        second = gemini("What should I check before deploying?", "--output-format", "json")
        sid2 = json.loads(second.stdout or "{}").get("session_id", "")
        session2 = main_requests(cli_fake)[before:]
        checks.check(
            "session 2's first request carries the memory in the index",
            bool(session2) and any("#staging-db" in t for t in contexts(session2[0])),
        )

        model_fake.script(
            [{"match": "=== Memory Files ===", "text": json.dumps({"selected_files": [memory_id]})}]
        )
        before = len(main_requests(cli_fake))
        gemini("Which port does the staging database listen on?", "--resume", sid2)
        asked = main_requests(cli_fake)[before:]
        surfaced = [t for r in asked for t in last_turn_contexts(r) if "<relevant_memories>" in t]
        checks.check(
            "a later prompt got the memory surfaced through BeforeAgent",
            any("port 5433" in t for t in surfaced),
        )
        receipts_and_notice(
            checks, project, env, sessions=(sid1, sid2), shown=second.stderr,
            memory_id=memory_id, cli_fake=cli_fake,
        )  # fmt: skip
        said = [
            p.get("text", "")
            for c in (asked[0]["body"].get("contents", []) if asked else [])
            if c.get("role") == "user"
            for p in c.get("parts", [])
        ]
        checks.check(
            "the resumed session's history still holds the earlier prompt",
            any("What should I check before deploying?" in t for t in said),
        )
        turn_contexts = [last_turn_contexts(r) for r in asked]
        checks.check(
            "an uneventful turn does not inject the index twice",
            all(sum("<memory-auto>" in t for t in turn) == 1 for turn in turn_contexts),
            json.dumps(turn_contexts)[:600],
        )
        indexes = {
            t.split("\n\n<relevant_memories>")[0]
            for r in session2 + asked
            for t in contexts(r)
            if "<memory-auto>" in t
        }
        checks.check(
            "the injected index is byte-identical across the requests of session 2",
            len(indexes) == 1,
            f"{len(indexes)} distinct index texts",
        )
        wait_for(lambda: not workers_alive(), 30)
        handed = handoffs(model_fake)
        checks.check(
            "no handoff started while nothing was compressed",
            handed == handoffs_before,
            f"{handed - handoffs_before} handoff requests",
        )

        print("e2e: /compress is not reachable in gemini -p (0.61.0 sends it to the model as "
              "text): the fake reports 990,000 prompt tokens instead", flush=True)  # fmt: skip
        cli_fake.script([{
            "match": "list the files",
            "call": {"name": "list_directory", "args": {"dir_path": "."}},
            "prompt_tokens": 990_000,
        }])  # fmt: skip
        squeezed = compressions(cli_fake)
        gemini("Please list the files here.", "--resume", sid2)
        checks.check("the CLI compressed the conversation", compressions(cli_fake) > squeezed)
        checks.check(
            "the compression was followed by the handoff extraction",
            wait_for(lambda: handoffs(model_fake) > handed, 60),
        )
        before = len(main_requests(cli_fake))
        gemini("Thanks, that is all.", "--resume", sid2)
        after = main_requests(cli_fake)[before:]
        back = [t for t in last_turn_contexts(after[0]) if "#staging-db" in t] if after else []
        checks.check("after the compression the index is injected again, once", len(back) == 1)
        learned_from = [
            json.dumps(r["body"])
            for r in model_fake.requests()
            if "<conversation>" in json.dumps(r["body"])
        ]
        checks.check(
            "the review and the handoff never read the injected context as the user's words",
            bool(learned_from)
            and not any("memory-auto" in b or "hook_context" in b for b in learned_from),
        )

        def has(needle: str) -> bool:
            done = subprocess.run(
                [sys.executable, "-S", str(Path(__file__).resolve().parent.parent / "pi_memory"),
                 "search", "--json", "vault", "deploy", "key"],
                cwd=project, env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            results = json.loads(done.stdout)["results"] if done.returncode == 0 else []
            return any(needle in r["body"] for r in results)

        review_through_gemini(
            checks, gemini, cli_fake=cli_fake, env=env, gemini_bin=gemini_bin, stored=has
        )
        idle = wait_for(lambda: not workers_alive(), 30)
        checks.check("no background worker outlived its job", idle)
        uninstall = lambda: package("uninstall", "gemini", cwd=project, env=env)  # noqa: E731
        print(f"e2e: {overhead(gemini, durations, uninstall)}", flush=True)
    finally:
        cli_fake.stop()
        model_fake.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")
    return checks.summary()


if __name__ == "__main__":
    raise SystemExit(main())
