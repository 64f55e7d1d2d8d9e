"""``rebuild <layer>``: repair one layer, then regenerate its ``MEMORY.md``; say what changed.

Every layout does the same job. Without a model the repair is pi-memory-auto's
deterministic part: malformed tags are repaired and legacy 1-3 keyword rows
collapse to their first valid keyword (reported as ``collapsed``), with a
``.bak`` of every rewritten file. The index is then written afresh from what
is on disk: the categories layout's keyword table, or the files layout's one
line per memory under its handwritten header (pi-memory's ``rebuild_index``).

With a model (``defaults.model``), each memory's one keyword is re-derived
first (:mod:`pi_memory.jobs.rekey`), 12 memories per call.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_layer_arguments(parser, "rebuild")


def add_layer_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    """The one layer ``rebuild`` and ``compact`` work on; :func:`needs_layer` checks it."""
    # argparse would say only "required"; needs_layer says why one layer.
    parser.usage = f"python -m pi_memory {command} [-h] [--dry-run] [--json] LAYER"
    parser.add_argument(
        "layer", nargs="?", metavar="LAYER", help="user|project: the one layer to work on"
    )
    parser.add_argument("--dry-run", action="store_true", help="ask, but write nothing")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def needs_layer(args: argparse.Namespace) -> str:
    """The layer given, or why there must be one."""
    from pi_memory.errors import UsageError
    from pi_memory.store import parse_layer

    if args.layer is None:
        raise UsageError(
            f"{args.command} needs a layer: python -m pi_memory {args.command} user|project "
            "(it never touches both layers at once)"
        )
    return parse_layer(args.layer)


def run(args: argparse.Namespace) -> int:
    return run_rebuild(needs_layer(args), dry_run=args.dry_run, as_json=args.json)


def run_rebuild(name: str, *, dry_run: bool, as_json: bool) -> int:
    import json

    from pi_memory.jobs import CONSOLIDATE_TASK
    from pi_memory.model.client import model_name
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line
    from pi_memory.text import counted

    config, store, _, _ = open_store()
    if model_name(config, CONSOLIDATE_TASK):
        from pi_memory.commands.job_output import report as report_outcome
        from pi_memory.jobs.rekey import rekey

        return report_outcome(rekey(store, config, name, dry_run=dry_run), as_json=as_json)
    if dry_run:
        from pi_memory.errors import UsageError

        raise UsageError("rebuild --dry-run needs a model: without one it only repairs tags")
    report = store.rebuild(name)
    # Counted as show counts them: live memories, the superseded ones said apart.
    entries = store.read(name)
    live = sum(1 for entry in entries if entry.live)
    retired = f" (+{len(entries) - live} superseded)" if len(entries) > live else ""
    memories = counted(live, "memory", "memories")
    line = (
        f"rebuilt {name} layer: {memories}{retired} · collapsed {report.collapsed} · "
        f"repaired {report.repaired} · {describe_index_change(*report.index_change)}"
    )
    if as_json:
        counts = {"collapsed": report.collapsed, "repaired": report.repaired, "memories": live}
        line = json.dumps({"job": "rebuild", "ok": True, "detail": line, "counts": counts})
    write_line(line)
    return 0


def describe_index_change(added: int, removed: int) -> str:
    """``MEMORY.md regenerated (+2/-1 lines)``, or ``MEMORY.md unchanged``."""
    if not added and not removed:
        return "MEMORY.md unchanged"
    return f"MEMORY.md regenerated (+{added}/-{removed} lines)"
