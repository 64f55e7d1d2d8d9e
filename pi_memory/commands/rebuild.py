"""``rebuild <layer>``: repair one layer, then regenerate its ``MEMORY.md``; say what changed.

Every layout does the same job. Without a model the repair is seed 000's
deterministic part: malformed tags are repaired and legacy 1-3 keyword rows
collapse to their first valid keyword (reported as ``collapsed``), with a
``.bak`` of every rewritten file. The index is then written afresh from what
is on disk: the categories layout's keyword table, or the files layout's one
line per memory under its handwritten header (seed 004's ``rebuild_index``).
"""

from __future__ import annotations


def run_rebuild(*, layer: str, dry_run: bool = False, as_json: bool = False) -> int:
    del dry_run, as_json  # used once the model-driven rebuild lands
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer

    name = parse_layer(layer)
    store = open_store()
    report = store.rebuild(name)
    # Counted as show counts them: live memories, the superseded ones said apart.
    entries = store.read(name)
    live = sum(1 for entry in entries if entry.live)
    retired = f" (+{len(entries) - live} superseded)" if len(entries) > live else ""
    write_line(
        f"rebuilt {name} layer: {live} memories{retired} · collapsed {report.collapsed} · "
        f"repaired {report.repaired} · {describe_index_change(*report.index_change)}"
    )
    return 0


def describe_index_change(added: int, removed: int) -> str:
    """``MEMORY.md regenerated (+2/-1 lines)``, or ``MEMORY.md unchanged``."""
    if not added and not removed:
        return "MEMORY.md unchanged"
    return f"MEMORY.md regenerated (+{added}/-{removed} lines)"
