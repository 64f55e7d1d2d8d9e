"""How this package is started from a shell: what hooks run and what the model is told to run.

The command names this interpreter and this package by absolute path
(``python -S /path/to/pi_memory`` or ``python -S /path/to/pi_memory.pyz``), so
it works from any directory, with no ``PYTHONPATH`` and whatever ``python`` is
on the ``PATH`` of the shell that runs it; ``-S`` skips ``site``, which a
package with no dependencies does not need.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

__all__ = ["Launcher", "this_package"]


class Launcher(NamedTuple):
    """How a host starts the package: the absolute interpreter, ``-S``, the package or .pyz."""

    argv: tuple[str, ...]

    def command(self, *args: str) -> str:
        import shlex

        return " ".join(shlex.quote(word) for word in (*self.argv, *args))


def this_package(target: Path | None = None) -> Launcher:
    """This interpreter and this package (or the .pyz it runs from, or ``target``)."""
    if target is None:
        here = Path(__file__).resolve().parent  # the pi_memory directory, or inside a zip
        target = here
        while not target.exists() and target != target.parent:
            target = target.parent  # a zipapp: up to the archive file itself
    python = Path(sys.executable).resolve() if sys.executable else Path("python3")
    return Launcher((str(python), "-S", str(target)))
