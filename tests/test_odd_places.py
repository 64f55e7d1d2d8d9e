"""Where the store is when the process stands somewhere odd: no directory, no HOME, a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.inproc import call

AUTO = Path(".pi/agent/memory-auto")


def in_deleted_dir(*args: str) -> tuple[int, str, str]:
    """``main(args)`` from the current directory, whatever state it is in."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from pi_memory.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_a_deleted_working_directory_leaves_the_user_layer_usable(
    tmp_path: Path, hermetic_home: Path
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    here = os.getcwd()
    os.chdir(gone)
    try:
        gone.rmdir()
        code, _, err = in_deleted_dir("write", "--layer", "user", "--keyword", "k", "A fact.")
        assert (code, err) == (0, "")
        code, out, err = in_deleted_dir("search", "--json", "fact")
        assert (code, err) == (0, "") and json.loads(out)["total"] == 1
        code, _, err = in_deleted_dir("write", "--keyword", "k", "A project fact.")
        assert code == 1
        assert "working directory" in err and err.count("\n") == 1
    finally:
        os.chdir(here)
    assert (hermetic_home / AUTO / "USER.md").exists()
    assert not gone.exists()  # never recreated


def test_a_new_process_in_a_deleted_working_directory_writes_the_user_layer(
    tmp_path: Path, hermetic_home: Path
) -> None:
    # A real process: nothing loaded before the directory went away (in a test
    # process, earlier tests have already looked up whatever the write needs).
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        "import os, sys; os.rmdir(sys.argv[1]); from pi_memory.cli import main; "
        "raise SystemExit(main(['write', '--layer', 'user', '--keyword', 'k', 'A fact.']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(gone)],
        cwd=gone,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "A fact." in (hermetic_home / AUTO / "USER.md").read_text("utf-8")


def test_an_empty_home_is_not_the_root(
    tmp_path: Path, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pwd

    monkeypatch.setenv("HOME", "")
    run = call("show", "--json", cwd=tmp_path)
    assert run.code == 0, run.err
    user_dir = json.loads(run.out)["layers"]["user"]["directory"]
    assert user_dir == str(Path(pwd.getpwuid(os.getuid()).pw_dir) / AUTO)


def test_a_relative_auto_dir_is_ignored_with_a_warning(
    tmp_path: Path, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_MEMORY_AUTO_DIR", "relative/dir")
    run = call("write", "--layer", "user", "--keyword", "k", "A user fact.", cwd=tmp_path)
    assert run.code == 0
    assert run.err.splitlines() == [
        "pi_memory: warning: PI_MEMORY_AUTO_DIR='relative/dir' is not an absolute path; ignored"
    ]
    assert (hermetic_home / AUTO / "USER.md").exists()
    assert not (tmp_path / "relative").exists()


def test_a_memory_directory_that_is_a_file_gets_a_clear_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "memory-file"
    blocker.write_text("not a directory", "utf-8")
    monkeypatch.setenv("PI_MEMORY_AUTO_DIR", str(blocker))
    run = call("write", "--layer", "user", "--keyword", "k", "A user fact.", cwd=tmp_path)
    assert run.code == 1
    assert run.err == (
        f"pi_memory: the user memory directory {blocker} is a file, not a directory: "
        "move it away or configure another directory\n"
    )
    search = call("search", "fact", cwd=tmp_path)
    assert search.code == 1 and "is a file, not a directory" in search.err
    assert blocker.read_text("utf-8") == "not a directory"


def test_a_project_layer_directory_that_is_a_file(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".pi" / "agent").mkdir(parents=True)
    (root / AUTO).write_text("oops", "utf-8")
    run = call("write", "--keyword", "k", "A project fact.", cwd=root)
    assert run.code == 1 and "is a file, not a directory" in run.err
