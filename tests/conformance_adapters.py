"""The table of the conformance harness: a behaviour's name → an adapter over pi_memory.

Every adapter takes the case's ``input`` and ``expected`` and the harness's
context, and reads what its inputs hold (see :mod:`tests.conformance`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests import (
    conformance_config,
    conformance_inject_window,
    conformance_lock,
    conformance_sanitize,
    conformance_status,
    test_conformance_files,
    test_conformance_naming,
    test_fsretry,
    test_snapshot,
)

if TYPE_CHECKING:
    from tests.conformance import Adapter, Ctx


def _case(given: dict[str, Any], expected: Any) -> dict[str, Any]:
    return {"input": given, "expected": expected}


def _store(ctx: Ctx) -> Any:
    directory = ctx.tmp_path / "store"
    directory.mkdir(exist_ok=True)
    return directory


def config(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    conformance_config.run(_case(given, expected), ctx.home, ctx.tmp_path)


def files(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    test_conformance_files.HANDLERS[given["fn"]](_case(given, expected), ctx.tmp_path)


def project_key(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    test_conformance_naming.check_project_key(_case(given, expected), ctx.home)


def windows_name(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    test_conformance_naming.check_windows_name(_case(given, expected))


def entry_filename(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    test_conformance_naming.check_entry_filename(_case(given, expected), ctx.tmp_path)


def inject_window(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    conformance_inject_window.run(given, expected)


def side_query_task(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    conformance_inject_window.side_query_task(given, expected)


def constant(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    conformance_inject_window.constant(given, expected)


def sanitize(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    conformance_sanitize.check(given, expected)


def lock(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    from tests.conformance import kind_of

    conformance_lock.ADAPTERS[kind_of(given)](_store(ctx), given, expected)
    if kind_of(given) == "what: /memory unlock":
        conformance_lock.v_unlock_flow(_store(ctx), ctx.capsys, expected)


def fs_retry(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    test_fsretry.fs_retry_vector(given, expected, ctx.tmp_path)


def snapshot(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    store = _store(ctx)
    (store / "MEMORY.md").write_text("# Memory Index\n\n- [A](A.md) — a\n")
    (store / "A.md").write_text("---\nname: A\n---\n\nbody\n")
    test_snapshot.snapshot_vector(given, expected, store)


def create_snapshot(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    """``createSnapshot``: a copy that fails once (retried), or a backup root that fails."""
    if "cp_fails_once_with" in given:
        fs_retry(given, expected, ctx)
    else:
        snapshot(given, expected, ctx)


def status(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    conformance_status.memory_status(given, expected, ctx.tmp_path)


def index_lines_only(given: dict[str, Any], expected: Any, ctx: Ctx) -> None:
    conformance_status.index_lines_only(given, expected, ctx.tmp_path)


def _table() -> dict[str, Adapter]:
    table: dict[str, Adapter] = {}
    groups: list[tuple[Adapter, tuple[str, ...]]] = [
        (
            config,
            (
                "DEFAULT_CONFIG",
                "loadConfig",
                "expandTilde",
                "requiredModels",
                "modelConfigErrors",
                "session_start",
                "memory tool when misconfigured",
            ),
        ),
        (files, tuple(test_conformance_files.HANDLERS)),
        (
            project_key,
            (
                "normalizeRemoteUrl",
                "projectDirName",
                "assertInsideRoot",
                "projectIdentity",
                "resolveMemoryDir",
                "memoryDirRelative",
                "hash8",
            ),
        ),
        (windows_name, tuple(test_conformance_naming.WINDOWS_FUNCTIONS)),
        (
            entry_filename,
            ("entryFileName", "resolveUniqueFileName", "MemoryStore.addEntry file choice"),
        ),
        (
            inject_window,
            (
                "truncateIndexForInjection",
                "truncateForInjection",
                "indexInjectionCapacity",
                "injectSurfacedContent",
                "scanEntries",
            ),
        ),
        (constant, ("constant",)),
        (side_query_task, ("buildSideQueryTask",)),
        (sanitize, ("stripInvisibleChars", "sanitizeForInjection", "buildIndexSection")),
        (lock, tuple(conformance_lock.ADAPTERS)),
        (fs_retry, ("isTransientFsError", "withFsRetry", "pruneSnapshots rm options")),
        (create_snapshot, ("createSnapshot",)),
        (snapshot, ("snapshot dir name", "createSnapshot twice")),
        (status, ("/memory",)),
        (index_lines_only, ("/memory (Index+Inject lines only)",)),
    ]
    for adapter, names in groups:
        for name in names:
            table[name] = adapter
    return table


ADAPTERS: dict[str, Adapter] = _table()
#: Names written with a count or a literal in them.
PATTERNS: list[tuple[str, Adapter]] = [
    (r"createSnapshot x\d+ with migrate-\S+ present", snapshot),
    (r"createSnapshot (twice|x\d+)", snapshot),
]
