from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest


def _keep_bytecode() -> None:
    """Compile the package and the tests once, not once per run and per interpreter.

    With ``PYTHONDONTWRITEBYTECODE`` set, every run recompiled ~230 modules
    and every interpreter a test starts recompiled the package again. The
    suite keeps its bytecode in a private prefix instead (never beside the
    sources, and the environment's setting is otherwise honoured: nothing is
    written into the checkout). Python checks a cached file against its
    source, so an edit is always seen. Runs before any test module is imported.
    """
    if not sys.dont_write_bytecode or sys.pycache_prefix:
        return
    uid = os.getuid() if hasattr(os, "getuid") else 0
    prefix = os.path.join(tempfile.gettempdir(), f"pi_memory-tests-{uid}-pycache")
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_keep_bytecode()


def _temporary_files_in_memory() -> None:
    """Put the tests' temporary directories on ``/dev/shm`` when the machine has it.

    The engine syncs every write to disk, as it must; on a disk the suite spent
    seconds waiting for ``fsync``. The code paths are the same on a memory file
    system (tests of a full disk mount their own). ``PYTEST_DEBUG_TEMPROOT``, when
    set, still decides.
    """
    shm = "/dev/shm"
    if "PYTEST_DEBUG_TEMPROOT" not in os.environ and os.path.isdir(shm) and os.access(shm, os.W_OK):
        os.environ["PYTEST_DEBUG_TEMPROOT"] = shm


_temporary_files_in_memory()

if TYPE_CHECKING:
    from pi_memory.store import Store
    from tests.fake_provider import FakeProvider

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh directory for each test, under the run's base directory like pytest's own.

    pytest numbers each test's directory after listing every directory the run has
    made so far: quadratic in the number of tests (about 4 s of CPU in a run of
    2,000). A name from ``mkdtemp`` is unique without looking.
    """
    name = re.sub(r"\W", "_", request.node.name)[:30]
    return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=tmp_path_factory.getbasetemp()))


@pytest.fixture(autouse=True)
def hermetic_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own HOME: nothing may touch the real user store."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in list(os.environ):
        if name.startswith(("PI_MEMORY", "XDG_")):
            monkeypatch.delenv(name)
    return home


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A model provider on 127.0.0.1 speaking both wire formats (see tests/fake_provider.py)."""
    from tests.fake_provider import FakeProvider

    fake = FakeProvider()
    try:
        yield fake
    finally:
        fake.close()


def files_store(project_dir: Path, **settings: Any) -> Store:
    """An engine over a ``files`` layout whose project layer is ``project_dir``."""
    from pi_memory.store import Settings, Store

    dirs = {"project": project_dir, "user": project_dir.parent / "user-layer"}
    return Store(Settings(layout="files", dirs=dirs, project_name="shop", **settings))


@pytest.fixture
def in_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh project directory, made the current directory (for in-process CLI runs)."""
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh git repository: the project a command runs in."""
    import subprocess

    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores this process may use, at most 8.

    Much of the suite waits (child processes, lock timeouts, deadlines): a
    worker beyond the core count fills those waits (on 2 cores: 21 s → 18 s).
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min((cores or 1) + 1, 8)
