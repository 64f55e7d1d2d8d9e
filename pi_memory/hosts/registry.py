"""The one list of hosts: every host's name, and its record from its own module.

The command line's choices, the hook's detection of an unnamed host, ``install``,
the transcript readers and the command-line model providers all read the hosts
from here. A host's module is imported only when its record is asked for: a
hook names one host and loads that one alone.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.hosts.host import Host

#: Every host's name (what ``--host`` takes) → its module under ``pi_memory.hosts``.
MODULES: Final = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "pi": "pi_agent",
}
NAMES: Final = tuple(MODULES)
#: The host of a hook that says nothing that tells another one.
DEFAULT: Final = NAMES[0]


class UnknownHost(ValueError):
    """No host has this name."""


def host(name: str) -> Host:
    """The record of the host called ``name``; :class:`UnknownHost` for any other name."""
    import importlib

    module = MODULES.get(name)
    if module is None:
        raise UnknownHost(f"unknown host {name!r} (one of {', '.join(NAMES)})")
    record: Host = importlib.import_module(f"pi_memory.hosts.{module}").HOST
    return record


def every() -> tuple[Host, ...]:
    """Every host's record, in the order of :data:`NAMES`."""
    return tuple(host(name) for name in NAMES)


def model_commands() -> dict[str, str]:
    """Each command-line model provider (``claude-cli``…) → the host's program it runs."""
    return {f"{h.model_cli}-cli": h.model_cli for h in every() if h.model_cli}
