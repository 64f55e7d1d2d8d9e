"""The detectors' output on generated stores, pinned byte for byte.

Any change to how the duplicate and conflict detectors find their pairs (the
facts they read of a body, the joins that pick candidates) must find the very
same pairs, scores and values: these goldens were made by the detectors as
they were before the joins were reworked. The stores hold English prose,
Chinese text, rewordings, renumberings, versions and paths; the layout tests
read them back through each layout, from scratch and from the kept facts, as
``show`` does.

To remake a golden after a deliberate change of the rules (never to make a
failing run pass): ``python -m tests.test_detector_golden``.
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

import pytest

from pi_memory.detect.conflicts import ConflictPair, find_conflicts
from pi_memory.detect.duplicates import DuplicatePair, find_duplicates
from pi_memory.entry import Entry
from tests.similarity_stores import narrow_store, realistic_store

GOLDEN = Path(__file__).parent / "data" / "detect"
NOW = datetime(2026, 12, 1, 12, 0, 0)
#: Store sizes and the seed each is generated from.
SIZES = {300: 3, 3000: 30, 12000: 120}
LAYOUT_SIZE = 1500


def _duplicate_line(pair: DuplicatePair) -> str:
    shared = "|".join(pair.shared)
    return f"{pair.a}\t{pair.b}\t{pair.layer}\t{pair.score!r}\t{pair.token!r}\t{shared}"


def _conflict_line(pair: ConflictPair) -> str:
    values = "|".join(pair.values)
    return (
        f"{pair.older}\t{pair.newer}\t{pair.layer}\t{pair.shared}\t{values}\t"
        f"{pair.confidence!r}\t{pair.similarity!r}\t{pair.numeric}"
    )


def rendered(duplicates: list[DuplicatePair], conflicts: list[ConflictPair]) -> str:
    lines = [f"duplicates {len(duplicates)}", *map(_duplicate_line, duplicates)]
    lines += [f"conflicts {len(conflicts)}", *map(_conflict_line, conflicts)]
    return "\n".join(lines) + "\n"


def detected(entries: list[Entry], known: dict | None = None) -> str:  # type: ignore[type-arg]
    """Both detectors as ``show`` runs them: duplicates first, conflicts on the same list."""
    return rendered(
        find_duplicates(entries, known=known, now=NOW),
        find_conflicts(entries, known=known, now=NOW),
    )


def golden(name: str) -> str:
    return (GOLDEN / name).read_bytes().decode("utf-8")


def _fresh(entries: list[Entry]) -> list[Entry]:
    """Copies, so that no detector reuses what an earlier run worked out for the same objects."""
    return [entry._replace() for entry in entries]


@pytest.mark.parametrize("size", sorted(SIZES))
def test_generated_store_finds_the_pinned_pairs(size: int) -> None:
    text = detected(_fresh(realistic_store(size, SIZES[size])))
    assert text == golden(f"store_{size}.txt")


def test_the_golden_stores_hold_every_kind_of_pair() -> None:
    # The comparisons above must not pass vacuously.
    text = golden("store_3000.txt")
    rows = [line.split("\t") for line in text.splitlines() if "\t" in line]
    duplicates = [row for row in rows if len(row) == 6]
    conflicts = [row for row in rows if len(row) == 8]
    assert any(row[3] == "1.0" for row in duplicates)
    assert any(row[3] != "1.0" and not row[5] for row in duplicates)  # no keyword shared
    assert {row[2] for row in duplicates} == {"user", "project"}
    assert any(row[7] == "True" and "." in row[4] for row in conflicts)  # a version
    assert any(row[7] == "False" for row in conflicts)  # replaced words
    han = {entry.id for entry in realistic_store(3000, 30) if not entry.body.isascii()}
    assert any(row[0] in han and row[1] in han for row in duplicates)
    assert any(row[0] in han and row[1] in han for row in conflicts)


def test_templated_store_finds_the_pinned_pairs() -> None:
    assert detected(_fresh(narrow_store(7, 1200))) == golden("narrow_1200.txt")


def _categories_store(root: Path, entries: list[Entry]) -> object:
    from pi_memory.layouts.categories.format import format_entry
    from pi_memory.store import Settings, Store

    dirs = {"user": root / "user", "project": root / "project"}
    files: dict[Path, list[str]] = {}
    for entry in entries:
        files.setdefault(dirs[entry.layer] / entry.file, []).append(format_entry(entry))
    _write(files)
    return Store(Settings(layout="categories", dirs=dirs, project_name="shop"))


def _files_store(root: Path, entries: list[Entry]) -> object:
    from pi_memory.layouts.files.format import entry_to_text
    from pi_memory.store import Settings, Store

    dirs = {"user": root / "user", "project": root / "project"}
    files: dict[Path, list[str]] = {}
    for n, entry in enumerate(entries):
        name = f"memory-{n:05d}"
        stored = entry._replace(
            name=name,
            description=" ".join(entry.body.split())[:60],
            type="project",
            created="2026-06-01",
            modified="2026-06-01T08:00:00.000Z",
            file=f"{name}.md",
        )
        files[dirs[entry.layer] / stored.file] = [entry_to_text(stored)]
    _write(files)
    return Store(Settings(layout="files", dirs=dirs, project_name="shop"))


def _write(files: dict[Path, list[str]]) -> None:
    an_hour_ago = time.time() - 3600  # written earlier: the kept facts may be kept
    for path, rows in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(rows), "utf-8")
        os.utime(path, (an_hour_ago, an_hour_ago))


def _layout_report(store: object) -> str:
    """Both detectors per layer as ``show`` runs them, with the kept facts where the
    layout keeps them (the first call works them out and keeps them, the second reads them)."""
    from pi_memory.detect.feature_cache import known_facts

    parts: list[str] = []
    for layer in ("project", "user"):
        entries = store.read(layer)  # type: ignore[attr-defined]
        sources = store.layer(layer).search_sources()  # type: ignore[attr-defined]
        reports = {detected(_fresh(entries))}
        if sources is not None:
            for _ in range(2):
                copies = _fresh(entries)
                files = [
                    (path, [e for e in copies if e.file == path.name and e.live])
                    for path, _ in sources
                ]
                known = known_facts(files)
                reports.add(detected(copies, known))
        assert len(reports) == 1, "the kept facts found other pairs"
        parts.append(f"layer {layer}\n{reports.pop()}")
    return "".join(parts)


@pytest.mark.parametrize("layout", ["categories", "files"])
def test_each_layout_finds_the_pinned_pairs(tmp_path: Path, layout: str) -> None:
    make = _categories_store if layout == "categories" else _files_store
    store = make(tmp_path, realistic_store(LAYOUT_SIZE, 15))
    assert _layout_report(store) == golden(f"layouts_{LAYOUT_SIZE}.txt")


def _remake() -> None:  # pragma: no cover - run by hand, see the module docstring
    import tempfile

    GOLDEN.mkdir(parents=True, exist_ok=True)
    for size, seed in SIZES.items():
        (GOLDEN / f"store_{size}.txt").write_bytes(
            detected(_fresh(realistic_store(size, seed))).encode("utf-8")
        )
    (GOLDEN / "narrow_1200.txt").write_bytes(detected(narrow_store(7, 1200)).encode("utf-8"))
    for make in (_categories_store, _files_store):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp, "cache"))
            text = _layout_report(make(Path(tmp), realistic_store(LAYOUT_SIZE, 15)))
            (GOLDEN / f"layouts_{LAYOUT_SIZE}.txt").write_bytes(text.encode("utf-8"))


if __name__ == "__main__":
    _remake()
