"""The single-file build and bytecode in read-only places: what only a real process shows."""

from __future__ import annotations

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
