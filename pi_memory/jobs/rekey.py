"""``rebuild`` with a model: one keyword per memory re-derived, 12 memories per call.

pi-memory-auto's keyword rebuild. Each batch shows the model the memories' ids and
text (and the layer's most used keywords, so topics converge); the reply is
one ``<id>: <keyword>`` line per memory. A line for an id outside the batch,
a repeated id or a keyword that breaks the one-keyword rule is ignored (that
memory keeps its keyword). Every batch must answer before anything is
written, so a model fault leaves the layer byte-identical. Then, under the
store's lock: a ``.bak`` of every file about to change, the deterministic
repair (legacy multi-keyword rows collapse, reported as ``collapsed``), the
new keywords, and a regenerated ``MEMORY.md``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from pi_memory.entry import Entry
from pi_memory.jobs import CONSOLIDATE_TASK
from pi_memory.jobs.outcome import FAILED, NOTHING, STORED, JobOutcome
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.config.schema import Config
    from pi_memory.store import Store

#: pi-memory-auto: keywords are re-derived 12 memories per call.
BATCH: Final = 12
#: Existing keywords offered for reuse.
OFFERED_KEYWORDS: Final = 40
#: Characters of a memory's text shown.
BODY_CHARS: Final = 600
_LINE_RE: Final = re.compile(r"^\s*[-*]?\s*\[?(\d{8}-[0-9a-z]{4})\]?\s*[:=\u2014-]\s*(.+?)\s*$")


class Rekeyed(NamedTuple):
    keywords: dict[str, str]
    rejected: tuple[str, ...]


def batches(entries: Sequence[Entry]) -> list[list[Entry]]:
    return [list(entries[i : i + BATCH]) for i in range(0, len(entries), BATCH)]


def system_prompt(entries: Sequence[Entry]) -> str:
    from pi_memory.model.prompts import fill, load

    counts = Counter(e.keyword for e in entries if e.live)
    offered = [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return fill(load("rekey"), keywords=", ".join(offered[:OFFERED_KEYWORDS]) or "(none yet)")


def batch_prompt(batch: Sequence[Entry]) -> str:
    from pi_memory.detect.hints import single_line

    return "\n".join(f"[{e.id}] {single_line(e.body, BODY_CHARS)}" for e in batch) + "\n"


def parse_keywords(text: str, batch: Sequence[Entry]) -> Rekeyed:
    """``id → keyword`` for the batch's memories the reply names with a usable keyword."""
    from pi_memory.keywords import sanitize_keywords

    wanted = {e.id for e in batch}
    found: dict[str, str] = {}
    rejected: list[str] = []
    for line in text.splitlines():
        match = _LINE_RE.match(line)
        if match is None:
            continue
        entry_id, raw = match.groups()
        if entry_id not in wanted:
            rejected.append(f"{entry_id}: not a memory of this batch")
            continue
        if entry_id in found:
            rejected.append(f"{entry_id}: named twice, the first keyword kept")
            continue
        pick = sanitize_keywords([raw.strip().strip("`\"'")])
        if pick.keyword is None:
            rejected.append(f"{entry_id}: unusable keyword ({'; '.join(pick.issues)}), kept")
            continue
        found[entry_id] = pick.keyword
    return Rekeyed(found, tuple(rejected))


def rekey(
    store: Store,
    config: Config,
    layer: str,
    *,
    dry_run: bool = False,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> JobOutcome:
    from pi_memory.model.client import chat
    from pi_memory.model.errors import ModelError, ModelNotConfigured
    from pi_memory.model.types import Message

    seen = store.layer(layer).read()
    system = system_prompt(seen)
    wanted: dict[str, str] = {}
    rejected: list[str] = []
    for batch in batches(seen):
        try:
            reply = chat(
                config,
                CONSOLIDATE_TASK,
                [Message("user", batch_prompt(batch))],
                system=system,
                job="rebuild",
                background=False,
                timeout=timeout,
                env=env,
            )
        except ModelNotConfigured:
            raise
        except ModelError as err:
            return JobOutcome("rebuild", FAILED, str(err), (), tuple(rejected), dry_run)
        parsed = parse_keywords(reply.text, batch)
        wanted.update(parsed.keywords)
        rejected.extend(parsed.rejected)
    by_id = {e.id: e for e in seen}
    changes = tuple(
        {"id": i, "line": f"[{i}] #{by_id[i].keyword} → #{k}"}
        for i, k in wanted.items()
        if k != by_id[i].keyword
    )
    counts = {"batches": len(batches(seen)), "memories": len(seen)}
    if dry_run:
        counts["collapsed"] = sum(1 for e in seen if e.dropped_keywords)
        detail = f"would re-derive {len(changes)} keywords"
        return JobOutcome(
            "rebuild",
            STORED if changes else NOTHING,
            detail,
            changes,
            tuple(rejected),
            True,
            counts,
        )
    collapsed, repaired, written = _write(store, layer, wanted, by_id)
    counts.update(collapsed=collapsed, repaired=repaired)
    memories = f"{len(seen)} memor{'y' if len(seen) == 1 else 'ies'}"
    keywords = f"{len(written)} keyword{'' if len(written) == 1 else 's'}"
    detail = (
        f"rebuilt {layer} layer: {memories} · {keywords} re-derived · "
        f"collapsed {collapsed} · repaired {repaired} · MEMORY.md regenerated"
    )
    kept = tuple(c for c in changes if c["id"] in written)
    status = STORED if kept or collapsed or repaired else NOTHING
    return JobOutcome("rebuild", status, detail, kept, tuple(rejected), False, counts)


def _write(
    store: Store, layer: str, wanted: Mapping[str, str], seen: Mapping[str, Entry]
) -> tuple[int, int, set[str]]:
    """Back up, repair, re-key and re-index under one lock; ``(collapsed, repaired, ids)``."""
    layer_store = store.layer(layer)
    with store.lock(layer, "rebuild"):
        before = layer_store.read()
        changing = [
            e
            for e in before
            if e.id in wanted and wanted[e.id] != e.keyword and seen.get(e.id) == e
        ]
        legacy = {e.file for e in before if e.dropped_keywords}
        layer_store.keep_backups({e.file for e in changing} | legacy)
        collapsed, repaired = layer_store.repair_keywords()
        current = {e.id: e for e in layer_store.read()}
        updates = [
            current[e.id]._replace(keyword=wanted[e.id])
            for e in changing
            if e.id in current and current[e.id].body == e.body
        ]
        if updates:
            layer_store.update(updates)
        layer_store.rebuild_index(layer_store.read(), store.recalls(layer))
    return collapsed, repaired, {e.id for e in updates}
