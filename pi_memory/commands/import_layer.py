"""``import --from A --to B <layer>``: copy one layer from one layout to the other;
``import HOST``: what an agent remembered natively (:mod:`pi_memory.commands.import_native`).

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

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Final

    from pi_memory.plan import ImportOutcome
    from pi_memory.store import Store

KEEP: Final = "keep"
REPLACE: Final = "replace"
ON_CONFLICT: Final = (KEEP, REPLACE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pi_memory.commands.import_native import native_hosts
    from pi_memory.config.schema import LAYOUTS

    layouts = "categories (category files) or files (one file per memory)"
    parser.add_argument(
        "--from",
        dest="source",
        choices=LAYOUTS,
        help=f"copying a layer: the layout it is stored in now: {layouts}",
    )
    parser.add_argument(
        "--to",
        dest="target",
        choices=LAYOUTS,
        help="copying a layer: the layout to copy it into (the source is left as it is)",
    )
    parser.add_argument(
        "--on-conflict",
        default=KEEP,
        choices=ON_CONFLICT,
        help="an id already in the destination with different content: keep the "
        "destination's copy (default) or replace it with the source's",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="importing from an agent: list what would be imported, store nothing",
    )
    hosts = native_hosts()
    names = "|".join(host.name for host in hosts)
    titles = ", ".join(host.title for host in hosts)
    parser.add_argument(
        "layer",
        metavar="LAYER|AGENT",
        help=f"user|project: the layer to copy (with --from and --to); or {names}: what "
        f"that agent remembered in its own files ({titles}), each note into the layer "
        "it belongs to, skipping what is already there",
    )


def run(args: argparse.Namespace) -> int:
    from datetime import datetime

    from pi_memory.commands.import_native import native_hosts, run_native
    from pi_memory.errors import UsageError
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer

    agents = [host.name for host in native_hosts()]
    if args.layer in agents:
        if args.source or args.target:
            raise UsageError("--from and --to copy a layer; an agent's memory needs neither")
        return run_native(args.layer, dry_run=args.dry_run, now=datetime.now())
    try:
        name = parse_layer(args.layer)
    except UsageError:
        raise UsageError(
            f"{args.layer!r} is neither a layer (user, project) nor an agent whose memory "
            f"import reads ({', '.join(agents)})"
        ) from None
    source: str | None = args.source
    target: str | None = args.target
    on_conflict: str = args.on_conflict
    if source is None or target is None:
        raise UsageError(
            "copying a layer needs --from and --to (see: python -m pi_memory import --help)"
        )
    if args.dry_run:
        raise UsageError("--dry-run is for importing from an agent")
    if source == target:
        raise UsageError(f"--from and --to are both {source}: import converts between layouts")
    if on_conflict not in ON_CONFLICT:
        raise UsageError(f"--on-conflict is {KEEP} or {REPLACE}, not {on_conflict!r}")
    src_store, dst_store = _store_pair(source, target)
    src_dir, dst_dir = src_store.directory(name), dst_store.directory(name)
    # The layer's memories in the source's order, each carrying what only its layout has.
    entries = src_store.layer(name).read() if src_dir.is_dir() else []
    if not entries:
        write_line(f"nothing to import: no {name} memories in {source} {src_dir}")
        return 0
    outcome = dst_store.import_entries(name, entries, replace=on_conflict == REPLACE)
    retry = f"python -m pi_memory import --from {source} --to {target} --on-conflict replace {name}"
    for line in describe_import(outcome, f"{source} {src_dir}", f"{target} {dst_dir}", retry):
        write_line(line)
    return 0


def describe_import(outcome: ImportOutcome, source: str, target: str, retry: str) -> list[str]:
    """What an import did, every memory of the source counted once."""
    from pi_memory.text import counted

    new = counted(outcome.new, "new memory", "new memories")
    lines = [f"imported {new} from {source} to {target}"]
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


def _store_pair(source: str, target: str) -> tuple[Store, Store]:
    """The layers' directories opened in each layout; a broken memory.json stops the copy."""
    from pi_memory.errors import ConfigError
    from pi_memory.open_store import open_store

    opened = open_store(other_layout=source, warn=False)
    if opened.loaded.errors:
        raise ConfigError("memory.json: " + "; ".join(opened.loaded.errors))
    return opened.store, open_store(other_layout=target, warn=False).store
