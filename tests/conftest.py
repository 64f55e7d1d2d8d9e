from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pi_memory.store import Store
    from tests.fake_provider import FakeProvider

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


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
