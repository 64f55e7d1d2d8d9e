"""The install goldens: each host's config files before and after ``install``.

``tests/data/install/<host>-<scope>/before/`` holds a user's files (``home/``
is ``$HOME``, ``repo/`` the project) and ``after/`` what install leaves,
run with the arguments in the case's ``args`` file when it has one (``--model …``),
with the machine's paths written as ``/usr/bin/python3`` and
``/opt/pi_memory`` so the goldens read the same on every machine.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.conftest import DATA, REPO
from tests.inproc import call

CASES_DIR = DATA / "install"
PYTHON = "/usr/bin/python3"
PACKAGE = "/opt/pi_memory"
BACKUP = ".pi_memory.bak"


def cases() -> list[str]:
    return sorted(p.name for p in CASES_DIR.iterdir() if (p / "before").is_dir())


#: A case whose ``before`` is what an earlier version's install left (hooks on events
#: this one no longer hooks): install upgrades it, uninstall removes it whole.
PREVIOUS = "+previous"


def restored(case: str) -> dict[str, object]:
    """What uninstall of a ``+previous`` case leaves: the user's files before that
    earlier install (its plain case's ``before``), as :func:`content` reads them: the
    bytes that install found are not kept, so the layout may differ."""
    plain = case.removesuffix(PREVIOUS)
    return content(snapshot_before(plain))


def content(files: dict[str, bytes]) -> dict[str, object]:
    """What each file says: JSON parsed, other text without its trailing blank lines."""
    import json

    return {
        name: json.loads(data) if name.endswith(".json") else data.decode("utf-8").rstrip()
        for name, data in files.items()
    }


def snapshot_before(case: str) -> dict[str, bytes]:
    before = CASES_DIR / case / "before"
    files = {}
    for part in ("home", "repo"):
        if (before / part).is_dir():
            files.update({f"{part}/{k}": v for k, v in snapshot(before / part).items()})
    return files


def host_and_scope(case: str) -> tuple[str, str]:
    """``gemini-user`` and ``gemini-user+comments`` (a variant of its files) → gemini, user."""
    host, scope = case.partition("+")[0].rsplit("-", 1)
    return host, scope


def placeholders(data: bytes) -> bytes:
    """The machine's interpreter and package paths as the goldens spell them."""
    python = str(Path(sys.executable).resolve())
    return data.replace(python.encode(), PYTHON.encode()).replace(
        str(REPO / "pi_memory").encode(), PACKAGE.encode()
    )


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but backups and placeholders, by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(BACKUP) and p.name != ".keep"
    }


def lay_out(case: str, tmp: Path, home: Path) -> Path:
    """The case's ``before`` files in place: ``home/`` into ``home``, ``repo/`` in ``tmp/repo``."""
    before = CASES_DIR / case / "before"
    if (before / "home").is_dir():
        shutil.copytree(before / "home", home, dirs_exist_ok=True)
    repo = tmp / "repo"
    shutil.copytree(before / "repo", repo) if (before / "repo").is_dir() else repo.mkdir()
    if case.endswith(PREVIOUS):  # the earlier install ran on this machine
        for path in [*home.rglob("*"), *repo.rglob("*")]:
            if path.is_file():
                path.write_bytes(machine_paths(path.read_bytes()))
    return repo


def machine_paths(data: bytes) -> bytes:
    """The goldens' interpreter and package paths as this machine's (:func:`placeholders`)."""
    python = str(Path(sys.executable).resolve())
    return data.replace(PYTHON.encode(), python.encode()).replace(
        PACKAGE.encode(), str(REPO / "pi_memory").encode()
    )


def state(tmp: Path, home: Path) -> dict[str, bytes]:
    files = {f"home/{k}": placeholders(v) for k, v in snapshot(home).items()}
    files.update({f"repo/{k}": placeholders(v) for k, v in snapshot(tmp / "repo").items()})
    return files


def install(case: str, repo: Path, *extra: str) -> str:
    host, scope = host_and_scope(case)
    args = CASES_DIR / case / "args"
    if not extra and args.is_file():
        extra = tuple(args.read_text("utf-8").split())
    result = call("install", host, "--scope", scope, *extra, cwd=repo)
    assert (result.code, result.err) == (0, ""), result.err
    return result.out


def expected(case: str) -> dict[str, bytes]:
    return snapshot(CASES_DIR / case / "after")


def write_expected(case: str, files: dict[str, bytes]) -> None:
    after = CASES_DIR / case / "after"
    shutil.rmtree(after, ignore_errors=True)
    for name, data in files.items():
        target = after / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
