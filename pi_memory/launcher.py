"""How this package is started from a shell: what hooks run and what the model is told to run.

The command names this interpreter and this package by absolute path
(``python -S /path/to/pi_memory`` or ``python -S /path/to/pi_memory.pyz``), so
it works from any directory, with no ``PYTHONPATH`` and whatever ``python`` is
on the ``PATH`` of the shell that runs it; ``-S`` skips ``site``, which a
package with no dependencies does not need.

Every hook is a new interpreter that imports the modules its event needs, so
``install`` compiles the package's bytecode once, as pip does when it installs
a package (:func:`compile_package`): where ``PYTHONDONTWRITEBYTECODE`` is set,
or the copy is read-only, no hook would ever write it, and each would compile
those modules again. The interpreter reads bytecode whatever that setting says.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["Launcher", "compile_package", "this_package"]


class Launcher(NamedTuple):
    """How a host starts the package: the absolute interpreter, ``-S``, the package or .pyz."""

    argv: tuple[str, ...]

    def command(self, *args: str) -> str:
        return " ".join(_quoted(word) for word in (*self.argv, *args))


#: The characters ``shlex.quote`` leaves a word of unquoted.
_SAFE: Final = frozenset("%+,-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")


def _quoted(word: str) -> str:
    """``shlex.quote(word)``; a word of safe characters alone (an interpreter's and a
    package's usual paths) without importing ``shlex``, which compiles a pattern."""
    if word and _SAFE.issuperset(word):
        return word
    import shlex

    return shlex.quote(word)


def this_package(target: Path | None = None) -> Launcher:
    """This interpreter and this package (or the .pyz it runs from, or ``target``)."""
    if target is None:
        here = Path(__file__).resolve().parent  # the pi_memory directory, or inside a zip
        target = here
        while not target.exists() and target != target.parent:
            target = target.parent  # a zipapp: up to the archive file itself
    python = Path(sys.executable).resolve() if sys.executable else Path("python3")
    return Launcher((str(python), "-S", str(target)))


def compile_package(launcher: Launcher) -> bool:
    """Compile the package directory ``launcher`` runs into the place this interpreter reads
    its bytecode from (``__pycache__`` beside each source; for a read-only copy, the
    ``pycache_prefix`` that ``pi_memory/__main__.py`` sets): True when every module is
    compiled and current. An archive carries its own; an unwritable place costs only
    speed. Modules already current are left as they are; nothing is printed."""
    import compileall

    target = Path(launcher.argv[-1])
    if not target.is_dir():
        return False
    try:
        return bool(compileall.compile_dir(str(target), quiet=2, workers=1))
    except OSError:
        return False
