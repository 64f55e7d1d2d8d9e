"""What a memory's text mentions that may be code: path-like words and code names.

Pure and bounded: only the first :data:`MAX_WORDS` words are looked at, however
long the body, and at most :data:`MAX_PATHS` paths and :data:`MAX_NAMES` names
come out. Whether a mention exists in the project is for
:mod:`pi_memory.anchors.project` to say.
"""

from __future__ import annotations

import re

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: Words of a body looked at (a pasted list of thousands of paths costs no more).
MAX_WORDS: Final = 400
#: Candidates handed on to the project lookup, each kind.
MAX_CANDIDATES: Final = 48
#: What one memory is anchored to at most.
MAX_PATHS: Final = 12
MAX_NAMES: Final = 8
#: A path or name longer than this is no mention a person wrote.
MAX_LENGTH: Final = 200

_WORD: Final = re.compile(r"[^\s`'\"()\[\]{}<>,;|*]+")
_TRAILING: Final = ".:!?"
_LINE_SUFFIX: Final = re.compile(r":\d+(?::\d+)?$")
_PATHLIKE: Final = re.compile(r"^[\w.@+\-/]+$")
_EXTENSION: Final = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Mentions(NamedTuple):
    """Candidates in the order the text gives them, each once."""

    #: Relative paths as written (``src/deploy.py``), or bare file names (``deploy.py``).
    paths: tuple[str, ...]
    #: Code-like names: ``snake_case``, ``camelCase``, ``CamelCase``, ``call()``, `backticked`.
    names: tuple[str, ...]


def mentions(body: str, root: str = "") -> Mentions:
    """The candidates of ``body``; ``root`` (the project's absolute path) turns an
    absolute path inside it into a relative one, and drops every other absolute path."""
    paths: dict[str, None] = {}
    names: dict[str, None] = {}
    for count, match in enumerate(_WORD.finditer(body)):
        if count >= MAX_WORDS:
            break
        word = _LINE_SUFFIX.sub("", match.group().rstrip(_TRAILING))
        if not word or len(word) > MAX_LENGTH:
            continue
        path = _as_path(word, root)
        if path is not None:
            if len(paths) < MAX_CANDIDATES:
                paths.setdefault(path, None)
            continue
        for name in _names(word, body, match.end()):
            if len(names) < MAX_CANDIDATES:
                names.setdefault(name, None)
    return Mentions(tuple(paths), tuple(names))


def _as_path(word: str, root: str) -> str | None:
    """``word`` as a path relative to the project, or ``None`` when it is none."""
    if not _PATHLIKE.match(word):
        return None
    if word.startswith("/"):
        prefix = root.rstrip("/") + "/"
        if not root or not word.startswith(prefix):
            return None  # outside the project: never anchored
        word = word[len(prefix) :]
    while word.startswith("./"):
        word = word[2:]
    parts = word.split("/")
    if not word or any(part in ("", ".", "..") for part in parts):
        return None
    if "/" in word:
        return word
    # A bare name is a file only with an extension (``deploy.py``, not ``v1.2``).
    return word if _EXTENSION.search(word) and not word[0].isdigit() else None


def _names(word: str, body: str, end: int) -> list[str]:
    """The code-like identifiers of ``word`` (``deploy.run_all`` → ``run_all``)."""
    called = body.startswith("(", end)
    ticked = end < len(body) and body[end] == "`"
    found = []
    for ident in _IDENT.findall(word):
        if len(ident) >= 3 and (called or ticked or code_like(ident)):
            found.append(ident)
    return found


def code_like(ident: str) -> bool:
    """``snake_case`` (an inner underscore), ``camelCase`` or ``CamelCase`` with an
    inner capital: words no prose uses."""
    inner = ident.strip("_")
    if "_" in inner:
        return True
    return any(a.islower() and b.isupper() for a, b in zip(inner, inner[1:]))
