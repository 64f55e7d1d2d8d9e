"""Adapters for project identity, directory names and entry file names (see
tests/conformance.py), and the tests of what those vectors leave out."""

from __future__ import annotations

import hashlib
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


def _platform(case_input: dict[str, Any]) -> str:
    # null means "POSIX" in the vectors.
    return case_input.get("platform") or platforms.LINUX


def _remotes(case_input: dict[str, Any]) -> list[tuple[str, str]]:
    return [(name, url) for name, url in case_input["remotes"]]


# --------------------------------------------------------------------------
# project_key.json
# --------------------------------------------------------------------------


def check_project_key(case: dict[str, Any], home: Path) -> None:
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
        home_dir = inp.get("homedir", str(home))
        base = expand_user_path(
            inp["memoryDir"], Path(inp.get("process_cwd", "/")), platform, home_dir
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
        value = expected["value"] if isinstance(expected, dict) else expected
        if isinstance(expected, dict):
            assert expected.get("algorithm", "sha256") == "sha256"
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
        assert digest[: len(value)] == value
        assert dir_names.hash8(key) == value
        # The suffix format on a real over-long name: <= 100 bytes, then __<hash8>.
        name = dir_names.project_dir_name(key, platforms.LINUX)
        if len(name.encode("utf-8")) != len(key.encode("utf-8")) and name.endswith(value):
            prefix = name[: -len(value) - 2]
            assert name[-len(value) - 2 :] == "__" + value
            assert len(prefix.encode("utf-8")) <= dir_names.DIR_NAME_KEEP_BYTES
    else:
        raise AssertionError(f"vector with unknown fn {fn!r}")


# --------------------------------------------------------------------------
# windows_names.json
# --------------------------------------------------------------------------

WINDOWS_FUNCTIONS = {
    "isReservedWindowsName": windows.is_reserved_windows_name,
    "escapeWindowsTrailing": windows.escape_windows_trailing,
    "windowsSafeName": windows.windows_safe_name,
}


def check_windows_name(case: dict[str, Any]) -> None:
    function = WINDOWS_FUNCTIONS[case["input"]["fn"]]
    assert function(case["input"]["name"]) == case["expected"]


# --------------------------------------------------------------------------
# entry_filename.json
# --------------------------------------------------------------------------


def _simulated_file_choices(inp: dict[str, Any]) -> list[str]:
    """The file names a store on a case-insensitive filesystem picks (this test runs on
    a case-sensitive one): the naming rule with case folded."""
    files: dict[str, str] = {}
    chosen: list[str] = []
    for name in inp["adds"]:
        others = [file for other, file in files.items() if other != name]
        file = files.get(name) or entry_names.unique_entry_file_name(name, others)
        files[name] = file
        chosen.append(file)
    replace = inp.get("replace")
    if replace is not None:
        own = files.pop(replace["ref"])
        taken = [file for file in files.values() if file != own]
        file = entry_names.unique_entry_file_name(replace["name"], taken)
        files[replace["name"]] = file
        chosen.append(file)
    return chosen


def _store_file_choices(inp: dict[str, Any], directory: Path) -> list[str]:
    """The file names a real store picks for a sequence of adds (and one rename)."""
    from pi_memory.layouts.files.layer import FilesLayer

    if "case-insensitive" in inp.get("fs", "") and not _case_insensitive(directory):
        return _simulated_file_choices(inp)
    layer = FilesLayer("project", directory)
    chosen = [layer.add(name, f"Body of {name}.").file for name in inp["adds"]]
    replace = inp.get("replace")
    if replace is not None:
        layer.rename(replace["ref"], replace["name"])
        found = layer.find(replace["name"])
        assert found is not None
        chosen.append(found.file)
    return chosen


def _case_insensitive(directory: Path) -> bool:
    directory.mkdir(parents=True, exist_ok=True)
    probe = directory / "Case-Probe"
    probe.write_text("")
    try:
        return (directory / "case-probe").exists()
    finally:
        probe.unlink()


def check_entry_filename(case: dict[str, Any], tmp_path: Path) -> None:
    inp, expected = case["input"], case["expected"]
    fn = inp["fn"]
    if fn == "entryFileName":
        assert entry_names.entry_file_name(inp["name"]) == expected
    elif fn == "resolveUniqueFileName":
        assert entry_names.resolve_unique_file_name(inp["base"], set(inp["used"])) == expected
    else:
        assert fn == "MemoryStore.addEntry file choice"
        assert _store_file_choices(inp, tmp_path / "store") == expected


def test_case_sensitive_store_keeps_the_plain_name(tmp_path: Path) -> None:
    # The other half of the case-insensitive-fs vector's note.
    inp = {"fs": "case-sensitive", "adds": ["Foo Bar", "FOO BAR"]}
    assert _store_file_choices(inp, tmp_path) == ["Foo-Bar.md", "FOO-BAR.md"]
