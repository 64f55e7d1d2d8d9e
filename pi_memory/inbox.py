"""The inbox: what the background review proposes, kept until a person accepts or rejects it.

With ``extractMemories.approval`` set to ``inbox`` a review stages its proposals
here instead of writing them (:func:`stage`); nothing staged is injected or
surfaced, since nothing staged is a memory yet. A person lists them
(:func:`pending`), accepts one, optionally edited (:func:`accept`: the same
``Store.write`` as the ``write`` command, or the layer's ``memory`` tool for
what the files layout's extract agent proposed, under the layer's lock), or
rejects it (:func:`reject`): its fingerprint is remembered and the same
proposal is never staged again.

Each layer keeps its inbox in ``<layer>/.inbox/``: one JSON file per proposal
(its text redacted, with the transcript messages it came from), ``rejected``
(one fingerprint a line) and a ``.gitignore`` that keeps the directory out of
a repository. Every file is replaced atomically and every change is made
under the inbox's own lock (``.inbox/.lock``, the store's lock rules), so a
process killed at any instant leaves each proposal whole or absent. An
accepted proposal is removed after its write: killed in between, it stays
and accepting it again finds the memory already there (the write de-duplicates).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from pi_memory.entry import LAYERS
from pi_memory.errors import UsageError
from pi_memory.named_tuple import NamedTuple
from pi_memory.naming.layer_files import INBOX_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.store import Store
    from pi_memory.transcripts import Turn

REJECTED_FILE: Final = "rejected"
ITEM_SUFFIX: Final = ".json"
#: The staged item's format version, the first key of every item file.
FORMAT_KEY: Final = "piMemoryInbox"
FORMAT: Final = 1
#: A review's proposal for :meth:`Store.write` (pi-memory-auto's one-shot review).
WRITE: Final = "write"
#: The ``memory`` tool's actions a files-layout extract agent may propose.
TOOL_ACTIONS: Final = ("add", "replace", "remove")
ACTIONS: Final = (WRITE, *TOOL_ACTIONS)
#: Transcript messages kept with a proposal, and characters of each.
EVIDENCE_MESSAGES: Final = 4
EVIDENCE_CHARS: Final = 300
#: Fingerprints of rejected proposals kept per layer (the oldest are forgotten first).
REJECTED_KEEP: Final = 2000
_WORD_RE: Final = re.compile(r"\w{3,}")
#: Words too common to say where a proposal came from.
_COMMON: Final = frozenset(
    ("the", "and", "for", "with", "this", "that", "are", "was", "were", "you", "your",
     "use", "not", "but", "from", "have", "has", "its", "our", "into", "when", "then",
     "than", "all", "any", "can", "will", "now", "also", "just", "they", "them")
)  # fmt: skip
_ID_RE: Final = re.compile(r"^[0-9a-f]{4,64}$")


class Proposal(NamedTuple):
    """One change a review proposes, as it would be made."""

    layer: str
    #: ``write`` (a memory for ``Store.write``) or a ``memory`` tool action.
    action: str
    #: The memory's keyword (``write``) or its name (the ``memory`` tool).
    keyword: str
    #: The memory's text (``""`` for ``remove``).
    text: str
    #: The category file asked for (``write``), ``""`` for the layer's choice.
    file: str = ""
    supersedes: tuple[str, ...] = ()
    description: str = ""
    type: str = ""


class Evidence(NamedTuple):
    """A transcript message a proposal came from (redacted, clipped)."""

    position: int
    role: str
    text: str


class Source(NamedTuple):
    """Where a proposal came from."""

    #: ``extract`` (a turn's review) or ``handoff`` (before a compaction).
    job: str
    session: str = ""
    transcript: str = ""
    messages: tuple[Evidence, ...] = ()


class Item(NamedTuple):
    """One staged proposal."""

    id: str
    #: UTC, ``YYYY-MM-DDTHH:MM:SSZ``.
    created: str
    fingerprint: str
    proposal: Proposal
    source: Source


class Edits(NamedTuple):
    """What a person changes in a proposal on accepting it (``None``: as proposed)."""

    text: str | None = None
    keyword: str | None = None
    layer: str | None = None
    file: str | None = None
    description: str | None = None
    type: str | None = None


class Staged(NamedTuple):
    """What :func:`stage` did: the items it staged, and why it left others out."""

    items: tuple[Item, ...]
    skipped: tuple[str, ...] = ()


class Accepted(NamedTuple):
    item: Item
    #: The proposal as written, with the person's edits.
    written: Proposal
    #: The memory written: its id (``write``) or its file (the ``memory`` tool).
    memory: str
    #: The write found the memory already there.
    deduped: bool = False
    note: str = ""


# -- pure: the item's format, its fingerprint, the evidence -----------------------


def fingerprint(proposal: Proposal) -> str:
    """The same proposal, whatever its case, spacing or keyword, has the same fingerprint.

    A memory for ``Store.write`` and the ``memory`` tool's ``add`` are the same
    proposal when their texts are; ``replace`` and ``remove`` name their memory.
    """
    kind = "remove" if proposal.action == "remove" else "write"
    named = proposal.action in ("replace", "remove")
    words = " ".join(proposal.text.casefold().split())
    name = " ".join(proposal.keyword.casefold().split()) if named else ""
    key = "\n".join((kind, proposal.layer, name, words))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def item_id(print_: str, created: str) -> str:
    return hashlib.sha256(f"{print_}\n{created}".encode("ascii")).hexdigest()[:10]


def utc_stamp(now: datetime) -> str:
    when = now.astimezone(timezone.utc) if now.tzinfo else now
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def render_item(item: Item) -> str:
    """The item's file: JSON, two-space indent, UTF-8 as is, one final newline."""
    p, s = item.proposal, item.source
    record: dict[str, Any] = {
        FORMAT_KEY: FORMAT,
        "id": item.id,
        "created": item.created,
        "fingerprint": item.fingerprint,
        "proposal": {
            "layer": p.layer,
            "action": p.action,
            "keyword": p.keyword,
            "text": p.text,
            "file": p.file,
            "supersedes": list(p.supersedes),
            "description": p.description,
            "type": p.type,
        },
        "source": {
            "job": s.job,
            "session": s.session,
            "transcript": s.transcript,
            "messages": [
                {"position": m.position, "role": m.role, "text": m.text} for m in s.messages
            ],
        },
    }
    return json.dumps(record, ensure_ascii=False, indent=2) + "\n"


def parse_item(text: str) -> Item:
    """An item file's record; ``ValueError`` for anything else."""
    raw = json.loads(text)
    if not isinstance(raw, dict) or raw.get(FORMAT_KEY) != FORMAT:
        raise ValueError("not an inbox item of this version")
    p, s = raw["proposal"], raw["source"]
    proposal = Proposal(
        layer=_text(p, "layer"),
        action=_text(p, "action"),
        keyword=_text(p, "keyword"),
        text=_text(p, "text"),
        file=_text(p, "file"),
        supersedes=tuple(str(i) for i in p.get("supersedes", [])),
        description=_text(p, "description"),
        type=_text(p, "type"),
    )
    if proposal.layer not in LAYERS or proposal.action not in ACTIONS:
        raise ValueError("an inbox item for no layer or action this version knows")
    messages = tuple(
        Evidence(int(m["position"]), str(m["role"]), str(m["text"])) for m in s["messages"]
    )
    source = Source(_text(s, "job"), _text(s, "session"), _text(s, "transcript"), messages)
    return Item(
        _text(raw, "id"), _text(raw, "created"), _text(raw, "fingerprint"), proposal, source
    )


def _text(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"{key} is not text")
    return value


def evidence(
    turns: Sequence[Turn], proposal: Proposal, limit: int = EVIDENCE_MESSAGES
) -> tuple[Evidence, ...]:
    """The messages of ``turns`` that share the most words with ``proposal``, in order;
    the last message of the user when none shares a word. Not yet redacted."""
    wanted = set(_WORD_RE.findall(f"{proposal.keyword} {proposal.text}".casefold())) - _COMMON
    scored = []
    for turn in turns:
        shared = len(wanted & set(_WORD_RE.findall(turn.text.casefold())))
        if shared and turn.text.strip():
            scored.append((shared, turn))
    best = sorted(scored, key=lambda pair: (-pair[0], pair[1].position))[:limit]
    chosen = sorted((turn for _, turn in best), key=lambda turn: turn.position)
    if not chosen:
        users = [t for t in turns if t.role == "user" and t.text.strip()]
        chosen = users[-1:]
    return tuple(Evidence(t.position, t.role, _clip(t.text)) for t in chosen)


def _clip(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= EVIDENCE_CHARS else one[: EVIDENCE_CHARS - 1] + "…"


def edited(proposal: Proposal, edits: Edits) -> Proposal:
    """``proposal`` with the person's edits."""
    from pi_memory.store import parse_layer

    changes = {k: v for k, v in edits._asdict().items() if v is not None}
    if "layer" in changes:
        changes["layer"] = parse_layer(changes["layer"])
        if changes["layer"] != proposal.layer:  # a category file belongs to its layer
            changes.setdefault("file", "")
    if proposal.action == "remove" and set(changes) - {"layer", "keyword"}:
        raise UsageError("a proposal to remove a memory has no text to edit")
    return proposal._replace(**changes)


# -- I/O: the inbox's directory -------------------------------------------------


def inbox_dir(store: Store, layer: str) -> Path:
    return store.directory(layer) / INBOX_DIR


def _layers(store: Store) -> list[str]:
    return [layer for layer in LAYERS if layer not in store.settings.unavailable]


@contextmanager
def _locked(store: Store, layer: str, op: str) -> Iterator[None]:
    """The layer's own write lock (``unlock`` clears it when a killed process left it),
    with the inbox's directory ready and its abandoned temp files swept."""
    import time

    from pi_memory.fs.layer_gitignore import ensure_gitignore
    from pi_memory.fs.leftovers import sweep

    with store.lock(layer, op):
        directory = inbox_dir(store, layer)
        directory.mkdir(parents=True, exist_ok=True)
        ensure_gitignore(directory, "*\n")
        sweep(directory, time.time())
        _finish_rejects(store, layer)
        yield


def _finish_rejects(store: Store, layer: str) -> None:
    """Remove the items whose fingerprint is already rejected: a reject killed between
    remembering the fingerprint and removing the item left them behind."""
    refused = set(rejected(store, layer))
    for item in _read_items(inbox_dir(store, layer))[0]:
        if item.fingerprint in refused:
            _remove_item(store, item)


def _read_items(directory: Path) -> tuple[list[Item], list[str]]:
    """The items of one inbox, oldest first, and the files that could not be read."""
    import os

    items: list[Item] = []
    damaged: list[str] = []
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(ITEM_SUFFIX))
    except OSError:
        return [], []
    for name in names:
        if name.startswith("."):
            continue
        try:
            item = parse_item((directory / name).read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError, TypeError):
            damaged.append(name)
            continue
        if f"{item.id}{ITEM_SUFFIX}" != name:
            damaged.append(name)
            continue
        items.append(item)
    return sorted(items, key=lambda i: (i.created, i.id)), damaged


def pending(store: Store) -> list[Item]:
    """Every staged proposal of both layers, oldest first."""
    found: list[Item] = []
    for layer in _layers(store):
        refused = set(rejected(store, layer))  # a reject killed half-way is a reject
        items = _read_items(inbox_dir(store, layer))[0]
        found.extend(item for item in items if item.fingerprint not in refused)
    return sorted(found, key=lambda i: (i.created, i.id))


def damaged(store: Store) -> list[Path]:
    """Item files that cannot be read (left for a person; never deleted)."""
    return [
        inbox_dir(store, layer) / name
        for layer in _layers(store)
        for name in _read_items(inbox_dir(store, layer))[1]
    ]


def count(store: Store) -> int:
    return len(pending(store))


def find(store: Store, ref: str) -> Item:
    """The item whose id is ``ref`` or begins with it (at least four characters)."""
    ref = ref.strip().lower()
    if not _ID_RE.match(ref):
        raise UsageError(f"{ref!r} is not an inbox id (see: python -m pi_memory inbox list)")
    matches = [item for item in pending(store) if item.id.startswith(ref)]
    if not matches:
        raise UsageError(f"no proposal {ref} in the inbox (see: python -m pi_memory inbox list)")
    if len(matches) > 1:
        raise UsageError(f"{ref} names {len(matches)} proposals: give more of the id")
    return matches[0]


def rejected(store: Store, layer: str) -> list[str]:
    """The fingerprints of the proposals rejected in ``layer``'s inbox, oldest first."""
    try:
        raw = (inbox_dir(store, layer) / REJECTED_FILE).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return []
    return [line for line in raw.split("\n") if re.fullmatch(r"[0-9a-f]{64}", line)]


def stage(
    store: Store,
    proposals: Sequence[Proposal],
    source: Source,
    *,
    now: datetime,
    turns: Sequence[Turn] = (),
) -> Staged:
    """Stage each proposal, redacted, with the messages it came from.

    A proposal rejected before, or one the inbox already holds, is left out and said.
    """
    from pi_memory.fs.atomic import atomic_write_text

    created = utc_stamp(now)
    staged: list[Item] = []
    skipped: list[str] = []
    by_layer: dict[str, list[Proposal]] = {}
    for proposal in proposals:
        by_layer.setdefault(proposal.layer, []).append(_redacted(store, proposal))
    for layer, mine in by_layer.items():
        with _locked(store, layer, "inbox"):
            directory = inbox_dir(store, layer)
            refused = set(rejected(store, layer))
            waiting = {item.fingerprint for item in _read_items(directory)[0]}
            for proposal in mine:
                print_ = fingerprint(proposal)
                if print_ in refused or print_ in waiting:
                    why = "rejected before" if print_ in refused else "already in the inbox"
                    skipped.append(f"{proposal.keyword}: {why}")
                    continue
                messages = tuple(
                    m._replace(text=_redact_text(store, m.text)) for m in evidence(turns, proposal)
                )
                item = Item(
                    item_id(print_, created), created, print_, proposal,
                    source._replace(messages=messages),
                )  # fmt: skip
                atomic_write_text(directory / f"{item.id}{ITEM_SUFFIX}", render_item(item))
                waiting.add(print_)
                staged.append(item)
    return Staged(tuple(staged), tuple(skipped))


def _redact_text(store: Store, text: str) -> str:
    from pi_memory.model.redact import redact

    return redact(text, store.settings.redact_patterns).text


def _redacted(store: Store, proposal: Proposal) -> Proposal:
    return proposal._replace(
        text=_redact_text(store, proposal.text),
        keyword=_redact_text(store, proposal.keyword),
        description=_redact_text(store, proposal.description),
    )


def reject(store: Store, ref: str) -> Item:
    """Remove the proposal and remember its fingerprint, so it is not staged again."""
    from pi_memory.fs.atomic import atomic_write_text

    item = find(store, ref)
    layer = item.proposal.layer
    with _locked(store, layer, "reject"):
        item = _still_there(store, item)
        known = [p for p in rejected(store, layer) if p != item.fingerprint]
        known = [*known, item.fingerprint][-REJECTED_KEEP:]
        atomic_write_text(inbox_dir(store, layer) / REJECTED_FILE, "\n".join(known) + "\n")
        _remove_item(store, item)
    return item


AS_PROPOSED: Final = Edits()


def accept(store: Store, ref: str, edits: Edits = AS_PROPOSED, *, now: datetime) -> Accepted:
    """Make the proposal (with ``edits``) a memory through the engine, then remove it."""
    from contextlib import ExitStack

    item = find(store, ref)
    written = edited(item.proposal, edits)
    with ExitStack() as held:
        for layer in LAYERS:  # always in this order: two accepts never wait on each other
            if layer in (item.proposal.layer, written.layer):
                held.enter_context(_locked(store, layer, "accept"))
        item = _still_there(store, item)
        written = edited(item.proposal, edits)
        if written.action == WRITE:
            outcome = store.write(
                written.layer, written.text, [written.keyword], now=now,
                file=written.file or None, supersedes=written.supersedes,
                src="handoff" if item.source.job == "handoff" else "auto",
            )  # fmt: skip
            done = Accepted(item, written, outcome.entry.id, outcome.deduped, outcome.note)
        else:
            done = Accepted(item, written, _tool_write(store, written, now))
        _remove_item(store, item)
    return done


def _tool_write(store: Store, p: Proposal, now: datetime) -> str:
    """The files layout's ``memory`` tool, as the extract agent's review commits it."""
    with store.lock(p.layer, p.action):
        tool = store.layer(p.layer).memory_tool()
        if p.action == "remove":
            return tool.remove_by_name(p.keyword)
        text = store.redact(p.text) if p.text else None
        description = store.redact(p.description) if p.description else None
        kind = p.type or None
        if p.action == "add":
            if text is None:
                raise UsageError("a memory needs text: give --text")
            return tool.add(p.keyword, text, description, kind, now).file
        return tool.replace(p.keyword, text, description, kind, now).file


def _still_there(store: Store, item: Item) -> Item:
    """``item`` as its file says now, under the lock (another process may have taken it)."""
    path = inbox_dir(store, item.proposal.layer) / f"{item.id}{ITEM_SUFFIX}"
    try:
        return parse_item(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"proposal {item.id} was accepted or rejected meanwhile") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise UsageError(f"proposal {item.id} cannot be read: {err}") from None


def _remove_item(store: Store, item: Item) -> None:
    import os

    from pi_memory.fs.atomic import fsync_directory

    directory = inbox_dir(store, item.proposal.layer)
    try:
        os.unlink(directory / f"{item.id}{ITEM_SUFFIX}")
    except FileNotFoundError:
        return
    fsync_directory(directory)
