"""The exceptions a person may see. Each carries its one-line message in ``str()``."""

from __future__ import annotations


class PiMemoryError(Exception):
    """A user-facing failure: the CLI prints ``str(err)`` on one line and exits 1."""


class UsageError(PiMemoryError):
    """The command line itself is wrong (a misspelled layer, a surplus argument)."""


class ConfigError(PiMemoryError):
    """``memory.json`` or the environment holds a value that cannot be used."""


class EntryRejected(PiMemoryError, ValueError):
    """A memory that may not be stored: truncated text, a bad keyword, a bad target."""


class LockError(PiMemoryError, TimeoutError):
    """The store's write lock could not be taken; the message names the holder."""
