"""``import HOST``: what an agent remembered in its own files, stored as memories.

Each host's record says where its own memory lives and how to read it
(``Host.native_memory``, readers in :mod:`pi_memory.native`). Every note goes
to the layer it belongs to (a note about the person to the user layer, one
about the project to the project layer), unless it repeats a memory that
layer holds, or an earlier note, by the same rule ``show`` uses for
near-duplicates (:func:`pi_memory.plan.plan_native_import`): a second import
finds nothing new and changes nothing. A file that cannot be read as its
format is skipped with one line on stderr and the exit status 1; the other
files are imported all the same, and the host's files are never changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from pi_memory.entry import Entry
    from pi_memory.hosts.host import Host
    from pi_memory.native import NativeFile, Remembered
    from pi_memory.store import Store

#: The ``src`` of an imported memory.
SRC = "import"


class Gathered(NamedTuple):
    notes: list[Remembered]
    #: One line per file skipped.
    skipped: list[str]


def native_hosts() -> list[Host]:
    from pi_memory.hosts.registry import every

    return [host for host in every() if host.native_memory is not None]


def gather(files: Sequence[NativeFile]) -> Gathered:
    """Every note of ``files``; a file unreadable or not of its format is skipped whole."""
    from pi_memory.native import NativeFormatError, decoded

    notes: list[Remembered] = []
    skipped: list[str] = []
    for native in files:
        try:
            notes += native.read(decoded(native.path.read_bytes()))
        except NativeFormatError as err:
            skipped.append(f"skipped {native.path}: {err}")
        except OSError as err:
            skipped.append(f"skipped {native.path}: {err.strerror or err}")
    return Gathered(notes, skipped)


def as_entries(notes: Sequence[Remembered], stamp: str) -> list[Entry]:
    """The notes as entries of their layer, each with its keyword and an id no memory has."""
    from pi_memory.entry import Entry
    from pi_memory.keywords import derive_keyword, sanitize_keywords

    entries = []
    for index, note in enumerate(notes):
        keyword = sanitize_keywords(list(note.keywords)).keyword or derive_keyword(note.body)
        entries.append(
            Entry(f"import-{index}", stamp, "", SRC, keyword, note.body.strip(), layer=note.layer)
        )
    return entries


def run_native(name: str, *, dry_run: bool, now: datetime) -> int:
    from pi_memory.entry import LAYERS, format_time
    from pi_memory.hosts.registry import host as host_of
    from pi_memory.open_store import open_store
    from pi_memory.output import error_line, write_line
    from pi_memory.plan import plan_native_import

    host = host_of(name)
    store = open_store().store
    files = _files(host)
    gathered = gather(files)
    for line in gathered.skipped:
        error_line(f"pi_memory: {line}")
    found = as_entries(gathered.notes, format_time(now))
    verb = "would import" if dry_run else "imported"
    counts = {layer: 0 for layer in LAYERS}
    repeated = refused = 0
    for layer in LAYERS:
        mine = [entry for entry in found if entry.layer == layer]
        if not mine:
            continue
        if layer in store.settings.unavailable:
            error_line(
                f"pi_memory: skipped {len(mine)} {layer} notes: {store.settings.unavailable[layer]}"
            )
            refused += len(mine)
            continue
        new, repeats = plan_native_import(store.read(layer), mine)
        repeated += len(repeats)
        for entry in new:
            written = entry if dry_run else _write(store, entry, now)
            if written is None:
                refused += 1
                continue
            counts[layer] += 1
            stored = "" if dry_run else f"{written.id} "
            write_line(f"  + {layer} {stored}#{written.keyword}: {_first(written.body)}")
    total = sum(counts.values())
    where = ", ".join(f"{counts[layer]} {layer}" for layer in LAYERS if counts[layer])
    lines = [f"{verb} {total} new {'memory' if total == 1 else 'memories'} from {host.title}"]
    if where:
        lines[0] += f" ({where})"
    if repeated:
        lines.append(f"  {repeated} already there (the same or a near-duplicate memory): skipped")
    if not files:
        lines.append(
            f"  (no {host.title} memory files found under {host.config_dir(_env(), _home())})"
        )
    for line in lines:
        write_line(line)
    return 1 if gathered.skipped or refused else 0


def _write(store: Store, entry: Entry, now: datetime) -> Entry | None:
    """Store one note; a note the store refuses (too long, only secrets) is one line."""
    from pi_memory.errors import EntryRejected
    from pi_memory.output import error_line

    try:
        return store.write(entry.layer, entry.body, [entry.keyword], now=now, src=SRC).entry
    except EntryRejected as err:
        error_line(f"pi_memory: skipped a note ({_first(entry.body)}): {err}")
        return None


def _files(host: Host) -> list[NativeFile]:
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.workdir import working_dir

    if host.native_memory is None:
        return []
    cwd = working_dir()
    return host.native_memory(host.config_dir(_env(), _home()), project_root(cwd), cwd)


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def _home() -> Path:
    from pi_memory.naming.home import home_dir

    return home_dir()


def _first(body: str, limit: int = 70) -> str:
    line = body.strip().splitlines()[0] if body.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
