"""End to end with real Claude Code, offline: the MCP server writes a memory the next session sees.

    python tools/e2e_mcp.py [--e2e DIR] [--fakes ../shared/hosts] [--keep]

Claude Code 2.1.332 is installed from npm into DIR when missing.

1. ``python -S pi_memory install claude-code`` in a fresh HOME: hooks, the
   permission rules and the ``pi_memory`` MCP server.
2. The fake model calls ``mcp__pi_memory__memory_write``; Claude Code runs it
   through ``python -m pi_memory mcp`` without asking, and the memory lands in
   the project's store.
3. A new session gets it in the index the SessionStart hook injects.
4. The same server given with ``--mcp-config`` (and no installed config) serves
   ``memory_search``.
5. ``uninstall claude-code`` restores the settings byte for byte.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.e2e_common import (
    REPO,
    Checks,
    Fake,
    claude_code_env,
    client,
    default_e2e,
    default_fakes,
    ensure_clients,
    git_project,
    in_private_network,
    package,
    workdir,
)

TOOL = "mcp__pi_memory__memory_write"


def body_text(request: dict[str, Any]) -> str:
    return json.dumps(request.get("body", {}), ensure_ascii=False)


def message_requests(fake: Fake) -> list[dict[str, Any]]:
    return [r for r in fake.requests() if r.get("path", "").startswith("/v1/messages?")]


def declared_tools(request: dict[str, Any]) -> list[str]:
    return [t.get("name", "") for t in request.get("body", {}).get("tools", [])]


def load_then_call(prompt: str, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "match": prompt,
            "tool_calls": [{"name": "ToolSearch", "arguments": {"query": f"select:{tool}"}}],
        },
        # Claude Code answers a ToolSearch with a tool_reference and this text.
        {"match": "Tool loaded", "tool_calls": [{"name": tool, "arguments": arguments}]},
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--e2e", type=Path, default=default_e2e())
    parser.add_argument("--fakes", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    fakes = args.fakes or default_fakes()
    claude = client(args.e2e, "cc")
    ensure_clients(args.e2e, "cc")
    in_private_network()

    work = workdir(args.e2e, "cc")
    home = work / "home"
    home.mkdir()
    project = git_project(work / "project")
    fake = Fake(fakes / "fake_anthropic.py", work / "fake_anthropic.jsonl")
    env = claude_code_env(home, args.e2e / "tmp", f"http://127.0.0.1:{fake.port}")
    env["DISABLE_BUG_COMMAND"] = "1"
    env.pop("PYTHONPATH", None)
    checks = Checks()

    def run(*argv: str) -> str:
        proc = subprocess.run(
            [str(claude), *argv],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        if proc.returncode != 0:
            print(proc.stdout, proc.stderr, file=sys.stderr)
        return proc.stdout

    try:
        package("install", "claude-code", cwd=project, env=env)
        package("write", "--keyword", "seeded", "Seeded before any session.", cwd=project, env=env)

        body = "Releases are tagged from main after CI passes."
        # As a model does: load the deferred MCP tool's schema, then call it.
        fake.script(
            load_then_call("remember the release rule", TOOL, {"body": body, "keyword": "release"})
        )
        out = run("-p", "remember the release rule")
        first = message_requests(fake)
        declared = [t for r in first for t in declared_tools(r)]
        checks.check("Claude Code loads the MCP tool", TOOL in declared, str(sorted(set(declared))))
        checks.check("the model's MCP memory_write ran", "TOOL_RESULT_SEEN: Saved [" in out, out)
        stored = project / ".pi/agent/memory-auto/CONVENTIONS.md"
        checks.check("the memory is on disk", stored.exists() and body in stored.read_text("utf-8"))
        checks.check(
            "the first prompt's hook injected the index",
            bool(first) and "#seeded" in body_text(first[0]),
        )

        before = len(message_requests(fake))
        run("-p", "a new session")
        later = message_requests(fake)[before:]
        checks.check(
            "the next session's index holds the new memory",
            bool(later) and "#release" in body_text(later[0]),
        )

        settings = home / ".claude" / "settings.json"
        installed = settings.read_bytes()
        package("uninstall", "claude-code", cwd=project, env=env)
        checks.check(
            "uninstall removes the settings install created",
            not settings.exists() and installed != b"",
        )
        state = json.loads((home / ".claude.json").read_text("utf-8"))
        checks.check(
            "uninstall removes the MCP server", "pi_memory" not in state.get("mcpServers", {})
        )

        config = work / "mcp.json"
        server = {
            "command": sys.executable,
            "args": ["-S", str(REPO / "pi_memory"), "mcp"],
        }
        config.write_text(json.dumps({"mcpServers": {"pi_memory": server}}))
        search = "mcp__pi_memory__memory_search"
        fake.script(load_then_call("what was the release rule", search, {"query": "release"}))
        out = run(
            "-p",
            "what was the release rule",
            "--mcp-config",
            str(config),
            "--allowedTools",
            search,
        )
        checks.check("--mcp-config serves memory_search", "Releases are tagged" in out, out)

        # The project scope: .claude/settings.local.json and .mcp.json in the repository.
        package("install", "claude-code", "--scope", "project", cwd=project, env=env)
        fact = "The staging host is reached through the bastion."
        prompt = "remember the staging rule"
        fake.script(load_then_call(prompt, TOOL, {"body": fact, "keyword": "staging"}))
        out = run("-p", prompt)
        checks.check(
            "a project-scope install serves the tools",
            "TOOL_RESULT_SEEN: Saved [" in out and fact in stored.read_text("utf-8"),
            out,
        )
        package("uninstall", "claude-code", "--scope", "project", cwd=project, env=env)
        checks.check(
            "a project-scope uninstall leaves no file behind",
            not (project / ".mcp.json").exists()
            and not (project / ".claude" / "settings.local.json").exists(),
        )
    finally:
        fake.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")
    return checks.summary()


if __name__ == "__main__":
    raise SystemExit(main())
