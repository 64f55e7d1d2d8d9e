"""End to end with real pi 1.6.0, offline: install, index injected as text, tools write memories.

    E2E=/srv/e2e bash ../shared/hosts/install_clients.sh pi     # once: Node 22 and pi from npm
    python tools/e2e_pi.py [--e2e /srv/e2e] [--fakes ../shared/hosts]

1. ``python -S pi_memory install pi`` copies the extension into a fresh HOME.
2. A first session: the fake model calls ``memory_write``; the memory lands in
   the project's store, and the request carried the index as plain text
   (``<memory-auto>`` …), not a JSON envelope.
3. A second session sees the new memory in its index; continuing it injects
   nothing again (the prompt prefix stays byte-identical).
4. The ``session_search`` tool finds the first session by its content.
5. ``log --json`` holds the injected index's receipt of each session; with
   ``notice: all``, a session in ``pi --mode rpc`` (a UI) shows the person
   ``memory: index, N tokens`` through the extension's ``ctx.ui.notify``, and
   no request to the model carries it.
6. ``uninstall pi`` removes the extension.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    logged,
    package,
    workdir,
)

MODELS = {
    "providers": {
        "fake": {
            "baseUrl": "",
            "api": "openai-completions",
            "apiKey": "dummy",
            "models": [
                {
                    "id": "fake-model",
                    "name": "Fake Model",
                    "contextWindow": 128000,
                    "maxTokens": 4096,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                }
            ],
        }
    }
}
SETTINGS = {
    "defaultProvider": "fake",
    "defaultModel": "fake-model",
    "defaultProjectTrust": "always",
    "enableInstallTelemetry": False,
    "quietStartup": True,
}


def texts(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every message the client sent."""
    out = []
    for message in request.get("body", {}).get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append((message.get("role", ""), content or ""))
    return out


def chat_requests(fake: Fake) -> list[dict[str, Any]]:
    return [r for r in fake.requests() if r.get("path", "").endswith("/chat/completions")]


def rpc_notices(pi_bin: Path, project: Path, env: dict[str, str], prompt: str) -> list[str]:
    """One prompt in ``pi --mode rpc`` (a UI: the extension's ``ctx.ui.notify`` reaches the
    client as an ``extension_ui_request``); the notices the person was shown."""
    import time

    proc = subprocess.Popen(
        [str(pi_bin), "--mode", "rpc"], cwd=project, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    shown: list[str] = []
    if proc.stdin is None or proc.stdout is None:
        return shown
    try:
        proc.stdin.write(json.dumps({"type": "prompt", "message": prompt, "id": "c1"}) + "\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("type") == "extension_ui_request" and event.get("method") == "notify":
                shown.append(str(event.get("message", "")))
            if event.get("type") == "agent_settled":
                break
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return shown


def notice_in_the_ui(
    checks: Checks, pi_bin: Path, project: Path, env: dict[str, str], fake: Fake
) -> None:
    """With ``notice: all`` the session start's line reaches pi's UI through the extension
    (``ctx.ui.notify``) and the log holds the receipt it speaks of; the model never gets it."""
    config = Path(env["HOME"]) / ".pi" / "agent" / "memory.json"
    config.write_text(json.dumps({"notice": "all"}), "utf-8")
    shown = rpc_notices(pi_bin, project, env, "a session with a UI")
    injected = [r for r in logged(project, env, "--host", "pi", "--event", "inject") if r["bytes"]]
    line = f"memory: index, {injected[-1]['tokens']} tokens" if injected else "(no receipt)"
    checks.check(f"pi's UI showed the person '{line}' (ctx.ui.notify)", line in shown, str(shown))
    checks.check(
        "the notice never reached the model",
        not any(line in json.dumps(r["body"]) for r in chat_requests(fake)),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--e2e", type=Path, default=default_e2e())
    parser.add_argument("--fakes", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    fakes = args.fakes or default_fakes()
    node_bin = client(args.e2e, "pi", 0).parent
    pi_bin = client(args.e2e, "pi")
    ensure_clients(args.e2e, "pi")
    in_private_network()

    work = workdir(args.e2e, "pi")
    home = work / "home"
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    project = git_project(work / "project")
    env = {
        "PATH": f"{node_bin}:{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
        "TMPDIR": str(args.e2e / "tmp"),
    }
    fake = Fake(fakes / "fake_openai.py", work / "fake_openai.jsonl")
    checks = Checks()
    try:
        MODELS["providers"]["fake"]["baseUrl"] = f"http://127.0.0.1:{fake.port}/v1"
        (agent / "models.json").write_text(json.dumps(MODELS))
        (agent / "settings.json").write_text(json.dumps(SETTINGS))

        out = package("install", "pi", cwd=project, env=env)
        extension = agent / "extensions" / "pi_memory.ts"
        checks.check("install pi writes the extension", extension.is_file(), out)
        package("write", "--keyword", "seeded", "Seeded before the session.", cwd=project, env=env)

        def pi(*argv: str) -> str:
            proc = subprocess.run(
                [str(pi_bin), *argv],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
            return proc.stdout

        body = "Deploys go through rsync with --delete."
        call = json.dumps({"body": body, "keyword": "rsync"})
        out = pi("-p", f"CALL_TOOL memory_write {call}")
        checks.check("the model's memory_write ran", "TOOL_RESULT_SEEN: Saved [" in out, out)
        stored = project / ".pi/agent/memory-auto/CONVENTIONS.md"
        checks.check(
            "the memory is on disk",
            stored.exists() and body in stored.read_text("utf-8"),
        )
        first = chat_requests(fake)[0]
        injected = [t for role, t in texts(first) if t.startswith("<memory-auto>")]
        checks.check(
            "the index reached the model as text", len(injected) == 1 and "#seeded" in injected[0]
        )
        checks.check(
            "no JSON envelope reached the model",
            "hookSpecificOutput" not in json.dumps(first["body"]),
        )
        tools = [t["function"]["name"] for t in first["body"].get("tools", [])]
        checks.check(
            "memory_search and memory_write are pi tools",
            {"memory_search", "memory_write"} <= set(tools),
            str(tools),
        )

        before = len(chat_requests(fake))
        pi("-p", "a new session")
        second = chat_requests(fake)[before]
        injected = [t for role, t in texts(second) if t.startswith("<memory-auto>")]
        checks.check(
            "the next session's index holds the new memory",
            len(injected) == 1 and "#rsync" in injected[0],
        )

        before = len(chat_requests(fake))
        pi("-p", "--continue", "and one more prompt")
        third = chat_requests(fake)[before]
        count = sum(t.startswith("<memory-auto>") for role, t in texts(third))
        checks.check("a continued session is not injected twice", count == 1, str(count))

        query = json.dumps({"query": "rsync --delete"})
        out = pi("-p", f"CALL_TOOL session_search {query}")
        checks.check(
            "session_search finds the first session",
            "TOOL_RESULT_SEEN: " in out and "past session" in out and "pi  " in out,
            out,
        )

        sessions = {r["session"] for r in logged(project, env, "--host", "pi", "--event", "inject")}
        checks.check(
            "log --json holds an injected index receipt of each pi session",
            len(sessions) >= 3,
            str(sorted(sessions)),
        )
        notice_in_the_ui(checks, pi_bin, project, env, fake)

        package("uninstall", "pi", cwd=project, env=env)
        checks.check("uninstall pi removes the extension", not extension.exists())
    finally:
        fake.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")
    return checks.summary()


if __name__ == "__main__":
    raise SystemExit(main())
