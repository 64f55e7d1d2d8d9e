"""Reading git config files: git's own syntax, includes, and a repository's remotes.

A hook runs on every prompt and cannot afford a ``git`` subprocess, so the
raw config files are read directly; ``url.*.insteadOf`` rewrites are never
applied, so they never move a project's memories.
"""

from __future__ import annotations

import re
from pathlib import Path

from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.home import home_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final

    from pi_memory.naming.git_repo import GitRepo

__all__ = [
    "ConfigEntry",
    "ConfigSyntaxError",
    "parse_git_config",
    "read_git_config",
    "read_remotes",
    "remotes_from_config",
]


class ConfigEntry(NamedTuple):
    """One ``section[.subsection].key`` assignment of a git config file."""

    #: Lower-cased section name.
    section: str
    #: Subsection exactly as written (``None`` when absent).
    subsection: str | None
    #: Lower-cased variable name.
    key: str
    #: The value; ``None`` for a bare ``key`` (boolean true).
    value: str | None


_VALUE_ESCAPES: Final = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}
_GIT_SPACE: Final = " \t\n\v\f\r"
_SECTION_NAME: Final = re.compile(r"[A-Za-z0-9.\-]+")
_VARIABLE_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")


class ConfigSyntaxError(ValueError):
    """A config file git itself would refuse to read."""


class _ConfigParser:
    """git-config syntax, following git's own ``config.c`` rules.

    Section and variable names are case-insensitive; a quoted subsection keeps
    its case and its backslash escapes; values may mix quoted and unquoted
    parts, ``#``/``;`` start a comment outside quotes, whitespace runs inside
    a value become single spaces per character and trailing whitespace drops.
    """

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n")
        self.pos = 1 if self.text.startswith("\ufeff") else 0
        self.section = ""
        self.subsection: str | None = None
        self.entries: list[ConfigEntry] = []

    def next_char(self) -> str:
        """The next character, ``"\\n"`` at the end (as git's reader does)."""
        if self.pos >= len(self.text):
            self.pos += 1
            return "\n"
        ch = self.text[self.pos]
        self.pos += 1
        return ch

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def parse(self) -> list[ConfigEntry]:
        while not self.at_end():
            ch = self.next_char()
            if ch in _GIT_SPACE:
                continue
            if ch in "#;":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end + 1
            elif ch == "[":
                self.parse_section()
            elif ch.isascii() and ch.isalpha():
                self.pos -= 1
                self.parse_variable()
            else:
                raise ConfigSyntaxError(f"unexpected {ch!r} at offset {self.pos - 1}")
        return self.entries

    def parse_section(self) -> None:
        match = _SECTION_NAME.match(self.text, self.pos)
        if match is None:
            raise ConfigSyntaxError("bad section header")
        name = match.group()
        self.pos = match.end()
        ch = self.next_char()
        if ch == "]":
            # The deprecated [section.subsection] form: the subsection ignores case too.
            section, dot, sub = name.partition(".")
            self.section, self.subsection = section.lower(), (sub.lower() if dot else None)
            return
        while ch in " \t":
            ch = self.next_char()
        if ch != '"' or "." in name:
            raise ConfigSyntaxError("bad section header")
        sub_chars: list[str] = []
        while True:
            ch = self.next_char()
            if ch == "\n":
                raise ConfigSyntaxError("unterminated subsection")
            if ch == '"':
                break
            if ch == "\\":
                ch = self.next_char()
                if ch == "\n":
                    raise ConfigSyntaxError("unterminated subsection")
            sub_chars.append(ch)
        if self.next_char() != "]":
            raise ConfigSyntaxError("bad section header")
        self.section, self.subsection = name.lower(), "".join(sub_chars)

    def parse_variable(self) -> None:
        # git accepts a variable before any section header (section "").
        match = _VARIABLE_NAME.match(self.text, self.pos)
        if match is None:
            raise ConfigSyntaxError("bad variable name")
        key = match.group().lower()
        self.pos = match.end()
        ch = self.next_char()
        while ch in " \t":
            ch = self.next_char()
        value: str | None = None
        if ch != "\n":
            if ch != "=":
                raise ConfigSyntaxError(f"bad line for {key!r}")
            value = self.parse_value()
        self.entries.append(ConfigEntry(self.section, self.subsection, key, value))

    def parse_value(self) -> str:
        out: list[str] = []
        spaces = 0
        quoted = comment = False
        while True:
            ch = self.next_char()
            if ch == "\n":
                if quoted:
                    raise ConfigSyntaxError("unterminated quote")
                return "".join(out)
            if comment:
                continue
            if ch in _GIT_SPACE and not quoted:
                # Like git: whitespace before the first character is dropped.
                spaces += 1 if out else 0
                continue
            if not quoted and ch in "#;":
                comment = True
                continue
            if spaces:
                out.append(" " * spaces)
                spaces = 0
            if ch == "\\":
                ch = self.next_char()
                if ch == "\n":
                    continue
                if ch not in _VALUE_ESCAPES:
                    raise ConfigSyntaxError(f"unknown escape \\{ch}")
                out.append(_VALUE_ESCAPES[ch])
            elif ch == '"':
                quoted = not quoted
            else:
                out.append(ch)


def parse_git_config(text: str) -> list[ConfigEntry]:
    """Every assignment of a git config file, in file order (includes not followed).

    Raises :class:`ConfigSyntaxError` where git would refuse the file.
    """
    return _ConfigParser(text).parse()


_MAX_INCLUDE_DEPTH: Final = 10


def read_git_config(path: Path, home: str, depth: int = 0) -> list[ConfigEntry]:
    """A config file's assignments with ``[include] path`` files spliced in where they appear."""
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    entries: list[ConfigEntry] = []
    for entry in parse_git_config(text):
        entries.append(entry)
        if (
            entry.section == "include"
            and entry.subsection is None
            and entry.key == "path"
            and entry.value
            and depth < _MAX_INCLUDE_DEPTH
        ):
            target = entry.value
            # git's own rule, not naming.home.expand_tilde: "~/" on every
            # platform, and the path is not normalised before the OS resolves it.
            if target == "~" or target.startswith("~/"):
                target = home + target[1:]
            included = Path(target)
            if not included.is_absolute():
                included = path.parent / included
            entries.extend(read_git_config(included, home, depth + 1))
    return entries


def remotes_from_config(entries: Sequence[ConfigEntry]) -> list[tuple[str, str]]:
    """``(name, url)`` for every ``remote.<name>.url`` with a value, in file order."""
    return [
        (entry.subsection, entry.value)
        for entry in entries
        if entry.section == "remote"
        and entry.key == "url"
        and entry.subsection
        and entry.value is not None
    ]


def _is_true(value: str | None) -> bool:
    return value is None or value.strip().lower() in ("true", "yes", "on", "1")


def read_remotes(repo: GitRepo) -> list[tuple[str, str]]:
    """The remotes of a repository, read from its raw config files (no ``git`` process).

    A config file git would refuse gives no remotes, as every git command
    (and so the reference implementation) fails on it too.
    """
    home = str(home_dir())
    try:
        entries = read_git_config(repo.common_dir / "config", home)
        worktree_config = any(
            e.section == "extensions" and e.key == "worktreeconfig" and _is_true(e.value)
            for e in entries
        )
        if worktree_config:
            entries += read_git_config(repo.git_dir / "config.worktree", home)
    except ConfigSyntaxError:
        return []
    return remotes_from_config(entries)
