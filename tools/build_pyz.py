"""Build ``pi_memory.pyz``: the whole package as one stdlib zipapp, bytecode included.

    python tools/build_pyz.py                    # -> ./pi_memory.pyz
    python tools/build_pyz.py -o DIR/pi_memory.pyz
    python tools/build_pyz.py --measure 15       # build, then time its start-up

The archive runs with ``python -S pi_memory.pyz COMMAND …`` from anywhere,
read-only locations included: nothing is written next to it. Imports from a
zip never write bytecode, so the archive carries its own, compiled by the
interpreter that runs this script as unchecked-hash ``.pyc`` files beside each
source (the layout zipimport reads); another Python version falls back to the
sources, correct but slower. The archive's own ``__main__`` (compiled too)
imports the package's ``pi_memory/__main__.py``, so the archive starts every
command as the package directory does (a hook straight to its handler) and
exits with the command's code. Entries are stored uncompressed: reading them
costs less than inflating them on every hook.

``--measure`` times, in one interleaved run, ``python -S -c pass``,
``python -c pass``, and ``hook session-start`` against a small store run from
the archive and from the package directory (as ``install`` writes both), and
prints medians and ratios.
"""

from __future__ import annotations

import argparse
import os
import py_compile
import shutil
import sys
import tempfile
import zipapp
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pi_memory"
#: Files of the package the archive carries besides the Python sources.
DATA_SUFFIXES = (".txt", ".ts", ".json", ".typed", ".css", ".js")


#: The archive's entry point: the package's own, which runs the command and exits with
#: its code.
MAIN = (
    '"""pi_memory.pyz: run the package\'s own entry point (pi_memory/__main__.py)."""\n'
    "import pi_memory.__main__  # noqa: F401  # runs the command; exits with its code\n"
)


def stage(target: Path) -> int:
    """Copy the package into ``target``, a ``.pyc`` beside each source, and the archive's
    ``__main__``; returns the module count."""
    count = 0
    for source in sorted(PACKAGE.rglob("*")):
        if "__pycache__" in source.parts or not source.is_file():
            continue
        if source.suffix != ".py" and source.suffix not in DATA_SUFFIXES:
            continue
        relative = source.relative_to(ROOT)
        dest = target / relative
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest)
        if source.suffix == ".py":
            _compile(dest, str(relative))
            count += 1
    (target / "__main__.py").write_text(MAIN, "utf-8")
    _compile(target / "__main__.py", "__main__.py")
    return count


def _compile(source: Path, name: str) -> None:
    """``source``'s bytecode beside it, valid whatever the archive's timestamps say."""
    py_compile.compile(
        str(source),
        cfile=str(source.with_suffix(".pyc")),
        dfile=name,
        doraise=True,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )


def build(output: Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / "pyz"
        count = stage(staging)
        output.parent.mkdir(parents=True, exist_ok=True)
        partial = output.with_name(output.name + ".tmp")
        zipapp.create_archive(staging, partial)
        os.replace(partial, output)
    return count


def measure(pyz: Path, runs: int) -> None:
    sys.path.insert(0, str(ROOT))
    from tools.bench import build_store, time_commands

    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir(parents=True)
        home.mkdir()
        build_store(home, project, 100)
        # As a user's machine runs it: bytecode cached, no development variables.
        drop = ("PI_MEMORY", "XDG_", "PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        env.update(HOME=str(home))
        event = f'{{"cwd": "{project}", "hook_event_name": "SessionStart", "source": "startup"}}'
        py = sys.executable
        hook = ["hook", "session-start"]
        cases = {
            "python -S -c pass": ([py, "-S", "-c", "pass"], ""),
            "python -c pass": ([py, "-c", "pass"], ""),
            "python -S pi_memory.pyz hook session-start": ([py, "-S", str(pyz), *hook], event),
            # What `install` writes when it points at the package directory.
            "python -S pi_memory/ hook session-start": ([py, "-S", str(PACKAGE), *hook], event),
        }
        medians = time_commands(cases, project, env, runs)
    bare_s, bare = medians["python -S -c pass"], medians["python -c pass"]
    print(f"Python {sys.version.split()[0]}, {runs} interleaved rounds, 100 memories")
    print("| command | median | × `python -S -c pass` | × `python -c pass` |")
    print("|---|---:|---:|---:|")
    for name, value in medians.items():
        print(f"| `{name}` | {value * 1000:.0f} ms | {value / bare_s:.2f}× | {value / bare:.2f}× |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, default=Path("pi_memory.pyz"))
    parser.add_argument("--measure", type=int, metavar="RUNS", help="then time its start-up")
    args = parser.parse_args(argv)
    output = args.output.resolve()
    count = build(output)
    print(f"{output}: {count} modules, {output.stat().st_size // 1024} KiB")
    if args.measure:
        measure(output, args.measure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
