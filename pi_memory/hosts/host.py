"""A host (an agent program this package plugs into) as one typed record.

Each host module (``claude_code``, ``codex``, ``gemini``, ``pi_agent``) exports
its :class:`Host` as ``HOST``; :mod:`pi_memory.hosts.registry` is the one list
of them. Everything that differs between hosts is a field here, so a quirk is
read as ``host.index_at_prompt`` (a misspelt field is an error ``mypy`` sees),
never looked up by name.

A named tuple, not a dataclass: it is as immutable and as typed, and a hook
starts a new interpreter for every event, where importing :mod:`dataclasses`
(it imports :mod:`inspect`) would cost more than the rest of the record.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple

if TYPE_CHECKING:
    from pi_memory.hosts.install import Edit, Plan
    from pi_memory.transcripts import Reader

#: No per-event cap on a hook's timeout.
NO_CAPS: Mapping[str, int] = {}


class ConfigDir(NamedTuple):
    """Where a host keeps its own configuration and sessions."""

    #: The environment variable that moves it (``""``: none does).
    variable: str
    #: Where it is otherwise, under the home directory.
    default: tuple[str, ...]

    def path(self, env: Mapping[str, str], home: Path) -> Path:
        value = env.get(self.variable, "") if self.variable else ""
        return Path(value) if value else home.joinpath(*self.default)


class Host(NamedTuple):
    """What this package knows of one host; every field a fact the host's module documents."""

    #: What ``--host`` takes, and the transcript format's name.
    name: str
    #: The host's name for people.
    title: str
    #: Lifecycle moment (``start``, ``prompt``, ``turn_end``, ``pre_compact``,
    #: ``post_compact``, ``end``) → the event that carries it.
    events: Mapping[str, str]
    #: Events whose answer may carry context for the model.
    context_events: tuple[str, ...]
    #: The injection's cap in characters.
    max_context: int
    #: Seconds a prompt hook may spend on the surfacing side-query.
    prompt_budget: float
    config_dir: ConfigDir
    #: Its session transcripts, as patterns under :attr:`config_dir`.
    sessions: tuple[str, ...]
    #: Its transcript reader (imported when called, not with the record).
    transcript: Callable[[], Reader]
    #: The files ``install`` and ``uninstall`` change, and how (imported when called).
    install: Callable[[Plan], list[Edit]]
    #: The injection's cap in UTF-8 bytes (0: the host counts characters only).
    max_context_bytes: int = 0
    #: Seconds a hook of some event may take at most (the host clamps a longer timeout).
    hook_timeout_caps: Mapping[str, int] = NO_CAPS
    #: A hook timeout's units per second (Gemini CLI counts milliseconds).
    timeout_units: int = 1
    #: The host's command-line program, when it can serve as a model provider
    #: (``EXE-cli`` in memory.json); ``""``: it cannot.
    model_cli: str = ""
    #: Whether a hook's payload is this host's, for a hook run without ``--host``;
    #: ``None``: only its events' names tell.
    sends: Callable[[Mapping[str, object]], bool] | None = None
    #: Its hooks always name it (``--host``): never guessed from an event.
    named_only: bool = False
    #: One line ``install`` prints after installing (a step the host asks of the user).
    install_note: str = ""
    #: The answer is the context itself as plain text, not a JSON envelope.
    plain_text: bool = False
    #: The index goes in with the first prompt of each process, not at session start.
    index_at_prompt: bool = False
    #: A resumed session's replayed history already holds what session start injected.
    resume_replays_context: bool = False
    #: The pre-compaction hook fires before every model request; a compaction shows
    #: only in the transcript.
    compact_hook_every_request: bool = False
    #: No session start follows a compaction: the index goes back in with the next prompt.
    no_start_after_compact: bool = False
