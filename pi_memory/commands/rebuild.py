"""``rebuild <layer>``: persist the keyword repair of one layer and regenerate its ``MEMORY.md``.

Without a model this is seed 000's deterministic part: malformed tags are
repaired and legacy 1-3 keyword rows collapse to their first valid keyword
(reported as ``collapsed``), with a ``.bak`` of every rewritten file.
"""

from __future__ import annotations


def run_rebuild(*, layer: str, dry_run: bool = False, as_json: bool = False) -> int:
    del dry_run, as_json  # used once the model-driven rebuild lands
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer

    name = parse_layer(layer)
    store = open_store()
    collapsed, repaired, _ = store.rebuild(name)
    # Counted as show counts them: live memories, the superseded ones said apart.
    entries = store.read(name)
    live = sum(1 for entry in entries if entry.live)
    retired = f" (+{len(entries) - live} superseded)" if len(entries) > live else ""
    write_line(
        f"rebuilt {name} layer: {live} memories{retired} · collapsed {collapsed} · "
        f"repaired {repaired} · MEMORY.md regenerated"
    )
    return 0
