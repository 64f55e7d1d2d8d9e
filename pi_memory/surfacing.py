"""Auto-surfacing: the few memories a prompt needs, injected as ``<relevant_memories>``.

Two pickers, one output:

- **The scorer** (always, no model, a few milliseconds): every prompt token
  found in a memory counts by how specific it is across the store; a token that
  occurs in more than a tenth of the memories is too common to count. A memory
  is relevant only with at least :data:`MIN_EVIDENCE` pieces of evidence — two
  specific tokens, or its keyword plus one — so one shared word never surfaces
  anything. Superseded memories never surface.
- **The side-query** (pi-memory, only when ``autoSurfacing`` has a model and the
  host's timeout leaves room): the model reads a manifest of at most 200
  entries / 4,000 characters of descriptions and names at most ``maxFiles``;
  names it made up are dropped. When it does not answer in time, the scorer's
  pick stands.

Either way at most ``maxFiles`` memories, never one already surfaced this
session, each body cut to ``maxEntryBytes``, the block to ``maxInjectionBytes``,
sanitised like every injected text.
"""

from __future__ import annotations

import math
from types import MappingProxyType

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Final

    from pi_memory.config.schema import Config
    from pi_memory.entry import Entry

#: Evidence a memory needs to be surfaced: specific tokens matched, its keyword counting one.
MIN_EVIDENCE: Final = 2
#: A token found in more than this share of the memories says nothing about any of them.
COMMON_SHARE: Final = 0.1
#: ... but in a small store a token shared by this many memories is still specific.
COMMON_FLOOR: Final = 3
KEYWORD_WEIGHT: Final = 2.0
SCORER: Final = "scorer"
MODEL: Final = "model"


class Item(NamedTuple):
    """A memory as surfacing sees it: what the manifest lists and what is injected."""

    #: The name the side-query answers with (files layout: the file; else the id).
    pick: str
    #: The heading of the injected block.
    name: str
    body: str
    #: For the manifest: category, description, and the time that orders it.
    type: str
    description: str
    modified: str
    id: str
    #: What changed in the code it describes since it was written ("" when nothing did).
    suspect: str = ""

    @property
    def file(self) -> str:  # the manifest's name column
        return self.pick


class Limits(NamedTuple):
    """``autoSurfacing``'s switches and caps (pi-memory's defaults)."""

    enabled: bool = True
    max_files: int = 3
    max_entry_bytes: int = 3072
    max_injection_bytes: int = 10240


#: What a block holds besides its memories: its two tags, and a blank line between two.
_FRAME: Final = len("<relevant_memories>\n\n</relevant_memories>")


def beside(caps: Limits, carried: str, max_chars: int, max_bytes: int) -> Limits:
    """``caps`` with the block cut to what one context still holds besides ``carried`` (the
    injected index the same answer carries, a blank line between), within the host's caps
    (``max_bytes`` 0: none in bytes; the block alone never passes it either): a host
    replaces a context past its cap by a preview, the index with it. The memories left out
    may surface with a later prompt."""
    if max_bytes and caps.max_injection_bytes > max_bytes:
        caps = caps._replace(max_injection_bytes=max_bytes)
    if not carried:
        return caps
    from pi_memory.text import utf8_len

    room = max_chars - len(carried)
    if max_bytes:
        room = min(room, max_bytes - utf8_len(carried))
    room -= 2 + _FRAME + 2 * max(0, caps.max_files - 1)
    return caps._replace(max_injection_bytes=max(0, min(caps.max_injection_bytes, room)))


def limits(config: Config) -> Limits:
    surf = config.auto_surfacing
    return Limits(surf.enabled, surf.max_files, surf.max_entry_bytes, surf.max_injection_bytes)


class Surfaced(NamedTuple):
    ids: tuple[str, ...]
    #: The ``<relevant_memories>`` block, ``""`` when nothing is relevant.
    text: str
    #: ``scorer`` or ``model``: which picker decided.
    via: str


def item(
    entry: Entry,
    foreign: frozenset[str] = frozenset(),
    suspect: Mapping[str, str] = MappingProxyType({}),
) -> Item:
    """``foreign``: ids of the memories that came from the repository; their heading
    says so (see :mod:`pi_memory.provenance`). ``suspect``: id → what changed in the code
    a memory describes; its heading says that too (see :mod:`pi_memory.anchors`)."""
    if entry.id in suspect:
        from pi_memory.anchors.notice import heading_mark

        reason = suspect[entry.id]
        marked = item(entry, foreign)
        return marked._replace(name=f"{marked.name} — {heading_mark(reason)}", suspect=reason)
    if entry.id in foreign:
        from pi_memory.provenance import REPOSITORY_MARK

        marked = item(entry)
        return marked._replace(name=f"{marked.name} — {REPOSITORY_MARK}")
    if entry.name:  # a memory with its own name and description (files layout)
        return Item(
            entry.file or entry.name,
            entry.name,
            entry.body,
            entry.type,
            entry.description,
            entry.modified,
            entry.id,
        )
    kind = entry.file[:-3].lower() if entry.file.endswith(".md") else entry.layer
    return Item(
        entry.id,
        f"{entry.keyword} ({entry.id})",
        entry.body,
        kind,
        f"#{entry.keyword}: {entry.body}",
        entry.last or entry.time,
        entry.id,
    )


class Corpus(NamedTuple):
    """The live memories as the scorer reads them, built once per store state.

    ``blob`` holds each memory's lowered body and keyword, joined by NUL, so
    finding a token in every memory is one ``str.find`` loop in C; ``starts``
    says where each memory begins. Plain strings and tuples: the hooks keep it
    in a marshal cache (:mod:`pi_memory.hosts.fastpath`).
    """

    blob: str
    starts: Sequence[int]
    #: Canonical keyword per memory ("" when it has none).
    keys: Sequence[str]
    #: Read on demand from the cache: most prompts need none of them.
    items: Sequence[Item]


def corpus(
    entries: Iterable[Entry],
    foreign: frozenset[str] = frozenset(),
    suspect: Mapping[str, str] = MappingProxyType({}),
) -> Corpus:
    from pi_memory.keywords import canonical_key

    live = [e for e in entries if e.live]
    texts = [f"{e.body}\n{e.keyword}".lower() for e in live]
    starts = []
    position = 0
    for text in texts:
        starts.append(position)
        position += len(text) + 1
    return Corpus(
        "\x00".join(texts),
        tuple(starts),
        tuple(canonical_key(e.keyword) for e in live),
        tuple(item(e, foreign, suspect) for e in live),
    )


def score(memories: Corpus | Sequence[Entry], prompt: str) -> list[tuple[float, Item]]:
    """Relevant live memories for ``prompt``, best first (pure; the scorer's whole rule)."""
    from pi_memory.keywords import canonical_key
    from pi_memory.tokens import tokenize

    known = memories if isinstance(memories, Corpus) else corpus(memories)
    tokens = tokenize(prompt)
    count = len(known.items)
    if not count or not tokens:
        return []
    keys = {canonical_key(t) for t in tokens}
    common = max(COMMON_FLOOR, COMMON_SHARE * count)
    evidence: dict[int, list[float]] = {}
    for token in tokens:
        found = _containing(known.blob, known.starts, token, int(common) + 1)
        if not found or len(found) > common:
            continue
        weight = math.log(1 + count / len(found))
        for index in found:
            evidence.setdefault(index, []).append(weight)
    ranked = []
    for index, weights in evidence.items():
        key = known.keys[index]
        keyword_hit = bool(key) and key in keys
        hits = len(weights) + (1 if keyword_hit and len(weights) < len(tokens) else 0)
        if hits < MIN_EVIDENCE:
            continue
        ranked.append((sum(weights) + (KEYWORD_WEIGHT if keyword_hit else 0.0), index))
    # A suspect memory (its code changed since) comes after every fresh one.
    ranked.sort(key=lambda pair: (-pair[0], _newest_first(known.items[pair[1]]), pair[1]))
    ranked.sort(key=lambda pair: bool(known.items[pair[1]].suspect))
    return [(round(value, 4), known.items[index]) for value, index in ranked]


def _newest_first(memory: Item) -> str:
    """A key that sorts newer ``modified`` times first (times compare as text)."""
    return "".join(chr(0x10FFFF - ord(ch)) for ch in memory.modified)


def _containing(blob: str, starts: Sequence[int], token: str, limit: int) -> list[int]:
    """Indexes of the texts in ``blob`` that contain ``token`` (at most ``limit`` of them)."""
    from bisect import bisect_right

    found: list[int] = []
    at = blob.find(token)
    while at >= 0 and len(found) < limit:
        index = bisect_right(starts, at) - 1
        found.append(index)
        next_start = starts[index + 1] if index + 1 < len(starts) else len(blob)
        at = blob.find(token, next_start)
    return found


def render(items: Iterable[Item], caps: Limits) -> str:
    from pi_memory.inject.inject_window import inject_surfaced_content

    return inject_surfaced_content(items, caps.max_entry_bytes, caps.max_injection_bytes)


def by_scorer(
    memories: Corpus | Sequence[Entry], prompt: str, skip: Iterable[str], limit: int
) -> list[Item]:
    excluded = set(skip)
    picked = [i for _, i in score(memories, prompt) if i.id not in excluded]
    return picked[:limit]


def manifest(memories: Corpus | Sequence[Entry], skip: Iterable[str]) -> list[Item]:
    from pi_memory.inject.inject_window import scan_entries

    known = memories if isinstance(memories, Corpus) else corpus(memories)
    excluded = set(skip)
    candidates = [i for i in known.items if i.id not in excluded]
    return scan_entries(candidates)  # type: ignore[return-value]  # Items in, Items out


def ask_model(
    config: Config,
    candidates: Sequence[Item],
    prompt: str,
    limit: int,
    *,
    timeout: float,
    env: Mapping[str, str],
    background: bool = True,
) -> list[Item]:
    """pi-memory's side-query; raises the model client's errors when it cannot answer."""
    from pi_memory.inject.inject_window import build_side_query_task
    from pi_memory.model.client import chat
    from pi_memory.model.prompts import load
    from pi_memory.model.types import Message

    if not candidates:
        return []
    question = build_side_query_task(candidates, prompt, limit)
    reply = chat(
        config,
        "autoSurfacing",
        [Message("user", question)],
        system=load("surface"),
        job="surface",
        background=background,
        timeout=timeout,
        max_tokens=200,
        env=env,
    )
    return pick_names(reply.text, candidates, limit)


def _selected_files(reply: str) -> list[str] | None:
    """The ``selected_files`` of a JSON answer, or None when the reply holds none."""
    import json
    import re

    match = re.search(r'\{[^{}]*"selected_files"[^{}]*\}', reply, re.S)
    if match is None:
        return None
    try:
        files = json.loads(match.group(0)).get("selected_files")
    except ValueError:
        return None
    return [f for f in files if isinstance(f, str)] if isinstance(files, list) else None


def pick_names(reply: str, candidates: Sequence[Item], limit: int) -> list[Item]:
    """The candidates the reply names (its ``selected_files``, or one name a line), in its
    order; unknown names are dropped."""
    by_pick = {c.pick: c for c in candidates}
    chosen: list[Item] = []
    selected = _selected_files(reply)
    for line in selected if selected is not None else reply.splitlines():
        name = line.strip().strip("-*`'\"[]() \t").strip()
        candidate = by_pick.get(name)
        if candidate is not None and candidate not in chosen:
            chosen.append(candidate)
        if len(chosen) >= limit:
            break
    return chosen


def model_available(config: Config, env: Mapping[str, str]) -> bool:
    if not config.auto_surfacing.enabled:
        return False
    from pi_memory.config.models import model_resolves, task_model

    name = task_model(config, "autoSurfacing")
    return bool(name) and model_resolves(config, name or "", env)


def surface(
    entries: Corpus | Sequence[Entry],
    prompt: str,
    caps: Limits,
    *,
    config: Config | None = None,
    skip: Iterable[str] = (),
    env: Mapping[str, str],
    background: bool = True,
) -> Surfaced:
    """Pick and render. With ``config`` whose ``autoSurfacing`` has a model, the
    side-query decides; one that fails or does not answer within
    ``autoSurfacing.timeoutMs`` leaves the scorer's pick (0: never asked).

    ``background``: nobody asked for this side-query (the prompt hook), so the
    daily token cap stops it like any background job; ``surface`` run by a
    person passes ``False``."""
    if not caps.enabled:
        return Surfaced((), "", SCORER)
    limit = max(0, caps.max_files)
    skipped = list(skip)
    memories = entries if isinstance(entries, Corpus) else corpus(entries)
    picked = by_scorer(memories, prompt, skipped, limit)
    via = SCORER
    budget = config.auto_surfacing.timeout_ms / 1000 if config is not None else 0.0
    if limit and budget > 0 and config is not None and model_available(config, env):
        try:
            picked = ask_model(
                config,
                manifest(memories, skipped),
                prompt,
                limit,
                timeout=budget,
                env=env,
                background=background,
            )
            via = MODEL
        except Exception as exc:  # the model never answered: the scorer's pick stands
            from pi_memory.error_handler import log_line

            log_line("surface", f"side-query failed, scorer used: {type(exc).__name__}: {exc}")
    text = render(picked, caps) if picked else ""
    # The block ends before the first memory that would overflow it: those were not shown.
    shown = next((k for k in range(len(picked) + 1) if render(picked[:k], caps) == text), 0)
    return Surfaced(tuple(i.id for i in picked[:shown]), text, via)
