"""A host (an agent program this package plugs into) as one typed record.

Each host module (``claude_code``, ``codex``, ``gemini``, ``pi_agent``) exports
its :class:`Host` as ``HOST``; :mod:`pi_memory.hosts.registry` is the one list
of them. Everything that differs between hosts is a field here, so a quirk is
read as ``host.injected_index_at_prompt`` (a misspelt field is an error ``mypy`` sees),
never looked up by name.

A plain class with a keyword-only constructor, read-only once made, rather
than a dataclass or a named tuple: a hook starts a new interpreter for every
event and reads one record. Importing :mod:`dataclasses` (it imports
:mod:`inspect`) costs more than the rest of a hook's own work, and a named
tuple of this many fields takes a millisecond to build its class; this class
takes a fiftieth of that.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from pi_memory.hosts.install_plan import Edit, Plan
    from pi_memory.native import NativeFile
    from pi_memory.transcripts import Reader

#: No per-event cap on a hook's timeout.
NO_CAPS: Mapping[str, int] = {}
#: The session starts that follow a first prompt, as one Claude Code or Codex matcher.
AFTER_FIRST_PROMPT = "resume|clear|compact"


class Host:
    """What this package knows of one host; every field a fact the host's module documents.

    - ``name``: what ``--host`` takes, and the transcript format's name; ``title``:
      the host's name for people.
    - ``events``: lifecycle moment (``start``, ``prompt``, ``turn_end``,
      ``pre_compact``, ``post_compact``, ``end``) → the event that carries it, for the
      events ``install`` hooks (a host with a prompt hook has no ``turn_end``: its
      prompts count the turns, one process less a turn);
      ``context_events``: the events whose answer may carry context for the model.
    - ``max_context``, ``max_context_bytes``: the injection's cap in characters and in
      UTF-8 bytes (0: the host counts characters only).
    - ``config_variable``, ``config_default``: the host's configuration directory is
      the variable's value when set (``""``: no variable moves it), else
      ``config_default`` under the home directory; ``sessions``: its session
      transcripts, as patterns under that directory.
    - ``transcript``: its transcript reader; ``install``: the files ``install`` and
      ``uninstall`` change, and how (both imported when called, not with the record).
    - ``hook_timeout_caps``: seconds a hook of some event may take at most (the host
      clamps a longer timeout); ``timeout_units``: a hook timeout's units per second
      (Gemini CLI counts milliseconds).
    - ``model_cli``: the host's command-line program, when it can serve as a model
      provider (``PROGRAM-cli`` in memory.json); ``""``: it cannot.
    - ``sends``: whether a hook's payload is this host's, for a hook run without
      ``--host`` (``None``: only its events' names tell); ``named_only``: its hooks
      always name it, so it is never guessed.
    - ``install_note``: one line ``install`` prints after installing (a step the host
      asks of the user).
    - ``native_memory``: the files of the host's own memory for a project, each with
      the reader of its format, from ``(configuration directory, project root, working
      directory)``; ``None``: the host keeps none (``import`` offers the others).

    Quirks, each ``False`` unless the host has it:

    - ``plain_text``: the answer is the context itself as plain text, not a JSON envelope;
    - ``injected_index_at_prompt``: the injected index goes in with the first prompt of
      each process, not at session start;
    - ``resume_replays_context``: a resumed session's replayed history already holds what
      session start injected;
    - ``compact_hook_every_request``: the pre-compaction hook fires before every model
      request, so it is not hooked (a process less a request): a compaction shows only in
      the transcript, after the mark each prompt leaves there;
    - ``no_start_after_compact``: no session start follows a compaction, so the index
      goes back in with the next prompt;
    - ``start_matchers``: the session-start hook is installed for the starts that follow
      a first prompt only, one group per matcher (the host's own syntax); a new session's
      first prompt does the start's work and carries the index, one process less a
      session (the host keeps that context in the history a resume replays).
      ``first_prompt_starts`` says whether there are any;
    - ``background_events``: the events whose hook the host may leave running and go on
      without waiting for it (Claude Code's ``"async": true``): a hook whose answer the
      host does not read, at a moment a person waits for;
    - ``shell_background``: the host has no such flag and waits for a hook until its
      output closes, so a background event's command puts itself in the background of
      the shell the host runs it with (POSIX), keeping the event on its stdin.
    """

    def __init__(
        self,
        *,
        name: str,
        title: str,
        events: Mapping[str, str],
        context_events: tuple[str, ...],
        max_context: int,
        config_variable: str,
        config_default: tuple[str, ...],
        sessions: tuple[str, ...],
        transcript: Callable[[], Reader],
        install: Callable[[Plan], list[Edit]],
        max_context_bytes: int = 0,
        hook_timeout_caps: Mapping[str, int] = NO_CAPS,
        timeout_units: int = 1,
        model_cli: str = "",
        sends: Callable[[Mapping[str, object]], bool] | None = None,
        named_only: bool = False,
        install_note: str = "",
        native_memory: Callable[[Path, Path, Path], list[NativeFile]] | None = None,
        plain_text: bool = False,
        injected_index_at_prompt: bool = False,
        resume_replays_context: bool = False,
        compact_hook_every_request: bool = False,
        no_start_after_compact: bool = False,
        start_matchers: tuple[str, ...] = (),
        background_events: tuple[str, ...] = (),
        shell_background: bool = False,
    ) -> None:
        self.name = name
        self.title = title
        self.events = events
        self.context_events = context_events
        self.max_context = max_context
        self.config_variable = config_variable
        self.config_default = config_default
        self.sessions = sessions
        self.transcript = transcript
        self.install = install
        self.max_context_bytes = max_context_bytes
        self.hook_timeout_caps = hook_timeout_caps
        self.timeout_units = timeout_units
        self.model_cli = model_cli
        self.sends = sends
        self.named_only = named_only
        self.install_note = install_note
        self.native_memory = native_memory
        self.plain_text = plain_text
        self.injected_index_at_prompt = injected_index_at_prompt
        self.resume_replays_context = resume_replays_context
        self.compact_hook_every_request = compact_hook_every_request
        self.no_start_after_compact = no_start_after_compact
        self.start_matchers = start_matchers
        self.first_prompt_starts = bool(start_matchers)
        self.background_events = background_events
        self.shell_background = shell_background

    def __setattr__(self, field: str, value: object) -> None:
        if field in self.__dict__:
            raise AttributeError(f"a host's record is read-only: {field}")
        object.__setattr__(self, field, value)

    def __repr__(self) -> str:
        return f"Host({self.name!r})"

    def config_dir(self, env: Mapping[str, str], home: Path) -> Path:
        """Where the host keeps its own configuration and sessions."""
        value = env.get(self.config_variable, "") if self.config_variable else ""
        return Path(value) if value else home.joinpath(*self.config_default)
