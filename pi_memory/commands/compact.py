"""``compact <layer>``: the model-driven consolidation of one layer (not in this version).

The command checks that the layer name and the configuration are usable, then
says that model calls are not available and touches nothing.
"""

from __future__ import annotations


def compact_ready() -> bool:
    """Whether ``compact`` can run a round here; ``show`` advises it only then.

    False until consolidation calls a model (``run_compact`` below refuses).
    """
    return False


def run_compact(*, layer: str, dry_run: bool = False, as_json: bool = False) -> int:
    del dry_run, as_json  # used once the consolidation round lands
    from pi_memory.errors import ConfigError
    from pi_memory.open_store import open_store
    from pi_memory.store import parse_layer

    name = parse_layer(layer)
    open_store()  # the layer and the configuration must both be usable
    raise ConfigError(
        f"compact {name}: consolidation needs a model, and model calls are not available "
        "in this version; the store is untouched (duplicates and conflicts are listed by "
        "python -m pi_memory show)"
    )
