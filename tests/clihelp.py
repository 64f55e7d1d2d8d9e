"""Run ``python -m pi_memory`` as a user types it.

:func:`run_cli` drives :func:`pi_memory.cli.main` in this process: the working
directory, stdin, the environment and both output streams are those of a
command line (stdout and stderr are real text streams over bytes, so code that
writes to ``.buffer`` works too), and the output is decoded as UTF-8.
Starting an interpreter per command line costs far more than the command
itself, so behaviour tests use this.

:func:`run_process` starts a real interpreter, for what only a process shows:
its exit status, start-up imports, closed pipes, signals, locks between
processes.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pi_memory.cli import main

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@contextmanager
def _environment(changes: Mapping[str, str] | None) -> Iterator[None]:
    """``os.environ`` with ``changes`` applied, restored afterwards (a process's own env)."""
    saved = {name: os.environ.get(name) for name in changes or {}}
    os.environ.update(changes or {})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline="\n", write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue().decode("utf-8")


def run_cli(
    *args: str, cwd: Path, stdin: str | bytes = "", env: Mapping[str, str] | None = None
) -> Run:
    """``python -m pi_memory ARGS`` in this process, run from ``cwd`` with ``stdin``.

    ``stdin`` given as bytes arrives as those bytes, as a pipe delivers them.
    """
    streams = (sys.stdin, sys.stdout, sys.stderr)
    out, err = _stream(), _stream()
    old_cwd = os.getcwd()
    try:
        os.chdir(cwd)
        data = stdin if isinstance(stdin, bytes) else stdin.encode("utf-8")
        sys.stdin, sys.stdout, sys.stderr = _stream(data), out, err
        with _environment(env):
            try:
                code = main(list(args))
            except SystemExit as done:  # argparse's --help and --version
                code = done.code if isinstance(done.code, int) else int(done.code is not None)
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        os.chdir(old_cwd)
    return Run(code, _text(out), _text(err))


def run_process(
    *args: str, cwd: Path, stdin: str = "", env: Mapping[str, str] | None = None
) -> Run:
    """``python -m pi_memory ARGS`` in a new interpreter, from the repo's sources."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(REPO)
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "pi_memory", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=full_env,
        timeout=600,  # a bound on a hang: a loaded machine takes minutes, not 60 s
        check=False,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)
