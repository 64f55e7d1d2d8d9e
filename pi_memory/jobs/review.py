"""pi-memory-auto's review: what the model is sent and what its reply may change; pure.

The model sees the conversation (its tail), an "existing memories" digest
with ids, and ``<possible-conflicts>`` pairs. It answers with up to
``max_entries`` ``===MEMORY===`` blocks (``LAYER``, ``FILE``, ``KEYWORD``,
``SUPERSEDES``, ``BODY:``) or ``NONE``. :func:`parse_review` keeps only what
can be stored as asked: a block naming a file of the other layer, without a
usable keyword, or with a body that reads as truncated is dropped with its
reason; ``SUPERSEDES`` ids that do not name a live memory of the same layer
are dropped; blocks beyond the limit are cut.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pi_memory.config.defaults import MEMORY_MAX_BYTES
from pi_memory.entry import CATEGORY_FILES, LAYERS, PROJECT, USER, Entry, is_id
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: pi-memory-auto: a review stores at most 3 memories, a compaction handoff at most 2.
REVIEW_MAX: Final = 3
HANDOFF_MAX: Final = 2
#: pi-memory-auto: the digest of existing memories is capped at 4,000 characters.
DIGEST_CHARS: Final = 4000
#: Characters of one memory's text in the digest.
DIGEST_BODY_CHARS: Final = 200
#: Conflict pairs attached to a review.
CONFLICT_HINTS: Final = 10

MEMORY_KIND: Final = "MEMORY"
_ID_SPLIT_RE: Final = re.compile(r"[\s,;]+")
_NONE_RE: Final = re.compile(r"^\W*none\W*$", re.IGNORECASE)

FILE_RULES: Final = (
    "USER.md holds who the user is and what they prefer, TOOLING.md tools and commands, "
    "LESSONS.md lessons that hold anywhere; CONVENTIONS.md holds how this project is written, "
    "DECISIONS.md choices made and why, FAILURES.md what broke here and the fix."
)


class Proposed(NamedTuple):
    """One memory the reply asks to store, already validated."""

    layer: str
    file: str
    keyword: str
    body: str
    supersedes: tuple[str, ...] = ()


class ReviewPlan(NamedTuple):
    entries: tuple[Proposed, ...]
    #: Why each dropped block or id was dropped, one line each.
    rejected: tuple[str, ...] = ()


def file_list() -> str:
    return "; ".join(f"{', '.join(CATEGORY_FILES[layer])} ({layer} layer)" for layer in LAYERS)


def system_prompt(*, handoff: bool) -> str:
    from pi_memory.model.prompts import fill, load

    return fill(
        load("handoff" if handoff else "review"),
        max_entries=str(HANDOFF_MAX if handoff else REVIEW_MAX),
        files=file_list(),
        file_rules=FILE_RULES,
    )


def digest(entries: Sequence[Entry], limit: int = DIGEST_CHARS) -> str:
    """Live memories, newest first, one line each with its id, until ``limit`` characters."""
    from pi_memory.detect.hints import single_line
    from pi_memory.inject.sanitize import sanitize_for_injection

    live = sorted((e for e in entries if e.live), key=lambda e: (e.time, e.id), reverse=True)
    lines: list[str] = []
    used = 0
    for n, entry in enumerate(live):
        body = sanitize_for_injection(single_line(entry.body, DIGEST_BODY_CHARS))
        where = f"{entry.layer}/{entry.file}" if entry.file else entry.layer
        line = f"[{entry.id}] {where} #{sanitize_for_injection(entry.keyword)}: {body}"
        if used + len(line) + 1 > limit:
            lines.append(f"(+{len(live) - n} older memories not shown)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines) if lines else "(none yet)"


def user_prompt(conversation: str, entries: Sequence[Entry], conflicts: str) -> str:
    """The review's one user message: digest, conflict hints, then the conversation."""
    parts = [f"<existing-memories>\n{digest(entries)}\n</existing-memories>"]
    if conflicts:
        parts.append(conflicts.rstrip("\n"))
    parts.append(f"<conversation>\n{conversation}\n</conversation>")
    return "\n\n".join(parts) + "\n"


def conflict_hints(entries: Sequence[Entry]) -> str:
    """``<possible-conflicts>`` over the live memories ("" when there are none)."""
    from pi_memory.detect.conflicts import find_conflicts
    from pi_memory.detect.hints import render_possible_conflicts

    pairs = find_conflicts(entries, CONFLICT_HINTS)  # pairs never span layers
    return render_possible_conflicts(pairs, {e.id: e for e in entries}, CONFLICT_HINTS)


def parse_review(
    text: str,
    *,
    max_entries: int,
    known: Mapping[str, Entry],
    categories: bool,
    max_body_bytes: int = MEMORY_MAX_BYTES,
) -> ReviewPlan:
    """The storable part of a review reply (see the module docstring).

    A block that does not validate in every field is left out whole, and says why.
    """
    from pi_memory.jobs.reply_blocks import blocks

    if _NONE_RE.match(text.strip()):
        return ReviewPlan(())
    kept: list[Proposed] = []
    rejected: list[str] = []
    bodies: set[tuple[str, str]] = set()
    for n, block in enumerate(blocks(text), start=1):
        if block.kind != MEMORY_KIND:
            rejected.append(f"block {n}: ==={block.kind}=== is not a block of this reply")
            continue
        if len(kept) >= max_entries:
            rejected.append(f"memory {n}: over the limit of {max_entries} per review")
            continue
        proposed, why = _proposed(block.text, known, categories, max_body_bytes)
        rejected.extend(f"memory {n}: {reason}" for reason in why)
        if proposed is None:
            continue
        key = " ".join(proposed.body.lower().split())
        if (proposed.layer, key) in bodies:
            rejected.append(f"memory {n}: repeats an earlier memory of this reply")
            continue
        bodies.add((proposed.layer, key))
        kept.append(proposed)
    return ReviewPlan(tuple(kept), tuple(rejected))


def _proposed(
    block: str, known: Mapping[str, Entry], categories: bool, max_body_bytes: int
) -> tuple[Proposed | None, list[str]]:
    from pi_memory.errors import EntryRejected
    from pi_memory.jobs.reply_blocks import split_block
    from pi_memory.keywords import sanitize_keywords
    from pi_memory.store import LAYER_ALIASES, validate_body

    fields, body = split_block(block)
    layer_word = fields.get("LAYER", "").lower()
    file = _category(fields.get("FILE", ""))
    file_layer = next((lay for lay in LAYERS if file in CATEGORY_FILES[lay]), None)
    layer = LAYER_ALIASES.get(layer_word) or file_layer or PROJECT
    if layer_word and layer_word not in LAYER_ALIASES:
        return None, [f"unknown layer {layer_word!r}"]
    if categories:
        if file and file_layer is None:
            return None, [f"{fields['FILE']!r} is not a category file"]
        if file_layer is not None and file_layer != layer:
            return None, [f"{file} belongs to the {file_layer} layer, not the {layer} layer"]
        file = file or CATEGORY_FILES[layer][0]
    else:
        file = ""
    pick = sanitize_keywords([fields.get("KEYWORD", "")])
    if pick.keyword is None:
        return None, ["no usable keyword (" + ("; ".join(pick.issues) or "none given") + ")"]
    try:
        body = validate_body(body, max_bytes=max_body_bytes)
    except EntryRejected as err:
        return None, [str(err)]
    why: list[str] = []
    supersedes: list[str] = []
    for word in _ID_SPLIT_RE.split(fields.get("SUPERSEDES", "")):
        if not word or word.lower() in ("none", "-"):
            continue
        old = known.get(word) if is_id(word) else None
        if old is None or old.layer != layer or not old.live:
            why.append(f"SUPERSEDES {word} does not name a live memory of the {layer} layer")
        elif word not in supersedes:
            supersedes.append(word)
    if why:
        return None, [*why, "the memory is left out"]
    return Proposed(layer, file, pick.keyword, body, tuple(supersedes)), why


def _category(word: str) -> str:
    """``decisions`` / ``DECISIONS.md`` → ``DECISIONS.md``; ``""`` for nothing."""
    word = word.strip().strip("`").strip()
    if not word:
        return ""
    name = word if word.lower().endswith(".md") else f"{word}.md"
    for layer in (USER, PROJECT):
        for candidate in CATEGORY_FILES[layer]:
            if candidate.lower() == name.lower():
                return candidate
    return word
