"""Claude Code: its hook event names and what it reads back from a hook.

Hooks are configured in ``settings.json``; every event sends ``session_id``,
``transcript_path``, ``cwd`` and ``hook_event_name`` on stdin. SessionStart
and UserPromptSubmit may answer ``hookSpecificOutput.additionalContext``
(whose ``hookEventName`` must equal the event, or the answer is rejected);
``systemMessage`` is shown to the user. Context past about 10,000 characters
is replaced by a preview, so ours stays below :data:`MAX_CONTEXT`.

``Stop`` is not hooked: each hook is a process the turn waits for, and the
next UserPromptSubmit does a turn end's work (the review every
``REVIEW_TURNS`` turns); SessionEnd's quit flush covers the last turn.

SessionStart is hooked for ``resume``, ``clear`` and ``compact`` only: a new
session's first UserPromptSubmit does the start's work and carries the index
(Claude Code spends tens of milliseconds on every hook it runs, whatever the
hook does). Both contexts reach the model in the same request, in the
``system`` entry after the prompt, and both stay in the session's history: a
resumed session replays them (2.1.332 leaves an unchanged SessionStart context
of a resume out), so a resume puts nothing in again.

SessionEnd is hooked ``"async": true``: its answer is never read, and it only
hands the quit flush to a detached process, so Claude Code need not wait for
it before it exits (2.1.332 starts it and exits at once; the hook finishes on
its own, a few tens of milliseconds later).
"""

from __future__ import annotations

from pi_memory.hosts.host import AFTER_FIRST_PROMPT, Host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Final

    from pi_memory.hosts.install_plan import Edit, Plan
    from pi_memory.native import NativeFile
    from pi_memory.transcripts import Reader


def transcript() -> Reader:
    from pi_memory.transcripts.claude_code import READER

    return READER


def install(plan: Plan) -> list[Edit]:
    """``settings.json`` (hooks, permission rules) and ``~/.claude.json`` (the MCP server);
    a project's ``.claude/settings.local.json`` (this machine's: the commands name its
    interpreter; Claude Code does not honour a shared settings.json's permission rules in
    an untrusted checkout) and ``.mcp.json``."""
    from pi_memory.hosts import install as edit
    from pi_memory.hosts.install_plan import Edit

    launcher = plan.launcher
    rules = [f"mcp__{edit.SERVER}", f"Bash({launcher.command('tool')}:*)"]

    def settings(data: dict[str, Any]) -> dict[str, Any]:
        edit.set_hooks(data, HOST, launcher)
        # The MCP tools, and the command line a model may run through Bash instead.
        edit.add_to_list(data, ("permissions", "allow"), rules)
        if not plan.user:  # a project's .mcp.json server runs only once enabled
            edit.add_to_list(data, ("enabledMcpjsonServers",), [edit.SERVER])
        return data

    def unsettings(data: dict[str, Any]) -> dict[str, Any]:
        edit.drop_hooks(data)
        edit.drop_from_list(data, ("permissions", "allow"), _our_rule)
        edit.drop_from_list(data, ("enabledMcpjsonServers",), lambda s: s == edit.SERVER)
        return data

    if not plan.user:
        mcp_file = plan.loc.root / ".mcp.json"
    elif plan.loc.env.get(HOST.config_variable):
        mcp_file = plan.config_dir / ".claude.json"  # the variable moves this file too
    else:
        mcp_file = plan.loc.home / ".claude.json"
    server = edit.server(launcher, type="stdio", env={})
    return [
        Edit(
            plan.config_dir / "settings.json"
            if plan.user
            else plan.loc.root / ".claude" / "settings.local.json",
            "json",
            settings,
            unsettings,
        ),
        Edit(
            mcp_file,
            "json",
            lambda d: edit.with_(d, edit.set_server, server),
            lambda d: edit.with_(d, edit.drop_server),
        ),
    ]


def _our_rule(rule: object) -> bool:
    from pi_memory.hosts.install import SERVER, is_ours_tool

    if not isinstance(rule, str):
        return False
    return rule == f"mcp__{SERVER}" or (rule.startswith("Bash(") and is_ours_tool(rule[5:-1]))


def memory_folder_name(directory: Path) -> str:
    """The folder under ``projects/`` of a project: its absolute path with every
    character but an ASCII letter or digit turned into ``-``."""
    import re

    return re.sub(r"[^A-Za-z0-9]", "-", str(directory))


def native_memory(config_dir: Path, root: Path, cwd: Path) -> list[NativeFile]:
    """Auto memory: ``projects/<project>/memory/`` (``MEMORY.md`` and one file per fact),
    for the repository's top level and, when it differs, the working directory."""
    from pi_memory.native.topic_files import folder

    names = dict.fromkeys(memory_folder_name(d) for d in (root, cwd))
    return [f for name in names for f in folder(config_dir / "projects" / name / "memory")]


HOST: Final = Host(
    name="claude-code",
    title="Claude Code",
    events={
        "start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "pre_compact": "PreCompact",
        "end": "SessionEnd",
    },
    context_events=("SessionStart", "UserPromptSubmit"),
    max_context=9_500,
    config_variable="CLAUDE_CONFIG_DIR",
    config_default=(".claude",),
    native_memory=native_memory,
    sessions=("projects/*/*.jsonl",),
    transcript=transcript,
    install=install,
    model_cli="claude",
    resume_replays_context=True,
    start_matchers=(AFTER_FIRST_PROMPT,),
    background_events=("SessionEnd",),
)
