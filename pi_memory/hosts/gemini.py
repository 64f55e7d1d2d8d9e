"""Gemini CLI: its hook event names and output rules.

Events ``SessionStart``, ``BeforeAgent`` (each prompt), ``AfterAgent`` (the
turn ended), ``PreCompress`` and ``SessionEnd``; stdin carries
``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and
``timestamp``. Stdout must be JSON and nothing else. SessionStart's
``additionalContext`` becomes the first turn of the history, BeforeAgent's is
added to the turn (``-p``: SessionStart's is put in front of the prompt),
each wrapped in ``<hook_context>`` with ``<`` and ``>`` escaped. Hook
timeouts are in milliseconds (default 60,000). PreCompress (``auto``) comes
before every model request, compressing or not (0.61.0), and the CLI waits
for its hooks before it sends the request, so it is not hooked: each
BeforeAgent marks where the chat recording ends, and the next one (or
SessionEnd) counts a compression when the CLI began a new chat on it since
(``/compress`` does the same). Gemini sends no SessionStart after a
compression, so the index goes back in with the next prompt instead.

SessionStart itself injects nothing: in ``-p`` its context is put in front of
the prompt, and on ``--resume`` 0.61.0 leaves out of the history every user
turn that starts with ``<hook_context>``, so the person's earlier prompts
vanished from resumed sessions. The index (the session's frozen bytes) goes
with the first prompt instead, after it, as BeforeAgent's context. So
SessionStart is hooked for ``resume`` and ``clear`` only (a matcher each: 0.61.0
compares a matcher with the source whole): a new session's first BeforeAgent
does the start's work as well.

``AfterAgent`` is not hooked: the next BeforeAgent does a turn end's work
(settling a compression, the review every ``REVIEW_TURNS`` turns), and
SessionEnd settles the last turn's compression and hands the turn to the quit
flush.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_memory.hosts.host import Host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Final

    from pi_memory.hosts.install_plan import Edit, Plan
    from pi_memory.native import NativeFile
    from pi_memory.transcripts import Reader


def sends(payload: Mapping[str, object]) -> bool:
    """Gemini CLI sends a ``timestamp``; Claude Code, which may too, a ``permission_mode``."""
    return "timestamp" in payload and "permission_mode" not in payload


def transcript() -> Reader:
    from pi_memory.transcripts.gemini import READER

    return READER


def install(plan: Plan) -> list[Edit]:
    """``settings.json`` (hooks, the MCP server), in the configuration directory or a
    project's ``.gemini/``."""
    from pi_memory.hosts import install as edit
    from pi_memory.hosts.install_plan import Edit

    def settings(data: dict[str, Any]) -> dict[str, Any]:
        edit.set_hooks(data, HOST, plan.launcher)
        edit.set_server(data, edit.server(plan.launcher, trust=True))
        return data

    def unsettings(data: dict[str, Any]) -> dict[str, Any]:
        edit.drop_hooks(data)
        edit.drop_server(data)
        return data

    folder = plan.config_dir if plan.user else plan.loc.root / ".gemini"
    # Gemini CLI strips comments from its settings before it parses them: keep them.
    return [Edit(folder / "settings.json", "jsonc", settings, unsettings)]


def native_memory(config_dir: Path, root: Path, cwd: Path) -> list[NativeFile]:
    """The ``## Gemini Added Memories`` sections of the user's ``GEMINI.md`` (the user
    layer) and the project root's (the project layer)."""
    from functools import partial

    from pi_memory.entry import PROJECT, USER
    from pi_memory.native import NativeFile
    from pi_memory.native.added_memories import read_section

    found = [(config_dir / "GEMINI.md", USER), (root / "GEMINI.md", PROJECT)]
    return [
        NativeFile(path, partial(read_section, layer)) for path, layer in found if path.is_file()
    ]


HOST: Final = Host(
    name="gemini",
    title="Gemini CLI",
    events={
        "start": "SessionStart",
        "prompt": "BeforeAgent",
        "end": "SessionEnd",
    },
    context_events=("SessionStart", "BeforeAgent"),
    max_context=9_500,
    config_variable="",
    config_default=(".gemini",),
    native_memory=native_memory,
    sessions=(
        # One JSON document before 0.61, appended records (.jsonl) since.
        "tmp/*/chats/*.json",
        "tmp/*/chats/*.jsonl",
    ),
    transcript=transcript,
    install=install,
    timeout_units=1000,
    model_cli="gemini",
    sends=sends,
    injected_index_at_prompt=True,
    # Its matcher compares the source whole: one group for each start after a first prompt.
    start_matchers=("resume", "clear"),
    # PreCompress (``auto``) fires before every model request: not hooked. A compression shows
    # only in the chat recording (a new chat begun on it) after a prompt's mark, read at the
    # next prompt or the session's end.
    compact_hook_every_request=True,
    no_start_after_compact=True,
    # It waits for SessionEnd's hook before it exits and reads no answer from it; the hook
    # only settles the state and hands the flush to a detached process.
    background_events=("SessionEnd",),
    shell_background=True,
)
