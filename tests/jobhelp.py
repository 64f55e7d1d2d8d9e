"""Scaffolding for the model jobs' end-to-end tests: a store on disk, the CLI in process,
golden request bodies and a byte-for-byte picture of the store."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from pi_memory.cli import main
from tests.fake_provider import FakeProvider, memory_json, write_memory_json

GOLDEN = Path(__file__).resolve().parent / "data" / "jobs"
NEW_ID_RE = re.compile(r"\b20\d{6}-[0-9a-f]{4}\b")


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def configure(fake: FakeProvider, home: Path, api: str, **settings: Any) -> None:
    write_memory_json(home, memory_json(fake, api=api, **settings))


def category_row(id_: str, time: str, keyword: str, body: str, project: str = "proj") -> str:
    return (
        f"<!-- mid: {id_} | t: {time} | p: {project} | src: user | tags: {keyword} -->\n{body}\n\n"
    )


def files_entry(
    id_: str, name: str, *, description: str, kind: str, modified: str, body: str
) -> str:
    return (
        f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n"
        f"created: {modified[:10]}\nmodified: {modified}\nid: {id_}\n---\n\n{body}\n"
    )


def picture(*roots: Path) -> dict[str, bytes]:
    """Every file under ``roots`` with its bytes (the store, byte for byte).

    The spend ledger, which records every call (failed ones too), is not the store.
    """
    found: dict[str, bytes] = {}
    for root in roots:
        if root.exists():
            for path in sorted(root.rglob("*")):
                if path.is_file() and not path.name.startswith("model-usage-"):
                    found[str(path)] = path.read_bytes()
    return found


def check_golden(name: str, data: bytes) -> None:
    """``data`` equals ``tests/data/jobs/<name>``; a missing golden is written and fails."""
    path = GOLDEN / name
    if not path.exists():
        path.write_bytes(data + b"\n")
        pytest.fail(f"golden {name} was missing and has been written: read it, then rerun")
    golden = path.read_bytes()
    assert golden.endswith(b"\n"), name
    assert data == golden[:-1], name


def check_golden_json(name: str, data: Any) -> None:
    check_golden(name, json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True).encode())


def without_new_ids(data: Any, old: Sequence[str]) -> Any:
    """``data`` with every id not in ``old`` replaced by ``<new>`` (ids are random)."""
    text = json.dumps(data, ensure_ascii=False)
    text = NEW_ID_RE.sub(lambda m: m.group() if m.group() in old else "<new>", text)
    return json.loads(text)


def files_project(
    tmp_path: Path, home: Path, fake: FakeProvider, api: str = "openai", **settings: Any
) -> Path:
    """A project using the files layout with ``fake`` as its model; its project layer directory
    (created, empty). The caller has changed into ``tmp_path / "proj"``."""
    from pi_memory.open_store import open_store

    configure(fake, home, api, layout="files", memoryDir=str(tmp_path / "mem"), **settings)
    store = open_store().store
    directory = store.directory("project")
    directory.mkdir(parents=True)
    return directory
