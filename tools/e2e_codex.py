"""End to end with the real Codex CLI 0.171.0, offline: the memory learns, returns and surfaces.

    python tools/e2e_codex.py [--e2e DIR] [--fakes ../shared/hosts] [--keep] [--measure N]

Installs ``@openai/codex`` at its pinned version from npm into ``$E2E`` when
missing, re-runs itself inside ``unshare -n`` (loopback only) and drives
``codex exec`` against ``tools/fake_responses.py`` (the Responses API, which a
``[model_providers.fake]`` with ``wire_api = "responses"`` speaks) in a private
``CODEX_HOME``. The hooks come from ``python -S pi_memory install codex`` and
are trusted the way ``codex`` records a person's trust (see
:func:`trust_hooks`): ``codex exec`` silently skips hooks nobody trusted. The
memory's own model (review, surfacing side-query) is the shared
``fake_openai.py`` (Chat Completions), scripted to answer as a model would.

Scenario, each step one ``codex exec`` process:

1. session 1 states a fact over two turns (``exec``, then ``exec resume``);
   at SessionEnd a detached worker runs the review, and the memory is
   written to the project layer;
2. session 2's first request carries the memory's keyword in the index;
3. a later prompt about the fact gets the memory surfaced through
   UserPromptSubmit;
4. within session 2 the injected index is byte-identical in every request
   and each request's input starts with the previous one's (the prompt
   prefix, and with it the provider's cache, survives);
5. ``codex exec`` has no ``/compact``, so the next resume sets
   ``model_auto_compact_token_limit`` below what the fake reports: Codex
   compacts before the turn, PreCompact starts the handoff job and the index
   is injected again after the compaction, once;
6. the MCP server ``install codex`` configures hands the model its tools;
7. session 3's review runs through the ``codex-cli`` provider, a real
   ``codex exec`` against the same fake, whose own session runs none of the
   hooks (its request carries no index);
8. an index in Chinese, three bytes a character, still arrives whole;
9. a memory Claude Code kept in its auto-memory folder, brought over with
   ``import claude-code``, is in the next Codex session's index, and its text
   is surfaced when a prompt needs it;
10. Codex warned about no hook setting (its ``--json`` output shows such
   warnings as ``error`` items), and no worker process is left behind;
11. ``log --json`` holds the receipts of sessions 1 and 2 (the review and what it
    wrote, the index injected, the memory surfaced, the handoff scheduled and
    run). ``codex exec`` prints a hook's name but not its ``systemMessage``, so
    the notice itself is checked in the other hosts' scripts.

An answer Codex's schema refuses (an unknown key) is dropped without a word
in ``codex exec``: the checks that the context reached the model are what
prove every answer was accepted.

Exit 0: every check passed; 1: one failed; 2: the run was impossible (no
npm, no unshare, no fake server), said in one line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.e2e import FACT, REVIEW_REPLY, stored, wait_for, workers_alive
from tools.e2e_common import (
    REPO,
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
    package,
    workdir,
)

#: Top-level keys first: ``install codex`` appends its tables after them.
CONFIG = """\
model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "FAKE_RESPONSES_KEY"

[analytics]
enabled = false

"""


def responses(fake: Fake) -> list[dict[str, Any]]:
    """The model requests Codex sent (the fake's log, controls excluded)."""
    return [r for r in fake.requests() if r["path"].split("?")[0].endswith("/responses")]


def of_session(requests: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    return [r for r in requests if r["headers"].get("session-id") == session_id]


def kind(request: dict[str, Any]) -> str:
    """``turn`` or ``compaction``, as Codex labels the request in its turn metadata."""
    meta = json.loads(request["headers"].get("x-codex-turn-metadata") or "{}")
    return str(meta.get("request_kind", ""))


def input_texts(request: dict[str, Any]) -> list[str]:
    """The text of every message item of a request's ``input``, in order."""
    texts = []
    for item in request["body"].get("input", []):
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(p.get("text", "") for p in content if isinstance(p, dict))
    return texts


def job_ran(home: Path, session_id: str, job: str) -> bool:
    """Whether the package's log records a ``job`` job (``handoff``, ``review``) of the session."""
    log = home / ".pi" / "agent" / "memory-auto" / "pi_memory.log"
    text = log.read_text("utf-8", "replace") if log.exists() else ""
    return (
        re.search(rf"worker: job {job}-\d+ of session {re.escape(session_id)}:", text) is not None
    )


def trust_hooks(binary: Path, project: Path, env: dict[str, str]) -> int:
    """Trust the installed hooks as a person does in ``codex``: ask Codex's app server for
    each hook's key and hash (``hooks/list``), and record them in ``config.toml``
    (``[hooks.state."KEY"] trusted_hash``), where Codex keeps a person's trust.
    Returns how many hooks were trusted."""
    proc = subprocess.Popen(
        [str(binary), "app-server"], cwd=project, env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    stdin, stdout = proc.stdin, proc.stdout
    if stdin is None or stdout is None:
        raise SystemExit("codex app-server has no pipes")

    def call(number: int, method: str, params: dict[str, Any]) -> Any:
        message = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        for line in stdout:
            answer = json.loads(line)
            if answer.get("id") == number:
                return answer.get("result")
        return None

    try:
        call(1, "initialize", {"clientInfo": {"name": "e2e_codex", "version": "0"}})
        stdin.write(json.dumps({"jsonrpc": "2.0", "method": "initialized"}) + "\n")
        listed = call(2, "hooks/list", {"cwds": [str(project)]}) or {}
    finally:
        proc.kill()
        proc.wait()
    hooks = [h for entry in listed.get("data", []) for h in entry.get("hooks", [])]
    lines = [
        f"\n[hooks.state.{json.dumps(h['key'])}]\ntrusted_hash = {json.dumps(h['currentHash'])}\n"
        for h in hooks
        if h.get("trustStatus") != "trusted"
    ]
    with open(Path(env["CODEX_HOME"]) / "config.toml", "a", encoding="utf-8") as config:
        config.write("".join(lines))
    return len(lines)


class Codex:
    def __init__(self, binary: Path, project: Path, env: dict[str, str]) -> None:
        self.binary, self.project, self.env = binary, project, env
        self.hook_errors: list[str] = []

    def exec(self, *args: str) -> str:
        """``codex exec --json ARGS``; returns the session (thread) id."""
        done = subprocess.run(
            [str(self.binary), "exec", *args[:-1], "--json", "--skip-git-repo-check", args[-1]],
            cwd=self.project, env=self.env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            print(f"codex exec exited {done.returncode}: {done.stderr.strip()[-400:]}")
        thread = ""
        for line in done.stdout.splitlines():
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("type") == "thread.started":
                thread = event.get("thread_id", "")
            item = event.get("item") or {}
            message = str(item.get("message", ""))
            trust = "bypass-hook-trust" in message  # the flag's own notice (--measure)
            if item.get("type") == "error" and "hook" in message.lower() and not trust:
                self.hook_errors.append(message)
        return thread


def setup(work: Path, responses_url: str, openai_url: str) -> tuple[dict[str, str], Path]:
    home = work / "home"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    project = git_project(work / "project")
    (codex_home / "config.toml").write_text(CONFIG.format(url=responses_url), "utf-8")
    memory = {
        "defaults": {"model": "fake/fake-model"},
        "providers": {"fake": {"baseUrl": f"{openai_url}/v1", "api": "openai"}},
    }
    config = home / ".pi" / "agent" / "memory.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps(memory, indent=2), "utf-8")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "CODEX_", "PI_MEMORY", "XDG_"))
    }
    env.update(
        HOME=str(home),
        CODEX_HOME=str(codex_home),
        TMPDIR=str(work / "tmp"),
        PYTHONPATH=str(REPO),
        FAKE_RESPONSES_KEY="dummy",
        NO_PROXY="127.0.0.1,localhost",
        PI_MEMORY_AUTO_REVIEW_TURNS="2",
    )
    (work / "tmp").mkdir()
    return env, project


def measure(codex: Codex, runs: int) -> str:
    """Median wall time of ``codex exec`` with our hooks, with ``python -c pass`` as every
    hook (the interpreter alone), and with ``--disable hooks``; per hook, the difference."""
    import statistics
    import time

    hooks_file = Path(codex.env["CODEX_HOME"]) / "hooks.json"
    ours = hooks_file.read_text("utf-8")
    data = json.loads(ours)
    for groups in data["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                handler["command"] = f"{sys.executable} -c pass"
    bare = json.dumps(data)
    times: dict[str, list[float]] = {"ours": [], "bare": [], "none": []}
    try:
        for i in range(runs * 3):
            variant = ("ours", "bare", "none")[i % 3]
            hooks_file.write_text(bare if variant == "bare" else ours, "utf-8")
            began = time.perf_counter()
            # The interpreter-only hooks are not the trusted ones: no variant asks for trust.
            flags = ("--dangerously-bypass-hook-trust",)
            flags += ("--disable", "hooks") if variant == "none" else ()
            codex.exec(*flags, f"Prompt {i}.")
            times[variant].append(time.perf_counter() - began)
    finally:
        hooks_file.write_text(ours, "utf-8")
    median = {k: statistics.median(v) for k, v in times.items()}
    # UserPromptSubmit (which starts a new session) and SessionEnd: two hook processes per
    # exec (SessionStart is hooked for resume, clear and compact).
    per_hook = {k: (median[k] - median["none"]) * 1000 / 2 for k in ("ours", "bare")}
    return (
        f"codex exec median {median['ours']:.2f} s with the hooks, {median['bare']:.2f} s"
        f" with `python -c pass` hooks, {median['none']:.2f} s without ({runs} runs each):"
        f" {per_hook['ours']:.0f} ms per hook, {per_hook['bare']:.0f} ms for the bare"
        f" interpreter ({per_hook['ours'] / max(per_hook['bare'], 1e-3):.2f}×)"
    )


#: The fact of session 3, whose review runs through the ``codex-cli`` provider.
VAULT_FACT = "The deploy key lives in the vault under secret/deploy, never in the repository."
VAULT_REPLY = (
    "===MEMORY===\nLAYER: project\nFILE: CONVENTIONS\nKEYWORD: deploy-key\nBODY:\n"
    + VAULT_FACT
    + "\n"
)


def found(env: dict[str, str], project: Path, words: list[str], needle: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "pi_memory", "search", "--json", *words],
        cwd=project, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    results = json.loads(done.stdout)["results"] if done.returncode == 0 else []
    return any(needle in r["body"] for r in results)


def receipts_of_session_2(
    checks: Checks, project: Path, env: dict[str, str], sid2: str, memory_id: str
) -> None:
    """``log --json`` holds what session 2's hooks did, each once. ``codex exec`` prints a
    hook's name and not its ``systemMessage``, so the notice is checked in the other hosts."""
    mine = logged(project, env, "--session", sid2)
    events = [(r["kind"], r["event"]) for r in mine]
    injected = [r for r in mine if r["event"] == "inject" and r["bytes"] > 0]
    checks.check(
        "log --json holds session 2's injected index, with its bytes and tokens",
        bool(injected) and all(r["tokens"] > 0 for r in injected),
        str(events),
    )
    checks.check(
        "log --json holds the surfacing receipt, naming the memory",
        any(r["event"] == "surface" and memory_id in r["ids"] for r in mine),
        str(events),
    )
    handoff = ("--session", sid2, "--event", "handoff")
    checks.check(
        "log --json holds the handoff: scheduled by PreCompact, then run",
        ("hook", "schedule") in events
        and wait_for(lambda: bool(logged(project, env, *handoff)), 30),
        str(events),
    )


def review_through_codex(
    checks: Checks, codex: Codex, model: Fake, env: dict[str, str], project: Path
) -> None:
    """Session 3: the memory's review job runs ``codex exec`` itself (the ``codex-cli``
    provider) against the same fake, and that child session runs none of our hooks."""
    wait_for(lambda: not workers_alive(), 30)  # session 2's last jobs keep their model
    config = Path(env["HOME"]) / ".pi" / "agent" / "memory.json"
    memory = json.loads(config.read_text("utf-8"))
    memory["providers"]["codexcli"] = {"api": "codex-cli", "command": str(codex.binary)}
    memory["extractMemories"] = {"model": "codexcli/default"}
    config.write_text(json.dumps(memory, indent=2), "utf-8")
    model.script([{"match": "<existing-memories>", "text": VAULT_REPLY}])
    before = len(responses(model))
    sid3 = codex.exec(f"Remember this: {VAULT_FACT}")
    codex.exec("resume", sid3, "Good, that is how the deploy scripts should read it.")
    checks.check(
        "session 3's review ran through the real codex exec (codex-cli) and stored its memory",
        wait_for(lambda: found(env, project, ["vault", "deploy", "key"], "secret/deploy"), 90)
        # Two turns, REVIEW_TURNS=2: the session's end hands them to the quit flush (no
        # third prompt says the second turn ended).
        and wait_for(lambda: job_ran(Path(env["HOME"]), sid3, "flush"), 30),
    )
    asked = [r for r in responses(model)[before:] if r["headers"].get("session-id") != sid3]
    review = [r for r in asked if any("<existing-memories>" in t for t in input_texts(r))]
    checks.check(
        "the job's own codex session ran none of our hooks (no index in its request)",
        bool(review) and not any("<memory-auto>" in t for r in review for t in input_texts(r)),
        f"{len(review)} review requests",
    )


#: A fact Claude Code remembered in its auto memory, imported into the store Codex reads.
CLAUDE_FACT = "Before a release run `make release-check`; the changelog must name the ticket."


def claude_memory_reaches_codex(
    checks: Checks, codex: Codex, fakes: tuple[Fake, Fake], env: dict[str, str], project: Path
) -> None:
    """Claude Code's auto memory of this project (``~/.claude/projects/<project>/memory/``)
    goes through ``import claude-code`` into the project layer; Codex's next session
    carries its keyword in the index and gets its text surfaced. ``fakes``: Codex's
    model and the memory's own."""
    model, memory_model = fakes
    name = re.sub(r"[^A-Za-z0-9]", "-", os.path.realpath(project))
    folder = Path(env["HOME"]) / ".claude" / "projects" / name / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(
        "- [Release checklist](release.md) — what a release needs\n", "utf-8"
    )
    (folder / "release.md").write_text(
        "---\nname: release-checklist\ndescription: what a release needs\ntype: project\n"
        f"---\n\n{CLAUDE_FACT}\n",
        "utf-8",
    )
    out = package("import", "claude-code", cwd=project, env=env)
    again = package("import", "claude-code", cwd=project, env=env)
    done = subprocess.run(
        [sys.executable, "-m", "pi_memory", "search", "--json", "release", "changelog"],
        cwd=project, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    results = json.loads(done.stdout)["results"] if done.returncode == 0 else []
    imported = [m for m in results if "release-check" in m["body"]]
    checks.check(
        "import claude-code stored the auto memory once (a second run imports nothing)",
        len(imported) == 1 and "imported 0 new memories" in again,
        out + again,
    )
    memory_id = imported[0]["id"] if imported else "none"
    memory_model.script(
        [{"match": "=== Memory Files ===", "text": json.dumps({"selected_files": [memory_id]})}]
    )
    sid = codex.exec("What does a release need in this project?")
    asked = of_session(responses(model), sid)
    texts = [t for r in asked for t in input_texts(r)]
    checks.check(
        "the imported memory is in the Codex session's index and surfaced to the model",
        any("<memory-auto>" in t and "#release-checklist" in t for t in texts)
        and any("<relevant_memories>" in t and "make release-check" in t for t in texts),
        f"{len(asked)} requests",
    )


def chinese_index_arrives_whole(
    checks: Checks, codex: Codex, model: Fake, env: dict[str, str], project: Path
) -> None:
    """Codex cuts a hook's context past 2,500 four-byte tokens to a head and a tail: 1,200
    memories a layer with Chinese keywords (about 10 KB of index at three bytes a character)
    must still arrive whole."""
    signs = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥"
    entries = "\n".join(
        f"<!-- mid: 20261001-{i:04x} | t: 2026-10-01 10:00:00 | p: p | src: user | tags: "
        f"部署清单{signs[i // 484]}{signs[i // 22 % 22]}{signs[i % 22]} -->\n第{i}条：先查端口。\n"
        for i in range(1200)
    )
    for directory, name in (
        (project / ".pi" / "agent" / "memory-auto", "DECISIONS"),
        (Path(env["HOME"]) / ".pi" / "agent" / "memory-auto", "LESSONS"),
    ):
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"{name}.md").write_text(f"# {name.title()}\n\n{entries}", "utf-8")
    sid = codex.exec("Anything I should know before the release?")
    first = of_session(responses(model), sid)[:1]
    index = [t for r in first for t in input_texts(r) if "<memory-auto>" in t]
    checks.check(
        "a Chinese index of 1,200 memories a layer reaches Codex whole (not cut to a preview)",
        len(index) == 1 and "#部署清单" in index[0] and "truncated output" not in index[0],
        f"{len(index[0].encode('utf-8')) if index else 0} bytes",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--e2e", type=Path, default=default_e2e())
    parser.add_argument("--fakes", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--measure", type=int, default=0, metavar="N", help="also time N execs with and without"
    )
    args = parser.parse_args()
    fakes = args.fakes or default_fakes()
    ensure_clients(args.e2e, "codex")
    in_private_network()

    work = workdir(args.e2e, "codex")
    model = Fake(REPO / "tools" / "fake_responses.py", work / "fake_responses.jsonl")
    memory_model = Fake(fakes / "fake_openai.py", work / "fake_openai.jsonl")
    checks = Checks()
    try:
        env, project = setup(work, model.url, memory_model.url)
        out = package("install", "codex", cwd=project, env=env)
        checks.check("install codex writes hooks.json", "hooks.json" in out, out)
        trusted = trust_hooks(client(args.e2e, "codex"), project, env)
        checks.check("Codex lists the five hooks for trust", trusted == 5, str(trusted))
        memory_model.script([{"match": "<existing-memories>", "text": REVIEW_REPLY}])
        codex = Codex(client(args.e2e, "codex"), project, env)

        sid1 = codex.exec(f"Note for later: {FACT}")
        codex.exec("resume", sid1, "Please keep that port in mind for the deploy scripts.")
        checks.check(
            "session 1 left a memory (the background review wrote it)",
            wait_for(lambda: bool(stored(env, project)), 60),
        )
        memories = stored(env, project)
        memory_id = memories[0]["id"] if memories else "none"
        checks.check(
            "log --json holds session 1's review receipt, naming the memory it wrote",
            wait_for(lambda: bool(learned_receipts(logged(project, env), sid1)), 30),
        )

        sid2 = codex.exec("What should I check before deploying?")
        session2 = of_session(responses(model), sid2)
        first = input_texts(session2[0]) if session2 else []
        checks.check(
            "session 2's first request carries the memory in the index",
            any("<memory-auto>" in t and "#staging-db" in t for t in first),
            f"{len(session2)} requests",
        )

        spaces = (
            {t.get("name"): t for t in session2[0]["body"].get("tools", [])} if session2 else {}
        )
        ours = {t.get("name") for t in spaces.get("mcp__pi_memory", {}).get("tools", [])}
        checks.check(
            "the MCP server's tools reach the model (namespace mcp__pi_memory)",
            {"memory_search", "memory_write"} <= ours,
            str(sorted(n for n in ours if n)),
        )

        memory_model.script(
            [{"match": "=== Memory Files ===", "text": json.dumps({"selected_files": [memory_id]})}]
        )
        before = len(responses(model))
        codex.exec("resume", sid2, "Which port does the staging database listen on?")
        asked = of_session(responses(model)[before:], sid2)
        surfaced = [t for r in asked for t in input_texts(r) if "<relevant_memories>" in t]
        checks.check(
            "a later prompt got the memory surfaced through UserPromptSubmit",
            any("port 5433" in t for t in surfaced),
            f"{len(asked)} requests",
        )

        session2 = of_session(responses(model), sid2)
        indexes = [[t for t in input_texts(r) if "<memory-auto>" in t] for r in session2]
        checks.check(
            "the injected index is byte-identical in every request of session 2",
            len(session2) >= 2 and all(i == indexes[0] and len(i) == 1 for i in indexes),
            f"{[len(i) for i in indexes]} index texts per request",
        )
        inputs = [r["body"].get("input", []) for r in session2]
        grows = all(b[: len(a)] == a for a, b in zip(inputs, inputs[1:]))
        checks.check("each request of session 2 starts with the previous one's input", grows)

        # A context limit below what the fake reports: the next turn compacts first.
        before = len(responses(model))
        limit = "model_auto_compact_token_limit=5000"
        codex.exec("-c", limit, "resume", sid2, "Thanks, that is all.")
        after = of_session(responses(model)[before:], sid2)
        kinds = [kind(r) for r in after]
        checks.check("Codex compacted session 2 before the next turn", "compaction" in kinds, kinds)
        resumed = [r for r in after[kinds.index("compaction") :] if kind(r) == "turn"]
        again = [[t for t in input_texts(r) if "<memory-auto>" in t] for r in resumed]
        checks.check(
            "after the compaction the index is injected again, once",
            bool(again) and all(len(i) == 1 and "#staging-db" in i[0] for i in again),
            f"{[len(i) for i in again]} index texts per request",
        )
        checks.check(
            "PreCompact started the handoff job",
            wait_for(lambda: job_ran(Path(env["HOME"]), sid2, "handoff"), 30),
        )
        receipts_of_session_2(checks, project, env, sid2, memory_id)
        if args.measure:  # before session 3 makes every quit flush run a codex exec
            print(f"e2e: {measure(codex, args.measure)}")
        claude_memory_reaches_codex(checks, codex, (model, memory_model), env, project)
        review_through_codex(checks, codex, model, env, project)
        chinese_index_arrives_whole(checks, codex, model, env, project)
        checks.check(
            "Codex warned about no hook setting",
            not codex.hook_errors,
            "; ".join(codex.hook_errors),
        )
        checks.check(
            "no background worker outlived its job", wait_for(lambda: not workers_alive(), 30)
        )
    finally:
        model.stop()
        memory_model.stop()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return checks.summary()


if __name__ == "__main__":
    raise SystemExit(main())
