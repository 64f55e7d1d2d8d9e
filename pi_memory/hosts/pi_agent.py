"""pi: what its extension (``pi_memory/hosts/pi/extension.ts``) sends and reads back.

pi has no command hooks; the extension spawns ``hook --host pi EVENT`` itself
with a Claude-Code-shaped event (``session_id``, ``transcript_path`` = the
session file, ``cwd``, ``source``) under these names, and injects stdout
verbatim at ``before_agent_start``: the answer is the plain text, never a
JSON envelope the model would read escaped.
"""

from __future__ import annotations

from pi_memory.hosts.host import Host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.hosts.install_plan import Edit, Plan
    from pi_memory.transcripts import Reader


def transcript() -> Reader:
    from pi_memory.transcripts.pi import READER

    return READER


def install(plan: Plan) -> list[Edit]:
    """The extension, ``extensions/pi_memory.ts`` in the configuration directory or a
    project's ``.pi/``."""
    from pi_memory.hosts import install as edit
    from pi_memory.hosts.install_plan import Edit

    folder = plan.config_dir / "extensions" if plan.user else plan.loc.root / ".pi" / "extensions"
    return [
        Edit(
            folder / "pi_memory.ts",
            "file",
            lambda _old: edit.extension_text(plan.launcher),
            lambda _old: None,
        )
    ]


HOST: Final = Host(
    name="pi",
    title="pi",
    events={
        "start": "SessionStart",
        "turn_end": "Stop",
        "pre_compact": "PreCompact",
        "post_compact": "PostCompact",
        "end": "SessionEnd",
    },
    context_events=("SessionStart",),
    # pi has no limit of its own; the same cap keeps the prompt the same size as elsewhere.
    max_context=9_500,
    config_variable="PI_CODING_AGENT_DIR",
    config_default=(".pi", "agent"),
    sessions=("sessions/**/*.jsonl",),
    transcript=transcript,
    install=install,
    # The extension always says ``--host pi``.
    named_only=True,
    plain_text=True,
)
