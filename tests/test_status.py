from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_memory.config.models import model_config_errors
from pi_memory.config.parse import parse_config
from pi_memory.config.schema import Config
from pi_memory.fs.lock import describe_status, read_lock_status
from pi_memory.inject.inject_window import build_index_section, index_injection_capacity
from pi_memory.layouts.files.status import status_json, status_lines
from tests.conftest import DATA

STATUS = DATA / "status"
CONFIGS: dict[str, dict[str, Any]] = json.loads((STATUS / "configs.json").read_text("utf-8"))
ERRORS = [
    'no model for dream — set "dream.model" or "defaults.model" in memory.json',
    'model "x/y" for autoSurfacing is not resolvable (unknown id or missing credentials)',
]


def config(raw: dict[str, Any]) -> Config:
    loaded = parse_config(raw, cwd="/", home="/home/you", env={})
    assert loaded.errors == ()
    return loaded.config


def store_facts(directory: Path) -> dict[str, Any]:
    """What ``show`` reads from a store directory, read the way ``show`` reads it."""
    index = directory / "MEMORY.md"
    meta = directory / ".dream-meta.json"
    return {
        "directory": str(directory),
        "index": index.read_bytes() if index.exists() else None,
        "entry_count": 3,
        "dream_meta": meta.read_text(encoding="utf-8") if meta.exists() else None,
        "lock": describe_status(read_lock_status(directory)),
    }


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return Path(shutil.copytree(STATUS / "store", tmp_path / "store"))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_healthy_golden(name: str, store: Path) -> None:
    cfg = config(CONFIGS[name])
    facts = store_facts(store)
    expected = (STATUS / f"{name}.txt").read_text("utf-8").replace("{dir}", str(store))
    assert "\n".join(status_lines(cfg, **facts)) + "\n" == expected
    golden = json.loads((STATUS / f"{name}.json").read_text("utf-8"))
    golden["dir"] = str(store)
    assert status_json(cfg, **facts) == golden


def test_misconfigured_golden() -> None:
    facts = {"directory": "/x", "index": None, "entry_count": 0, "dream_meta": None}
    lines = status_lines(config({}), **facts, lock="free", errors=ERRORS)
    assert "\n".join(lines) + "\n" == (STATUS / "misconfigured.txt").read_text("utf-8")
    data = status_json(config({}), **facts, lock="free", errors=ERRORS)
    assert data == json.loads((STATUS / "misconfigured.json").read_text("utf-8"))


def test_inject_line_is_what_gets_injected(store: Path) -> None:
    """``Inject:`` comes from the window code that builds the injected section."""
    cfg = config(CONFIGS["healthy"])
    raw = (store / "MEMORY.md").read_bytes().decode("utf-8")
    cap = index_injection_capacity(raw, cfg.mem_index_inject_max_lines, 16384)
    section = build_index_section(raw, cfg.mem_index_inject_max_lines, 16384)
    inject = status_lines(cfg, **store_facts(store))[2]
    assert inject == f"Inject: {cap.line_count}/50 lines, {cap.byte_length}/16384 bytes"
    # The section escapes "<!-- … -->" and "<b>": 3 extra bytes for each of 4 brackets.
    assert len(section.encode("utf-8")) - cap.byte_length == 4 * 3


def test_a_fresh_store_has_zeros_never_and_free(tmp_path: Path) -> None:
    lines = status_lines(config(CONFIGS["healthy"]), **store_facts(tmp_path))
    assert lines[1:4] == [
        "Index: 0/200 lines, 0/25600 bytes, 0 unrecognized lines",
        "Inject: 0/50 lines, 0/16384 bytes",
        "Entries: 3",
    ]
    assert lines[5:] == ["Last dream: never", "Lock: free"]


@pytest.mark.parametrize("meta", ["", "not json", "[]", '{"lastDreamAt": 5}', "{}"])
def test_an_unreadable_dream_record_reads_as_never(meta: str, store: Path) -> None:
    (store / ".dream-meta.json").write_text(meta, encoding="utf-8")
    assert status_lines(config({}), **store_facts(store))[5] == "Last dream: never"


def test_an_unreadable_lock_is_reported(store: Path) -> None:
    (store / ".lock").write_bytes(b"garbage")
    assert status_lines(config({}), **store_facts(store))[6] == (
        "Lock: unreadable — run /memory unlock"
    )


def test_invalid_utf8_index_counts_raw_bytes(store: Path) -> None:
    (store / "MEMORY.md").write_bytes(b"- [A](a.md) \xe2\x80\x94 caf\xe9\n")
    assert status_lines(config({}), **store_facts(store))[1] == (
        "Index: 1/200 lines, 21/25600 bytes, 0 unrecognized lines"
    )


def test_model_errors_make_the_misconfigured_form() -> None:
    cfg = config({"defaults": {"model": "nowhere/m"}})
    errors = model_config_errors(cfg, {})
    lines = status_lines(
        cfg,
        directory="/x",
        index=None,
        entry_count=0,
        dream_meta=None,
        lock="free",
        errors=errors,
    )
    assert lines == [
        "Memory: misconfigured",
        "Dir: not initialized",
        '- model "nowhere/m" for dream is not resolvable (unknown id or missing credentials)',
        '- model "nowhere/m" for autoSurfacing is not resolvable '
        "(unknown id or missing credentials)",
    ]
