"""The inbox's engine: staging, listing, accepting (edited or not) and rejecting, in both
layouts, through the real store on disk."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from pi_memory import inbox
from pi_memory.errors import UsageError
from pi_memory.inbox import Edits, Proposal, Source
from pi_memory.store import Settings, Store
from pi_memory.transcripts import Turn

DATA = Path(__file__).resolve().parent / "data" / "inbox"
NOW = datetime(2026, 12, 2, 1, 2, 3, tzinfo=timezone.utc)
TURNS = (
    Turn(0, "user", "Which port does the dev server use?"),
    Turn(1, "assistant", "It listens on port 8080, see server.py."),
    Turn(2, "user", "Thanks. Also my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok"),
    Turn(3, "user", "Let us run the tests now."),
)
SOURCE = Source("extract", "sess-1", "/tmp/sess-1.jsonl")
PORT = Proposal(
    "project", "write", "dev-server", "The dev server listens on port 8080.", "DECISIONS.md"
)


def _store(root: Path, layout: str) -> Store:
    dirs = {"project": root / "project", "user": root / "user"}
    return Store(Settings(layout=layout, dirs=dirs, project_name="shop"))


@pytest.fixture(params=["categories", "files"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return _store(tmp_path, str(request.param))


def test_a_staged_proposal_is_listed_and_is_no_memory(store: Store) -> None:
    staged = inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS)
    assert [i.proposal.text for i in staged.items] == [PORT.text]
    assert [i.id for i in inbox.pending(store)] == [staged.items[0].id]
    assert inbox.count(store) == 1
    assert store.read_all() == []
    assert "8080" not in store.injection()


def test_accepting_writes_through_the_engine_and_empties_the_inbox(store: Store) -> None:
    item = inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS).items[0]
    done = inbox.accept(store, item.id[:6], now=NOW)
    assert done.memory
    assert [e.body for e in store.read_all()] == [PORT.text]
    assert inbox.pending(store) == []
    with pytest.raises(UsageError, match="no proposal"):
        inbox.accept(store, item.id, now=NOW)


def test_an_edited_accept_writes_the_edits(store: Store) -> None:
    item = inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS).items[0]
    edits = Edits(text="The dev server listens on port 9090.", keyword="port", layer="user")
    done = inbox.accept(store, item.id, edits, now=NOW)
    assert done.written.layer == "user"
    entries = store.read_all()
    assert [(e.layer, e.body) for e in entries] == [
        ("user", "The dev server listens on port 9090.")
    ]


def test_a_rejected_proposal_is_not_staged_again(store: Store) -> None:
    item = inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS).items[0]
    assert inbox.reject(store, item.id).id == item.id
    assert inbox.pending(store) == []
    again = PORT._replace(keyword="port", text="  the DEV server listens on   port 8080. ")
    later = inbox.stage(store, [again], SOURCE, now=NOW.replace(hour=5), turns=TURNS)
    assert later.items == ()
    assert later.skipped == ("port: rejected before",)
    assert store.read_all() == []


def test_a_reject_killed_before_the_item_is_removed_is_finished(store: Store) -> None:
    """A reject records the fingerprint, then removes the item; a kill between the two
    leaves both on disk. The item is then rejected: never listed, never accepted, and the
    next change to the inbox removes its file."""
    item = inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS).items[0]
    directory = inbox.inbox_dir(store, "project")
    (directory / inbox.REJECTED_FILE).write_text(item.fingerprint + "\n", encoding="ascii")
    assert inbox.pending(store) == []
    assert inbox.count(store) == 0
    with pytest.raises(UsageError, match="no proposal"):
        inbox.accept(store, item.id, now=NOW)
    assert (directory / f"{item.id}{inbox.ITEM_SUFFIX}").exists()
    other = PORT._replace(keyword="db", text="The database is Postgres 16.")
    inbox.stage(store, [other], SOURCE, now=NOW.replace(hour=4), turns=TURNS)
    assert not (directory / f"{item.id}{inbox.ITEM_SUFFIX}").exists()
    assert [i.proposal.text for i in inbox.pending(store)] == [other.text]
    assert store.read_all() == []


def test_the_same_proposal_waits_once(store: Store) -> None:
    inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS)
    twice = inbox.stage(store, [PORT], SOURCE, now=NOW.replace(hour=4), turns=TURNS)
    assert twice.skipped == ("dev-server: already in the inbox",)
    assert inbox.count(store) == 1


def test_accepting_twice_the_same_text_finds_the_memory(tmp_path: Path) -> None:
    """A kill between the write and the item's removal leaves the item: accepting it
    again is the write's de-duplication, not a second memory."""
    store = _store(tmp_path, "categories")
    item = inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS).items[0]
    kept = (inbox.inbox_dir(store, "project") / f"{item.id}.json").read_bytes()
    inbox.accept(store, item.id, now=NOW)
    (inbox.inbox_dir(store, "project") / f"{item.id}.json").write_bytes(kept)
    assert inbox.accept(store, item.id, now=NOW).deduped
    assert len(store.read_all()) == 1


def test_secrets_are_redacted_in_the_proposal_and_its_messages(store: Store) -> None:
    secret = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    leaky = PORT._replace(text=f"The deploy token is {secret} for the tests.")
    item = inbox.stage(store, [leaky], SOURCE, now=NOW, turns=TURNS).items[0]
    raw = (inbox.inbox_dir(store, "project") / f"{item.id}.json").read_text()
    assert secret not in raw
    assert "[REDACTED:" in raw
    assert any(m.position == 2 for m in item.source.messages)


def test_files_tool_proposals_are_made_by_the_memory_tool(tmp_path: Path) -> None:
    store = _store(tmp_path, "files")
    add = Proposal(
        "project", "add", "dev-port", "The dev server listens on port 8080.",
        description="dev server port", type="project",
    )  # fmt: skip
    item = inbox.stage(store, [add], SOURCE, now=NOW, turns=TURNS).items[0]
    assert inbox.accept(store, item.id, now=NOW).memory == "dev-port.md"
    (entry,) = store.read_all()
    assert (entry.name, entry.description, entry.type) == ("dev-port", "dev server port", "project")
    remove = Proposal("project", "remove", "dev-port", "")
    gone = inbox.stage(store, [remove], SOURCE, now=NOW, turns=TURNS).items[0]
    inbox.accept(store, gone.id, now=NOW)
    assert store.read_all() == []


def test_the_inbox_keeps_out_of_a_repository(store: Store) -> None:
    inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS)
    assert (inbox.inbox_dir(store, "project") / ".gitignore").read_text() == "*\n"


def test_an_unreadable_item_is_left_alone_and_named(store: Store) -> None:
    inbox.stage(store, [PORT], SOURCE, now=NOW, turns=TURNS)
    bad = inbox.inbox_dir(store, "project") / "0123456789.json"
    bad.write_text("{not json")
    assert inbox.count(store) == 1
    assert inbox.damaged(store) == [bad]


@pytest.mark.parametrize(
    ("name", "proposal"),
    [
        ("write_item.json", PORT._replace(supersedes=("20261001-aaaa",))),
        (
            "tool_item.json",
            Proposal(
                "user",
                "add",
                "prefers-tabs",
                "Indent with tabs, never spaces.",
                description="tabs over spaces",
                type="user",
            ),
        ),
    ],
)
def test_the_staged_item_format(tmp_path: Path, name: str, proposal: Proposal) -> None:
    """Pinned byte for byte: the web viewer and people read these files."""
    store = _store(tmp_path, "categories")
    item = inbox.stage(store, [proposal], SOURCE, now=NOW, turns=TURNS).items[0]
    path = inbox.inbox_dir(store, proposal.layer) / f"{item.id}.json"
    assert path.read_bytes() == (DATA / name).read_bytes()
    assert inbox.parse_item(path.read_text(encoding="utf-8")) == item


def test_a_fingerprint_ignores_case_spacing_and_keyword() -> None:
    same = PORT._replace(keyword="other", text="THE dev server\nlistens on port 8080.")
    assert inbox.fingerprint(same) == inbox.fingerprint(PORT)
    assert inbox.fingerprint(PORT._replace(layer="user")) != inbox.fingerprint(PORT)
    add = Proposal("project", "add", "x", PORT.text)
    assert inbox.fingerprint(add) == inbox.fingerprint(PORT)
