"""How the package is started from a shell: the command line it is named by."""

from __future__ import annotations

import random
import shlex
import subprocess
import sys

import pytest

from pi_memory.launcher import Launcher
from tests.conftest import REPO


@pytest.mark.parametrize(
    "word",
    [
        "",
        "/usr/bin/python3",
        "-S",
        "/home/a b/pi_memory",
        "it's",
        "é",
        "a$b",
        "%+,-./:=@_",
        "search",
        "~/x",
    ],
)
def test_each_word_is_quoted_as_shlex_quotes_it(word: str) -> None:
    assert Launcher(("python", word)).command(word) == f"python {shlex.quote(word)} " + (
        shlex.quote(word)
    )


def test_random_words_are_quoted_as_shlex_quotes_them() -> None:
    rng = random.Random(7)
    alphabet = "aZ09_-./:=@%+,'\" $\\é\t*~!"
    for _ in range(2000):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
        assert Launcher((word,)).command() == shlex.quote(word), word


def test_a_command_of_plain_paths_imports_no_shlex() -> None:
    code = (
        "import sys\n"
        "from pi_memory.launcher import Launcher\n"
        "line = Launcher(('/usr/bin/python3', '-S', '/opt/pi_memory')).command('search')\n"
        "assert line == '/usr/bin/python3 -S /opt/pi_memory search', line\n"
        "assert 'shlex' not in sys.modules\n"
        "assert Launcher(('/a b',)).command() == \"'/a b'\"\n"
    )
    subprocess.run([sys.executable, "-S", "-c", code], check=True, cwd=REPO)
