"""Conformance vectors for project identity, directory names and entry file names.

One test case per vector of ``tests/data/conformance/{project_key,
windows_names,entry_filename}.json`` (copies of the shared vectors).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from pi_memory.errors import ConfigError
from pi_memory.naming import (
    dir_names,
    entry_names,
    platforms,
    project_key,
    remote_url,
    windows,
)
from pi_memory.naming.home import expand_user_path
from tests.conftest import DATA

VECTORS = DATA / "conformance"


def _load(name: str) -> list[Any]:
    cases = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    assert cases, f"no vectors in {name}"
    return [pytest.param(case, id=case["id"]) for case in cases]


def _platform(case_input: dict[str, Any]) -> str:
    # null means "POSIX" in the vectors.
    return case_input.get("platform") or platforms.LINUX


def _remotes(case_input: dict[str, Any]) -> list[tuple[str, str]]:
    return [(name, url) for name, url in case_input["remotes"]]


# --------------------------------------------------------------------------
# project_key.json
# --------------------------------------------------------------------------


def _check_project_key_vector(case: dict[str, Any], home: Path) -> None:
    inp, expected = case["input"], case["expected"]
    fn = inp["fn"]
    if fn == "normalizeRemoteUrl":
        assert remote_url.normalize_remote_url(inp["url"], _platform(inp)) == expected
    elif fn == "projectDirName":
        assert dir_names.project_dir_name(inp["key"], _platform(inp)) == expected
    elif fn == "assertInsideRoot":
        if expected["throws"]:
            with pytest.raises(ConfigError) as info:
                project_key.assert_inside_root(inp["base"], inp["dir"], _platform(inp))
            assert str(info.value) == expected["message"]
        else:
            project_key.assert_inside_root(inp["base"], inp["dir"], _platform(inp))
    elif fn == "projectIdentity":
        identity = project_key.identify_project(
            inp["cwd"], inp["toplevel"], _remotes(inp), _platform(inp)
        )
        assert {"kind": identity.kind, "key": identity.key} == expected
        assert identity.root == Path(inp["toplevel"] or inp["cwd"])
    elif fn == "resolveMemoryDir":
        platform = _platform(inp)
        base = expand_user_path(
            inp["memoryDir"], Path(inp.get("process_cwd", "/")), platform, str(home)
        )
        identity = project_key.ProjectKey(
            inp["identity"]["kind"], inp["identity"]["key"], Path("/")
        )
        assert project_key.resolve_memory_dir(str(base), identity, platform) == expected
    elif fn == "memoryDirRelative":
        platform = _platform(inp)
        identity = project_key.identify_project(
            inp["toplevel"], inp["toplevel"], _remotes(inp), platform
        )
        assert project_key.memory_dir_relative(identity, platform) == expected
    elif fn == "hash8":
        key = inp["key"]
        assert expected["algorithm"] == "sha256"
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        assert digest[: len(expected["value"])] == expected["value"]
        assert dir_names.hash8(key) == expected["value"]
        # The suffix format on a real over-long name: <= 100 bytes, then __<hash8>.
        name = dir_names.project_dir_name(key, platforms.LINUX)
        prefix, _, suffix = name.rpartition("__")
        assert suffix == expected["value"]
        assert len(prefix.encode("utf-8")) <= dir_names.DIR_NAME_KEEP_BYTES
        assert name.startswith(prefix)
    else:
        raise AssertionError(f"vector with unknown fn {fn!r}")


@pytest.mark.parametrize("case", _load("project_key.json"))
def test_project_key_vector(case: dict[str, Any], hermetic_home: Path) -> None:
    _check_project_key_vector(case, hermetic_home)


# --------------------------------------------------------------------------
# windows_names.json
# --------------------------------------------------------------------------

WINDOWS_FUNCTIONS = {
    "isReservedWindowsName": windows.is_reserved_windows_name,
    "escapeWindowsTrailing": windows.escape_windows_trailing,
    "windowsSafeName": windows.windows_safe_name,
}


@pytest.mark.parametrize("case", _load("windows_names.json"))
def test_windows_names_vector(case: dict[str, Any]) -> None:
    function = WINDOWS_FUNCTIONS[case["input"]["fn"]]
    assert function(case["input"]["name"]) == case["expected"]


# --------------------------------------------------------------------------
# entry_filename.json
# --------------------------------------------------------------------------


def _store_file_choices(inp: dict[str, Any]) -> list[str]:
    """The file names a store picks for a sequence of adds (and one rename)."""
    case_insensitive = "case-insensitive" in inp.get("fs", "case-insensitive")
    files: dict[str, str] = {}
    chosen: list[str] = []
    for name in inp["adds"]:
        file = entry_names.unique_entry_file_name(
            name, files.values(), case_insensitive=case_insensitive
        )
        files[name] = file
        chosen.append(file)
    replace = inp.get("replace")
    if replace is not None:
        own = files.pop(replace["ref"])
        # The entry's own file is not a clash for itself.
        taken = [file for file in files.values() if file != own]
        file = entry_names.unique_entry_file_name(
            replace["name"], taken, case_insensitive=case_insensitive
        )
        files[replace["name"]] = file
        chosen.append(file)
    return chosen


@pytest.mark.parametrize("case", _load("entry_filename.json"))
def test_entry_filename_vector(case: dict[str, Any]) -> None:
    inp, expected = case["input"], case["expected"]
    fn = inp["fn"]
    if fn == "entryFileName":
        assert entry_names.entry_file_name(inp["name"]) == expected
    elif fn == "resolveUniqueFileName":
        assert entry_names.resolve_unique_file_name(inp["base"], set(inp["used"])) == expected
    elif fn == "MemoryStore.addEntry file choice":
        assert _store_file_choices(inp) == expected
    else:
        raise AssertionError(f"vector with unknown fn {fn!r}")


def test_case_sensitive_store_keeps_the_plain_name() -> None:
    # The other half of the case-insensitive-fs vector's note.
    inp = {"fs": "case-sensitive", "adds": ["Foo Bar", "FOO BAR"]}
    assert _store_file_choices(inp) == ["Foo-Bar.md", "FOO-BAR.md"]
