"""Codex CLI: its hook event names and output rules.

The events and stdin mirror Claude Code's (plus ``model`` and ``turn_id``),
with ``PostCompact`` besides. Codex validates a hook's JSON answer against a
schema per event that forbids unknown keys, so an answer holds only
``hookSpecificOutput`` (``hookEventName``, ``additionalContext``) and
``systemMessage``. Context past 2,500 tokens (of four bytes) spills to a file. The
context arrives as a ``developer`` message and stays in the session's history:
``codex exec resume`` replays it, so a resumed session is not answered again. ``Stop`` is not
hooked: the next UserPromptSubmit does a turn end's work, SessionEnd's quit
flush covers the last turn. SessionStart is hooked for ``resume``, ``clear`` and
``compact``: a new session's first UserPromptSubmit does the start and carries the
index, in the history a resume replays.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pi_memory.hosts.host import AFTER_FIRST_PROMPT, Host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.hosts.install_plan import Edit, Plan
    from pi_memory.native import NativeFile
    from pi_memory.transcripts import Reader


def sends(payload: Mapping[str, object]) -> bool:
    """A turn's id, or a transcript that is a rollout file (``…/rollout-<time>-<id>.jsonl``)."""
    path = payload.get("transcript_path")
    return "turn_id" in payload or (
        isinstance(path, str) and Path(path).name.startswith("rollout-")
    )


def transcript() -> Reader:
    from pi_memory.transcripts.codex import READER

    return READER


def install(plan: Plan) -> list[Edit]:
    """``hooks.json`` and ``config.toml`` (the MCP server, the hooks feature flag), under
    the configuration directory or a project's ``.codex/``."""
    from pi_memory.hosts import install as edit
    from pi_memory.hosts.install_plan import Edit

    folder = plan.config_dir if plan.user else plan.loc.root / ".codex"
    return [
        Edit(
            folder / "hooks.json",
            "json",
            lambda d: edit.with_(d, edit.set_hooks, HOST, plan.launcher),
            lambda d: edit.with_(d, edit.drop_hooks),
        ),
        Edit(
            folder / "config.toml",
            "toml",
            lambda t: edit.toml_install(t, plan.launcher),
            edit.toml_uninstall,
        ),
    ]


def native_memory(config_dir: Path, root: Path, cwd: Path) -> list[NativeFile]:
    """Its memories folder (off by default): ``memories/MEMORY.md`` and
    ``memory_summary.md``, one folder for every project."""
    from pi_memory.native.handbook import folder

    return folder(config_dir / "memories", root)


HOST: Final = Host(
    name="codex",
    title="Codex CLI",
    events={
        "start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "pre_compact": "PreCompact",
        "post_compact": "PostCompact",
        "end": "SessionEnd",
    },
    context_events=("SessionStart", "UserPromptSubmit"),
    # About 2,500 tokens of four characters.
    max_context=9_500,
    # Codex counts that context in tokens of four UTF-8 bytes and cuts it past 2,500 to a
    # head and a tail (0.171.0: 9,410 bytes arrived whole, 10,100 did not): a cap in bytes
    # too, or an index in Chinese, three bytes a character, loses its middle.
    max_context_bytes=9_500,
    config_variable="CODEX_HOME",
    config_default=(".codex",),
    native_memory=native_memory,
    sessions=("sessions/**/rollout-*.jsonl",),
    transcript=transcript,
    install=install,
    # Codex clamps a longer SessionEnd timeout, with a warning.
    hook_timeout_caps={"SessionEnd": 3},
    model_cli="codex",
    sends=sends,
    # Codex 0.171.0 runs a hook only once the user trusted it; ``codex exec`` skips it.
    install_note=(
        "codex: start codex once and trust the hooks (it says: hooks need review);"
        " codex exec skips them until then"
    ),
    resume_replays_context=True,
    start_matchers=(AFTER_FIRST_PROMPT,),
)
