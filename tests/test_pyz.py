"""The single-file build and bytecode in read-only places: what only a real process shows."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import REPO
from tools.build_pyz import build


def python_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user's interpreter: bytecode writing on, nothing on the path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    }
    env.update(HOME=str(home), **extra)
    return env


def run_read_only(directory: Path, argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run ``argv`` while ``directory`` cannot be written, as a vendored copy on a read-only
    mount: root ignores file modes, so as root the directory is bind-mounted read-only."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        try:
            proc = subprocess.run(
                argv, cwd=cwd, env=env, capture_output=True, text=True, check=False
            )
        finally:
            directory.chmod(0o755)
    else:
        d = shlex.quote(str(directory))
        script = (
            f"mount --bind {d} {d} && mount -o remount,bind,ro {d} && "
            f"touch {d}/probe 2>/dev/null && exit 99; exec {shlex.join(argv)}"
        )
        proc = subprocess.run(
            ["unshare", "-m", "sh", "-c", script],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_archive_runs_anywhere_and_writes_nothing_beside_it(
    tmp_path: Path, hermetic_home: Path
) -> None:
    shelf = tmp_path / "shelf"
    pyz = shelf / "pi_memory.pyz"
    build(pyz)
    names = zipfile.ZipFile(pyz).namelist()
    sources = [n for n in names if n.endswith(".py") and n != "__main__.py"]
    assert "pi_memory/cli.py" in sources
    assert all(n[:-3] + ".pyc" in names for n in sources)
    assert not [n for n in names if "__pycache__" in n]
    # Package data travels too: the pi extension, the model prompts.
    assert "pi_memory/hosts/pi/extension.ts" in names
    assert any(n.startswith("pi_memory/model/prompts/") and n.endswith(".txt") for n in names)
    project = tmp_path / "project"
    project.mkdir()
    env = python_env(hermetic_home)
    before = sorted(shelf.iterdir())
    argv = [sys.executable, "-S", str(pyz), "write", "--keyword", "deploy", "Ship on Fridays."]
    assert "keyword: deploy" in run_read_only(shelf, argv, project, env)
    out = run_read_only(shelf, [sys.executable, "-S", str(pyz), "search", "ship"], project, env)
    assert "Ship on Fridays." in out
    assert sorted(shelf.iterdir()) == before
    # Run from the archive, install points at the archive and copies pi's extension out of it.
    argv = [sys.executable, "-S", str(pyz), "install", "pi", "--dry-run"]
    out = run_read_only(shelf, argv, project, env)
    assert f'"-S", "{pyz}"];' in out


def test_a_read_only_package_keeps_its_bytecode_in_the_cache(
    tmp_path: Path, hermetic_home: Path
) -> None:
    vendor = tmp_path / "vendor"
    shutil.copytree(
        REPO / "pi_memory", vendor / "pi_memory", ignore=shutil.ignore_patterns("__pycache__")
    )
    cache = tmp_path / "cache"
    env = python_env(hermetic_home, PYTHONPATH=str(vendor), XDG_CACHE_HOME=str(cache))
    argv = [sys.executable, "-m", "pi_memory", "search", "anything"]
    run_read_only(vendor / "pi_memory", argv, tmp_path, env)
    assert not list(vendor.rglob("__pycache__"))
    tag = sys.implementation.cache_tag
    compiled = list((cache / "pi_memory" / "pycache").rglob(f"cli.{tag}.pyc"))
    assert len(compiled) == 1 and "vendor" in compiled[0].parts
    stamp = compiled[0].stat().st_mtime_ns
    run_read_only(vendor / "pi_memory", argv, tmp_path, env)
    assert compiled[0].stat().st_mtime_ns == stamp  # read back, not compiled again


def test_a_writable_package_uses_its_own_pycache(tmp_path: Path, hermetic_home: Path) -> None:
    vendor = tmp_path / "vendor"
    shutil.copytree(
        REPO / "pi_memory", vendor / "pi_memory", ignore=shutil.ignore_patterns("__pycache__")
    )
    cache = tmp_path / "cache"
    env = python_env(hermetic_home, PYTHONPATH=str(vendor), XDG_CACHE_HOME=str(cache))
    subprocess.run(
        [sys.executable, "-m", "pi_memory", "--version"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    assert (vendor / "pi_memory" / "__pycache__").is_dir()
    assert not (cache / "pi_memory" / "pycache").exists()


def test_the_archive_serves_the_viewer_with_its_assets(tmp_path: Path, hermetic_home: Path) -> None:
    from tests.viewerhelp import start

    archive = tmp_path / "pi_memory.pyz"
    build(archive)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    with start(project, program=(sys.executable, "-S", str(archive))) as viewer:
        for name in ("style.css", "app.js"):
            served = viewer.get(f"/static/{name}")
            assert served.status == 200
            assert served.text == (REPO / "pi_memory/viewer/static" / name).read_text("utf-8")
        assert viewer.get("/").status == 200


#: Runs the archive (argv[1]) as ``python -S ARCHIVE ARGS`` does, and writes to the file
#: $PROBE which sources of the archive the interpreter compiled, a line each.
PROBE = """
import os, runpy, sys
archive = sys.argv[1]
# A line a compile, written at once: a hook leaves with os._exit, past any code after run_path.
probe = open(os.environ["PROBE"], "w", encoding="utf-8", buffering=1)
sys.addaudithook(
    lambda event, args: event == "compile"
    and str(args[1]).startswith(archive)
    and probe.write(str(args[1]) + "\\n")
)
sys.argv = sys.argv[1:]
runpy.run_path(archive, run_name="__main__")
"""


def run_archive(
    archive: Path, args: list[str], cwd: Path, env: dict[str, str], stdin: str = ""
) -> tuple[object, str, list[str]]:
    """The archive's exit code, stdout, and the sources of it the interpreter compiled."""
    probe = cwd.parent / "probe.txt"
    probe.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, str(archive), *args],
        input=stdin, cwd=cwd, env={**env, "PROBE": str(probe)},
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, probe.read_text("utf-8").splitlines()


def test_the_archive_answers_a_hook_from_its_bytecode_and_exits_with_the_commands_code(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """Imports from a zip never write bytecode: what the archive does not carry, every
    hook compiles again. With the interpreter that built it, nothing is compiled."""
    from tests.hookhelp import make_project, payload

    archive = tmp_path / "pi_memory.pyz"
    build(archive)
    root = make_project(tmp_path)
    env = python_env(hermetic_home)
    write = ["write", "--keyword", "deploy", "Ship on Fridays."]
    assert run_archive(archive, write, root, env)[0] == 0
    start = payload("claude-code", "SessionStart.startup", root)
    hook = ["hook", "--host", "claude-code", "SessionStart"]
    for _ in range(2):  # the full work, then the fast path's note
        code, out, compiled = run_archive(archive, hook, root, env, start)
        assert (code, compiled) == (0, [])
        assert "#deploy" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    # A person's mistake is a non-zero exit from the archive as from the package.
    assert run_archive(archive, ["write"], root, env)[0] == 1


def test_another_interpreter_runs_the_archive_from_its_sources(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """Bytecode of another Python version (its magic number differs) is passed over: the
    sources answer, compiled on every start (the control of the test above)."""
    from tests.hookhelp import make_project, payload

    built = tmp_path / "built.pyz"
    build(built)
    archive = tmp_path / "pi_memory.pyz"
    with zipfile.ZipFile(built) as src, zipfile.ZipFile(archive, "w") as dest:
        for info in src.infolist():
            data = src.read(info)
            dest.writestr(info, b"\0\0\0\0" + data[4:] if info.filename.endswith(".pyc") else data)
    root = make_project(tmp_path)
    env = python_env(hermetic_home)
    write = ["write", "--keyword", "deploy", "Ship on Fridays."]
    assert run_archive(archive, write, root, env)[0] == 0
    start = payload("claude-code", "SessionStart.startup", root)
    code, out, compiled = run_archive(archive, ["hook", "SessionStart"], root, env, start)
    assert code == 0
    assert "#deploy" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert f"{archive}/__main__.py" in compiled
    assert f"{archive}/pi_memory/hosts/hooks.py" in compiled


def _vendored(tmp_path: Path) -> Path:
    """A copy of the package with no bytecode beside it."""
    vendor = tmp_path / "vendor"
    shutil.copytree(
        REPO / "pi_memory", vendor / "pi_memory", ignore=shutil.ignore_patterns("__pycache__")
    )
    return vendor / "pi_memory"


def test_install_compiles_the_package_so_a_hook_compiles_nothing(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """Where bytecode is never written (``PYTHONDONTWRITEBYTECODE``), every hook compiled
    every module it imported; ``install`` compiles them once, as pip does."""
    from tests.hookhelp import make_project, payload

    package = _vendored(tmp_path)
    root = make_project(tmp_path)
    env = python_env(hermetic_home, PYTHONDONTWRITEBYTECODE="1")
    hook = ["hook", "--host", "claude-code", "UserPromptSubmit"]
    prompt = payload("claude-code", "UserPromptSubmit", root, prompt="do we ship on fridays?")
    assert (
        run_archive(package, ["write", "--keyword", "ship", "Ship on Fridays."], root, env)[0] == 0
    )
    compiled = run_archive(package, hook, root, env, prompt)[2]
    assert f"{package}/hosts/hooks.py" in compiled  # the control: nothing kept them
    assert not list(package.rglob("__pycache__"))
    install = [sys.executable, "-S", str(package), "install", "claude-code", "--no-model"]
    subprocess.run(install, cwd=root, env=env, check=True, capture_output=True)
    again = payload(
        "claude-code", "UserPromptSubmit", root, prompt="do we ship on fridays?", session_id="b"
    )
    code, out, compiled = run_archive(package, hook, root, env, again)
    assert (code, compiled) == (0, [])
    assert "Ship on Fridays." in out  # a new session: the memory is surfaced again


def test_install_compiles_a_read_only_package_into_the_cache(
    tmp_path: Path, hermetic_home: Path
) -> None:
    """A vendored copy on a read-only mount: its bytecode goes where its hooks read it."""
    from tests.hookhelp import make_project, payload

    package = _vendored(tmp_path)
    root = make_project(tmp_path)
    cache = tmp_path / "cache"
    probe = tmp_path / "probe.txt"
    env = python_env(
        hermetic_home, PYTHONDONTWRITEBYTECODE="1", XDG_CACHE_HOME=str(cache), PROBE=str(probe)
    )
    install = [sys.executable, "-S", str(package), "install", "claude-code", "--no-model"]
    run_read_only(package, install, root, env)
    write = [sys.executable, "-S", str(package), "write", "--keyword", "ship", "Ship on Fridays."]
    run_read_only(package, write, root, env)
    assert not list(package.rglob("__pycache__"))
    tag = sys.implementation.cache_tag
    assert list((cache / "pi_memory" / "pycache").rglob(f"hooks.{tag}.pyc"))
    event = tmp_path / "event.json"
    event.write_text(payload("claude-code", "SessionStart.startup", root), "utf-8")
    hook = [sys.executable, "-S", "-c", PROBE, str(package), "hook", "SessionStart"]
    out = run_read_only(package, ["sh", "-c", f'exec "$@" < {event}', "sh", *hook], root, env)
    assert "#ship" in out
    compiled = probe.read_text("utf-8").splitlines()
    # Only what runs before the prefix is set, as small as it is.
    first = {"__main__.py", "__init__.py", "fs/__init__.py", "fs/cache_home.py"}
    assert {str(Path(n).relative_to(package)) for n in compiled} <= first
    assert len(compiled) <= len(first)
