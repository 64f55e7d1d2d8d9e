"""The dream's tools for the ``categories`` layout: pi-memory's phases, pi-memory-auto's operations.

``list`` and ``search`` read the layer; ``write`` stores a memory (one
keyword, a category file, ``supersedes``), ``merge`` folds duplicates into one
(pi-memory-auto's validated ``MERGE``), ``rename`` replaces a keyword everywhere
(``RENAME``), ``rebuild_index`` regenerates ``MEMORY.md``. As with the files
layout's tool, everything is staged against a copy and committed afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from pi_memory.entry import Entry
from pi_memory.jobs.consolidate_plan import Merge, Plan, Rename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.model.types import ToolCall, ToolSpec
    from pi_memory.store import Store

TOOLS: Final = ("list", "search", "write", "merge", "rename", "rebuild_index")


def tool_specs() -> list[ToolSpec]:
    from pi_memory.model.types import ToolSpec

    def spec(name: str, text: str, props: dict[str, Any], required: list[str]) -> ToolSpec:
        return ToolSpec(name, text, {"type": "object", "properties": props, "required": required})

    s = {"type": "string"}
    return [
        spec("list", "Every memory of the layer: id, file, keyword, text.", {}, []),
        spec("search", "Memories that hold these words.", {"query": s}, ["query"]),
        spec(
            "write",
            "Store a memory; supersedes retires the ids it replaces.",
            {"body": s, "keyword": s, "file": s, "supersedes": {"type": "array", "items": s}},
            ["body", "keyword"],
        ),
        spec(
            "merge",
            "Fold duplicates into one memory (optional new keyword or text).",
            {"keep": s, "drop": {"type": "array", "items": s}, "keyword": s, "text": s},
            ["keep", "drop"],
        ),
        spec(
            "rename",
            "Replace a keyword everywhere in the layer.",
            {"from": s, "to": s},
            ["from", "to"],
        ),
        spec("rebuild_index", "Regenerate MEMORY.md.", {}, []),
    ]


class CategoriesStaging:
    def __init__(
        self, entries: Sequence[Entry], layer: str, now: datetime, max_body_bytes: int
    ) -> None:
        self.seen = {e.id: e for e in entries}
        self.max_body_bytes = max_body_bytes
        self.entries = list(entries)
        self.layer = layer
        self.now = now
        self.writes: list[dict[str, Any]] = []
        self.merges: list[Merge] = []
        self.renames: list[Rename] = []
        self.rebuild = False
        self.refused: list[str] = []
        self._used: set[str] = set()

    def answer(self, call: ToolCall) -> str:
        args = dict(call.arguments)
        handler = getattr(self, f"_{call.name}", None) if call.name in TOOLS else None
        if handler is None:
            reason = f"Unknown tool: {call.name} (use {', '.join(TOOLS)})"
            self.refused.append(reason)
            return reason
        try:
            return str(handler(args))
        except ValueError as err:
            self.refused.append(f"{call.name}: {err}")
            return f"Refused: {err}"

    def _list(self, args: Mapping[str, Any]) -> str:
        del args
        return "\n".join(_line(e, self.max_body_bytes) for e in self.entries) or "No memories yet."

    def _search(self, args: Mapping[str, Any]) -> str:
        from pi_memory.retrieval import KEYWORD, search

        result = search(self.entries, str(args.get("query", "")), mode=KEYWORD, now=self.now)
        if result.fallback or not result.hits:
            return "No matches."
        return "\n".join(_line(hit.entry, self.max_body_bytes) for hit in result.hits)

    def _write(self, args: Mapping[str, Any]) -> str:
        from pi_memory.errors import EntryRejected
        from pi_memory.keywords import sanitize_keywords
        from pi_memory.store import validate_body

        try:
            body = validate_body(str(args.get("body", "")), max_bytes=self.max_body_bytes)
        except EntryRejected as err:
            raise ValueError(str(err)) from None
        pick = sanitize_keywords([str(args.get("keyword", ""))])
        if pick.keyword is None:
            raise ValueError("no usable keyword (" + "; ".join(pick.issues) + ")")
        wanted = args.get("supersedes") or []
        ids = [str(i) for i in wanted] if isinstance(wanted, list) else [str(wanted)]
        live = {e.id for e in self.entries if e.live}
        unknown = [i for i in ids if i not in live]
        if unknown:
            raise ValueError(f"supersedes names no live memory of this layer: {', '.join(unknown)}")
        self.writes.append(
            {
                "body": body,
                "keyword": pick.keyword,
                "file": args.get("file") or None,
                "supersedes": ids,
            }
        )
        self.entries = [
            e._replace(superseded_by="(new)") if e.id in ids else e for e in self.entries
        ]
        return f"Staged: #{pick.keyword}: {body}"

    def _merge(self, args: Mapping[str, Any]) -> str:
        from pi_memory.jobs.consolidate_plan import check_merge

        drop = args.get("drop") or []
        fields = {
            "KEEP": str(args.get("keep", "")),
            "DROP": ", ".join(str(d) for d in drop) if isinstance(drop, list) else str(drop),
            "KEYWORD": str(args.get("keyword") or ""),
        }
        text = str(args.get("text") or "")
        merge, why = check_merge(fields, text, self.seen, self._used, self.max_body_bytes)
        if merge is None:
            raise ValueError("; ".join(why))
        self.refused.extend(f"merge: {w}" for w in why)
        self._used.update((merge.keep, *merge.drop))
        self.merges.append(merge)
        self.entries = [e for e in self.entries if e.id not in merge.drop]
        return f"Staged: {', '.join(merge.drop) or 'nothing'} folded into {merge.keep}"

    def _rename(self, args: Mapping[str, Any]) -> str:
        from pi_memory.jobs.consolidate_plan import check_rename

        fields = {"FROM": str(args.get("from", "")), "TO": str(args.get("to", ""))}
        rename, reason = check_rename(fields, self.entries, {r.old for r in self.renames})
        if rename is None:
            raise ValueError(reason)
        self.renames.append(rename)
        return f"Staged: #{rename.old} → #{rename.new}"

    def _rebuild_index(self, args: Mapping[str, Any]) -> str:
        del args
        self.rebuild = True
        return "Staged: MEMORY.md will be regenerated."

    def planned(self) -> list[str]:
        lines = [f"write #{w['keyword']}: {w['body']}" for w in self.writes]
        lines += [f"merge {', '.join(m.drop)} into {m.keep}" for m in self.merges]
        lines += [f"rename #{r.old} → #{r.new}" for r in self.renames]
        return lines + (["rebuild_index"] if self.rebuild else [])

    def commit(self, store: Store, layer: str) -> tuple[list[str], list[str]]:
        """Apply what was staged to ``layer`` (the one staged); the caller holds its lock."""
        del layer  # staged for self.layer, which it is
        from pi_memory.errors import EntryRejected
        from pi_memory.jobs import consolidate_plan as cp

        done: list[str] = []
        refused: list[str] = []
        layer_store = store.layer(self.layer)
        entries = layer_store.read()
        applied = cp.apply_plan(
            Plan(tuple(self.merges), tuple(self.renames)),
            entries,
            self.seen,
            cp.conflict_pairs(entries),
            redact=store.redact,
        )
        refused += list(applied.stale)
        touched = {e.file for e in applied.updates} | {
            e.file for e in entries if e.id in applied.removals
        }
        layer_store.keep_backups(touched | {w["file"] or "" for w in self.writes} - {""})
        if applied.updates:
            layer_store.update(applied.updates)
        if applied.removals:
            layer_store.remove(applied.removals)
        done += [f"merge {', '.join(m.drop)} into {m.keep}" for m in self.merges if m.keep]
        done += [f"rename #{r.old} → #{r.new}" for r in self.renames]
        for w in self.writes:
            try:
                out = store.write(
                    self.layer, w["body"], [w["keyword"]], now=self.now, file=w["file"],
                    supersedes=w["supersedes"], src="dream",
                )  # fmt: skip
            except EntryRejected as err:
                refused.append(f"write #{w['keyword']}: {err}")
                continue
            done.append(f"write [{out.entry.id}] #{w['keyword']}: {w['body']}")
        layer_store.finish_consolidation(layer_store.read(), store.recalls(self.layer))
        return done, refused


def _line(entry: Entry, max_body_bytes: int) -> str:
    """One memory on one line; a body over ``max_body_bytes`` (stored by hand) clipped."""
    from pi_memory.memory_size import clipped

    retired = "" if entry.live else f" (retired by {entry.superseded_by})"
    body = " ".join(clipped(entry.body, max_body_bytes).split())
    return f"[{entry.id}] {entry.file} #{entry.keyword}{retired}: {body}"
