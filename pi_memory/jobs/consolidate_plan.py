"""pi-memory-auto's consolidation: the page the model sees, the plan its reply may make; pure.

The model sees one page of memories of one layer (id, file, keyword, text,
and who retired a retired one) plus ``<likely-duplicates>`` and
``<possible-conflicts>`` hints computed over the whole layer. It answers with
``===MERGE===`` blocks (``KEEP``, ``DROP``, optional ``KEYWORD`` and
``TEXT``) and ``===RENAME===`` blocks (``FROM``, ``TO``), or ``NONE``.

:func:`parse_plan` validates every block against the layer's entries: ids
that do not exist in this layer are ignored (so a merge never spans layers),
self-merges and ids already used by an earlier block are dropped, a retired
memory is never kept over live ones, keywords are re-checked against the
one-keyword rule (an invalid one leaves the memory's keyword as it was, so no
memory ends up without one) and merged text must read as complete.

:func:`apply_plan` turns a validated plan into the entries to rewrite and
the ids to remove. A dropped memory that is the older side of a
``<possible-conflicts>`` pair with the kept one is retired (``superseded-by``)
rather than removed: it is a changed requirement, not a duplicate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence

from pi_memory.config.defaults import MEMORY_MAX_BYTES
from pi_memory.entry import Entry
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: pi-memory-auto: pages of 120 memories, newest first, at most 12 rounds per pass.
PAGE_SIZE: Final = 120
MAX_ROUNDS: Final = 12
#: Hint pairs attached to each page.
HINT_PAIRS: Final = 20

_ID_SPLIT_RE: Final = re.compile(r"[\s,;]+")


class Merge(NamedTuple):
    keep: str
    drop: tuple[str, ...]
    keyword: str = ""
    text: str = ""


class Rename(NamedTuple):
    old: str
    new: str


class Plan(NamedTuple):
    merges: tuple[Merge, ...] = ()
    renames: tuple[Rename, ...] = ()
    rejected: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.merges and not self.renames


def newest_first(entries: Sequence[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (e.time, e.id), reverse=True)


def system_prompt(layer: str) -> str:
    from pi_memory.model.prompts import fill, load

    return fill(load("consolidate"), layer=layer)


def page_prompt(
    page: Sequence[Entry], pool: Sequence[Entry], *, max_body_bytes: int = MEMORY_MAX_BYTES
) -> str:
    """The page's memories, then the hints over the whole ``pool``; a text over
    ``max_body_bytes`` (stored by hand) is shown clipped."""
    from pi_memory.detect.conflicts import find_conflicts
    from pi_memory.detect.duplicates import find_duplicates
    from pi_memory.detect.hints import render_likely_duplicates, render_possible_conflicts
    from pi_memory.memory_size import clipped

    lines = ["<memories>"]
    for entry in page:
        where = f" {entry.file}" if entry.file else ""
        retired = "" if entry.live else f" (retired, replaced by {entry.superseded_by})"
        lines.append(f"[{entry.id}]{where} #{entry.keyword}{retired}")
        hint = f"the whole text is in {entry.file}" if entry.file else ""
        body = clipped(entry.body, max_body_bytes, hint)
        lines.extend(f"  {line}" for line in body.split("\n"))
    lines.append("</memories>")
    by_id = {e.id: e for e in pool}
    hints = [
        render_likely_duplicates(find_duplicates(pool, HINT_PAIRS), by_id, HINT_PAIRS),
        render_possible_conflicts(find_conflicts(pool, HINT_PAIRS), by_id, HINT_PAIRS),
    ]
    return "\n".join(lines) + "\n" + "".join(f"\n{h}" for h in hints if h)


def conflict_pairs(pool: Sequence[Entry]) -> frozenset[tuple[str, str]]:
    """``(older, newer)`` of every possible-conflict pair of ``pool``."""
    from pi_memory.detect.conflicts import find_conflicts

    return frozenset((p.older, p.newer) for p in find_conflicts(pool))


def parse_plan(text: str, pool: Sequence[Entry], *, max_body_bytes: int = MEMORY_MAX_BYTES) -> Plan:
    """The valid part of a consolidation reply against ``pool`` (one layer's entries).

    A block that does not validate in every field is left out whole, and says why.
    """
    from pi_memory.jobs.reply_blocks import blocks, split_block

    by_id = {e.id: e for e in pool}
    merges: list[Merge] = []
    renames: list[Rename] = []
    rejected: list[str] = []
    used: set[str] = set()
    renamed: set[str] = set()
    for n, block in enumerate(blocks(text), start=1):
        fields, body = split_block(block.text)
        if block.kind == "MERGE":
            merge, why = check_merge(fields, body, by_id, used, max_body_bytes)
            rejected.extend(f"block {n} (MERGE): {reason}" for reason in why)
            if merge is not None:
                used.update((merge.keep, *merge.drop))
                merges.append(merge)
        elif block.kind == "RENAME":
            rename, reason = check_rename(fields, pool, renamed)
            if rename is None:
                rejected.append(f"block {n} (RENAME): {reason}")
            else:
                renamed.add(_key(rename.old))
                renames.append(rename)
        else:
            rejected.append(f"block {n}: ==={block.kind}=== is not a block of this reply")
    return Plan(tuple(merges), tuple(renames), tuple(rejected))


def _key(keyword: str) -> str:
    from pi_memory.keywords import canonical_key

    return canonical_key(keyword)


def check_merge(
    fields: Mapping[str, str],
    body: str,
    by_id: Mapping[str, Entry],
    used: Collection[str],
    max_body_bytes: int,
) -> tuple[Merge | None, list[str]]:
    from pi_memory.errors import EntryRejected
    from pi_memory.keywords import sanitize_keywords
    from pi_memory.memory_size import size_issue
    from pi_memory.store import validate_body

    keep = fields.get("KEEP", "").strip().strip("[]")
    if keep not in by_id:
        return None, [f"KEEP {keep or '(none)'} is not a memory of this layer"]
    if keep in used:
        return None, [f"{keep} is already part of an earlier block"]
    why: list[str] = []
    drops: list[str] = []
    for raw in _ID_SPLIT_RE.split(fields.get("DROP", "")):
        word = raw.strip("[]")
        if not word:
            continue
        if word == keep:
            why.append(f"DROP {word} is the kept memory itself")
        elif word not in by_id:
            why.append(f"DROP {word} is not a memory of this layer")
        elif word in used or word in drops:
            why.append(f"DROP {word} is already part of an earlier block")
        else:
            drops.append(word)
    if not by_id[keep].live and any(by_id[d].live for d in drops):
        return None, [*why, f"KEEP {keep} is retired; a live memory cannot be folded into it"]
    keyword = ""
    if fields.get("KEYWORD", "").strip():
        pick = sanitize_keywords([fields["KEYWORD"]])
        if pick.keyword is None:
            why.append("KEYWORD unusable (" + "; ".join(pick.issues) + ")")
        elif _key(pick.keyword) != _key(by_id[keep].keyword):
            keyword = pick.keyword
    text = ""
    if body and size_issue(by_id[keep].body, max_body_bytes):
        why.append(
            f"TEXT for KEEP {keep}, whose text {size_issue(by_id[keep].body, max_body_bytes)}"
            " and was shown clipped: it is never rewritten from what was shown"
        )
    elif body:
        try:
            text = validate_body(body, max_bytes=max_body_bytes)
        except EntryRejected as err:
            why.append(f"TEXT {err}")
        if text == by_id[keep].body:
            text = ""
    if why:
        return None, [*why, "the block is left out"]
    if not drops and not keyword and not text:
        return None, ["nothing to merge"]
    return Merge(keep, tuple(drops), keyword, text), why


def check_rename(
    fields: Mapping[str, str], pool: Sequence[Entry], renamed: Collection[str]
) -> tuple[Rename | None, str]:
    from pi_memory.keywords import sanitize_keywords

    old = fields.get("FROM", "").strip().lstrip("#").strip()
    current = {_key(e.keyword): e.keyword for e in pool if e.live}
    if _key(old) not in current:
        return None, f"FROM {old or '(none)'} is not a keyword of this layer"
    if _key(old) in renamed:
        return None, f"{old} is already renamed by an earlier block"
    pick = sanitize_keywords([fields.get("TO", "")])
    if pick.keyword is None:
        return None, "TO unusable (" + ("; ".join(pick.issues) or "none given") + ")"
    if _key(pick.keyword) == _key(old):
        return None, f"TO {pick.keyword} is the same keyword"
    return Rename(current[_key(old)], pick.keyword), ""


class Applied(NamedTuple):
    #: Entries to rewrite, as they will be stored.
    updates: tuple[Entry, ...]
    #: Ids to delete (validated merges only).
    removals: tuple[str, ...]
    #: Ids retired rather than removed (the older side of a conflict pair).
    retired: tuple[str, ...]
    #: Blocks that no longer applied (a memory changed or vanished meanwhile).
    stale: tuple[str, ...]


def apply_plan(
    plan: Plan,
    entries: Sequence[Entry],
    seen: Mapping[str, Entry],
    conflicts: Collection[tuple[str, str]],
    *,
    redact: Callable[[str], str],
) -> Applied:
    """What ``plan`` changes in ``entries`` (the layer as it is now).

    A merged text is the model's writing: ``redact`` (the store's) takes any
    secret out of it before it is stored, as every other write does.

    ``seen`` is the layer as the model saw it: a merge whose memories are gone
    or were rewritten since is skipped, never applied to text the model did
    not read.
    """
    now = {e.id: e for e in entries}
    changed: dict[str, Entry] = {}
    removals: list[str] = []
    retired: list[str] = []
    stale: list[str] = []
    for merge in plan.merges:
        ids = (merge.keep, *merge.drop)
        if any(i not in now or now[i] != seen.get(i) for i in ids):
            stale.append(f"MERGE into {merge.keep}: a memory changed or vanished meanwhile")
            continue
        keep = now[merge.keep]
        folded = [d for d in merge.drop if not ((d, keep.id) in conflicts and now[d].live)]
        retiring = [d for d in merge.drop if d not in folded]
        inherited = tuple(s for d in folded for s in now[d].supersedes)
        changed[keep.id] = keep._replace(
            keyword=merge.keyword or keep.keyword,
            body=redact(merge.text) if merge.text else keep.body,
            supersedes=tuple(dict.fromkeys(keep.supersedes + inherited + tuple(retiring))),
        )
        for drop in retiring:
            changed[drop] = now[drop]._replace(superseded_by=keep.id)
            retired.append(drop)
        removals.extend(folded)
    gone = set(removals)
    for merge in plan.merges:
        for drop in merge.drop:
            if drop in gone:  # links to a removed memory now point at what replaced it
                for entry in entries:
                    current = changed.get(entry.id, entry)
                    if entry.id not in gone and current.superseded_by == drop:
                        changed[entry.id] = current._replace(superseded_by=merge.keep)
    for rename in plan.renames:
        for entry in entries:
            current = changed.get(entry.id, entry)
            if entry.id not in gone and _key(current.keyword) == _key(rename.old):
                changed[entry.id] = current._replace(keyword=rename.new)
    for key in list(changed):
        current = changed[key]
        if current.supersedes:
            kept = tuple(s for s in current.supersedes if s not in gone and s != current.id)
            changed[key] = current._replace(supersedes=kept)
        if changed[key] == now.get(key):
            del changed[key]
    updates = tuple(changed[e.id] for e in entries if e.id in changed and e.id not in gone)
    return Applied(updates, tuple(removals), tuple(retired), tuple(stale))
