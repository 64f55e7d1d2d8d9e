"""What the fault-injection tools share: a private HOME and project, in-process commands,
and the checks that every stored file still parses.

Standard library only; the tools run from a clone (``python tools/stress.py``).
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

CATEGORY_NAMES = (
    "USER.md",
    "TOOLING.md",
    "LESSONS.md",
    "CONVENTIONS.md",
    "DECISIONS.md",
    "FAILURES.md",
)


class Ran(NamedTuple):
    code: int
    out: str
    err: str


def private_env(home: Path) -> None:
    """Point this process at ``home`` and nothing else of the user's."""
    for name in list(os.environ):
        if name.startswith(("PI_MEMORY", "XDG_")):
            del os.environ[name]
    os.environ["HOME"] = str(home)
    os.environ["USERPROFILE"] = str(home)
    os.environ["XDG_CACHE_HOME"] = str(home / ".cache")


def make_home(root: Path, name: str, layout: str) -> Path:
    home = root / name
    config = home / ".pi" / "agent" / "memory.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"layout": layout}), "utf-8")
    return home


def run(args: list[str], cwd: Path, stdin: str = "") -> Ran:
    """``python -m pi_memory ARGS`` in this process, from ``cwd``, streams captured."""
    from pi_memory.cli import main

    old_cwd, old_stdin = os.getcwd(), sys.stdin
    out, err = io.StringIO(), io.StringIO()
    try:
        os.chdir(cwd)
        sys.stdin = io.StringIO(stdin)
        with redirect_stdout(out), redirect_stderr(err):
            code = main(args)
    except SystemExit as exc:  # argparse's --help and the like
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        os.chdir(old_cwd)
        sys.stdin = old_stdin
    return Ran(code, out.getvalue(), err.getvalue())


def layer_dirs(home: Path, project: Path) -> dict[str, Path]:
    """Every layer directory a store under ``home`` and ``project`` can have, by a label."""
    found = {
        "categories/user": home / ".pi" / "agent" / "memory-auto",
        "categories/project": project / ".pi" / "agent" / "memory-auto",
        "files/user": home / ".pi" / "memory" / "user",
    }
    local = home / ".pi" / "memory" / "local"
    if local.is_dir():
        for path in sorted(local.iterdir()):
            found[f"files/project:{path.name}"] = path
    return found


def unreadable_files(
    directory: Path, seen: dict[Path, tuple[int, int, int]] | None = None
) -> list[str]:
    """Files of a layer directory that do not parse as what they should be.

    A category file must hold only well-formed row headers where a line reads
    as one; an entry file must be a memory; ``MEMORY.md`` must decode. With
    ``seen`` (each file's identity when it was last checked, kept up to date),
    a file unchanged since is not read again.
    """
    from pi_memory.layouts.categories.format import decode, parse_category_text, parse_header_fields
    from pi_memory.layouts.files.format import parse_entry_file

    bad: list[str] = []
    if not directory.is_dir():
        return bad
    for path in sorted(directory.glob("*.md")):
        if seen is not None:
            st = path.stat()
            identity = (st.st_mtime_ns, st.st_size, st.st_ino)
            if seen.get(path) == identity:
                continue
            seen[path] = identity
        data = path.read_bytes()
        if path.name in CATEGORY_NAMES:
            text = decode(data)
            rows = parse_category_text(text, "project", path.name).rows
            headers = sum(parse_header_fields(line) is not None for line in text.splitlines())
            if headers != len(rows):
                bad.append(path.name)
        elif path.name == "MEMORY.md":
            continue
        elif parse_entry_file(data.decode("utf-8", errors="replace")) is None:
            bad.append(path.name)
    return bad


def stored_bodies(home: Path, project: Path, layer: str) -> list[str]:
    """The bodies of every memory of one layer, as the engine reads them."""
    from pi_memory.open_store import open_store

    private_env(home)
    store = open_store(project).store
    return [entry.body for entry in store.layer(layer).read()]


def dumps(data: Any) -> str:
    return json.dumps(data, indent=1, sort_keys=True)


def project_layer(home: Path, project: Path) -> Path:
    """The project layer directory of the store ``home`` and ``project`` open."""
    from pi_memory.open_store import open_store

    private_env(home)
    return open_store(project).store.directory("project")


def preload(home: Path, project: Path, layout: str, count: int) -> Path:
    """The project layer of ``layout`` with ``count`` memories, written an hour ago
    (files a write may race with are not this new); returns its directory."""
    from bench_detect import make_store

    from pi_memory.entry import CATEGORY_FILES, PROJECT

    layer = project_layer(home, project)
    layer.mkdir(parents=True, exist_ok=True)
    entries = [e._replace(layer=PROJECT) for e in make_store(count, seed=count)]
    if layout == "categories":
        from pi_memory.layouts.categories.format import format_entry

        files = CATEGORY_FILES[PROJECT]
        rows: dict[str, list[str]] = {name: [] for name in files}
        for i, entry in enumerate(entries):
            name = files[i % len(files)]
            rows[name].append(format_entry(entry._replace(file=name)))
        for name, lines in rows.items():
            (layer / name).write_text("".join(lines), "utf-8")
    else:
        _preload_files(layer, entries)
    an_hour_ago = time.time() - 3600
    for path in layer.iterdir():
        os.utime(path, (an_hour_ago, an_hour_ago))
    return layer


def _preload_files(layer: Path, entries: list[Any]) -> None:
    """One entry file per memory and the index listing them (the files layout)."""
    from pi_memory.layouts.carry import derive_description
    from pi_memory.layouts.files.format import entry_to_text
    from pi_memory.layouts.files.index import IndexLine, rebuild_index

    lines = []
    for i, entry in enumerate(entries):
        name = f"sweep memory {i}"
        modified = f"{entry.time[:10]}T{entry.time[11:]}.000Z"
        stored = entry._replace(
            name=name,
            file=f"sweep-memory-{i}.md",
            description=derive_description(entry.body) or name,
            type="project",
            created=entry.time[:10],
            modified=modified,
            superseded_by="",
        )
        (layer / stored.file).write_text(entry_to_text(stored), "utf-8")
        lines.append(IndexLine(stored.name, stored.file, stored.description))
    (layer / "MEMORY.md").write_text(rebuild_index("", lines).text, "utf-8")
