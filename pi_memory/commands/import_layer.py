"""``import --from A --to B <layer>``: copy one layer from one layout to the other.

Everything the engine knows survives: ids, keyword, times, ``seen``/``last``,
supersede links (superseded memories are copied too), ``p:``/``src:``, and
type ↔ category by the table in :mod:`pi_memory.layouts.carry`.

What only one layout has travels in the other, written only when it carries
information, so a layer that never left the categories layout round-trips
byte for byte: a category row carries a memory's files-layout fields (see
:mod:`pi_memory.layouts.categories.format`), and an entry file carries a row's
category and legacy ``tags`` text (see :mod:`pi_memory.layouts.files.format`).
Each layout's ``append`` takes a memory read from the other; the engine
(``Store.import_entries``, planned by :func:`pi_memory.plan.plan_import`)
copies under the target layer's lock; this command only reads the source.

An id that already exists in the target is **never overwritten silently**.
A copy identical in what both layouts hold (body, keyword, time, project,
src, seen, last, supersede links) is skipped; a copy that differs is listed
by id and left as it is, unless the user picks a side with
``--on-conflict replace`` (the source's copy replaces the target's in place;
what only the target layout has, a files memory's name or a row's category,
stays). So importing twice changes nothing the second time, and edits made
in the target since the first import survive a second one.

Known losses, each pinned by a test: the files layout orders memories by
``modified``, so category rows come back in time order; a memory's empty
description comes back derived from its body; an empty ``src:`` becomes
``user`` in the files layout.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pi_memory.plan import ImportOutcome
    from pi_memory.store import Settings

KEEP: Final = "keep"
REPLACE: Final = "replace"
ON_CONFLICT: Final = (KEEP, REPLACE)


def run_import(*, source: str, target: str, layer: str, on_conflict: str = KEEP) -> int:
    from pi_memory.errors import UsageError
    from pi_memory.output import write_line
    from pi_memory.store import Store, parse_layer

    if source == target:
        raise UsageError(f"--from and --to are both {source}: import converts between layouts")
    if on_conflict not in ON_CONFLICT:
        raise UsageError(f"--on-conflict is {KEEP} or {REPLACE}, not {on_conflict!r}")
    name = parse_layer(layer)
    src_settings, dst_settings = _settings_pair(source, target)
    src_dir, dst_dir = src_settings.dirs[name], dst_settings.dirs[name]
    # The layer's memories in the source's order, each carrying what only its layout has.
    entries = Store(src_settings).layer(name).read() if src_dir.is_dir() else []
    if not entries:
        write_line(f"nothing to import: no {name} memories in {source} {src_dir}")
        return 0
    outcome = Store(dst_settings).import_entries(name, entries, replace=on_conflict == REPLACE)
    retry = f"python -m pi_memory import --from {source} --to {target} --on-conflict replace {name}"
    for line in describe_import(outcome, f"{source} {src_dir}", f"{target} {dst_dir}", retry):
        write_line(line)
    return 0


def describe_import(outcome: ImportOutcome, source: str, target: str, retry: str) -> list[str]:
    """What an import did, every memory of the source counted once."""
    lines = [f"imported {outcome.new} new memories from {source} to {target}"]
    if outcome.identical:
        lines.append(f"  {outcome.identical} already there and identical: skipped")
    if outcome.differing:
        ids = ", ".join(outcome.differing)
        count = len(outcome.differing)
        if outcome.replaced:
            lines.append(f"  {count} already there and different: replaced by the source's: {ids}")
        else:
            lines.append(f"  {count} already there and different: kept as they are: {ids}")
            lines.append(f"  (to take the source's copies instead: {retry})")
    return lines


def _settings_pair(source: str, target: str) -> tuple[Settings, Settings]:
    from pi_memory.config.load import load_for
    from pi_memory.errors import ConfigError
    from pi_memory.open_store import settings_from

    cwd = Path(os.getcwd())
    loaded = load_for(cwd, os.environ)
    if loaded.errors:
        raise ConfigError("memory.json: " + "; ".join(loaded.errors))
    return (
        settings_from(loaded.config._replace(layout=source), cwd),
        settings_from(loaded.config._replace(layout=target), cwd),
    )
