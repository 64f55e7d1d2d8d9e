"""The receipts log: its line format, appends that never tear or wait, rotation, damage."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_memory import receipts
from pi_memory.receipts import Filter, Receipt
from tests.conftest import DATA, REPO

GOLDEN = DATA / "receipts"

SURFACED = Receipt(
    at="2026-03-14T09:26:53+01:00",
    host="claude-code",
    session="s-1",
    kind=receipts.HOOK,
    event=receipts.SURFACE,
    layers=("project", "user"),
    ids=("m-1", "m-2", "m-3"),
    bytes=1640,
    tokens=410,
    ms=12,
    note="scorer",
)
LEARNED = Receipt(
    at="2026-03-14T09:31:02+01:00",
    host="claude-code",
    session="s-1",
    kind=receipts.JOB,
    event="review",
    layers=("project",),
    ids=("m-4", "m-5"),
    spent=1830,
    ms=4210,
    note="extract: stored — 2 new",
)


def test_the_line_format_is_pinned_byte_for_byte() -> None:
    lines = receipts.encode(SURFACED) + receipts.encode(LEARNED)
    assert lines.encode("ascii") == (GOLDEN / "receipts.jsonl").read_bytes()
    assert [receipts.decode(line) for line in lines.splitlines()] == [SURFACED, LEARNED]


@pytest.mark.parametrize(
    "line",
    [
        "",
        "not json",
        "[1, 2]",
        receipts.encode(SURFACED).replace("2026-03-14T09:26:53+01:00", "yesterday"),
        receipts.encode(SURFACED)[:-20],
        receipts.encode(SURFACED).replace('"bytes":1640', '"bytes":-1'),
        receipts.encode(SURFACED).replace('"ids":["m-1"', '"ids":[1'),
    ],
)
def test_a_damaged_line_reads_as_nothing(line: str) -> None:
    assert receipts.decode(line) is None


def test_the_note_is_one_line_and_short() -> None:
    long = SURFACED._replace(note="a\nb\t" + "x" * 500)
    decoded = receipts.decode(receipts.encode(long))
    assert decoded is not None and decoded.note.startswith("a b x")
    assert len(decoded.note) == receipts.MAX_NOTE


def test_made_counts_the_prompt_text_and_the_duration() -> None:
    started = time.monotonic() - 0.05
    made = receipts.made(
        receipts.HOOK, receipts.SURFACE, host="codex", text="é" * 10, started=started
    )
    assert (made.bytes, made.tokens, made.host) == (20, 5, "codex")
    assert 50 <= made.ms < 5000
    assert receipts.seconds_of(made.at) == pytest.approx(time.time(), abs=5)


def test_appended_receipts_read_back_in_order(tmp_path: Path) -> None:
    assert receipts.read() == []
    assert receipts.append(SURFACED) and receipts.append(LEARNED)
    assert receipts.read() == [SURFACED, LEARNED]
    log = receipts.directory() / receipts.NAME
    assert log.is_relative_to(Path(os.environ["HOME"]) / ".local" / "state" / "pi_memory")


def test_the_log_follows_xdg_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    receipts.append(SURFACED)
    assert (tmp_path / "state" / "pi_memory" / "receipts" / receipts.NAME).is_file()


def test_a_partial_line_is_skipped_and_the_receipt_written_after_it_is_read() -> None:
    receipts.append(SURFACED)
    log = receipts.directory() / receipts.NAME
    with open(log, "a", encoding="ascii") as out:
        out.write(receipts.encode(LEARNED)[:30])  # a writer cut short
    assert receipts.read() == [SURFACED]
    receipts.append(LEARNED)
    assert receipts.read() == [SURFACED, LEARNED]


def test_filters() -> None:
    other = SURFACED._replace(host="gemini", session="s-2", layers=("user",), ids=("m-9",))
    for r in (SURFACED, LEARNED, other):
        receipts.append(r)
    assert receipts.read(Filter(session="s-1")) == [SURFACED, LEARNED]
    assert receipts.read(Filter(host="gemini")) == [other]
    assert receipts.read(Filter(layer="project")) == [SURFACED, LEARNED]
    assert receipts.read(Filter(kind=receipts.JOB)) == [LEARNED]
    assert receipts.read(Filter(event=receipts.SURFACE)) == [SURFACED, other]
    assert receipts.read(Filter(memory="m-5")) == [LEARNED]
    between = receipts.seconds_of("2026-03-14T09:30:00+01:00")
    assert between is not None
    assert receipts.read(Filter(since=between)) == [LEARNED]


def test_a_full_log_is_set_aside_and_still_read() -> None:
    log = receipts.directory() / receipts.NAME
    log.parent.mkdir(parents=True)
    line = receipts.encode(SURFACED).encode("ascii")
    log.write_bytes(line * (receipts.MAX_BYTES // len(line) + 1))
    receipts.append(LEARNED)
    assert log.read_bytes() == receipts.encode(LEARNED).encode("ascii")
    kept = sorted(p.name for p in log.parent.iterdir())
    assert len(kept) == 2 and kept[0].startswith(receipts.ASIDE_PREFIX)
    assert receipts.read()[-1] == LEARNED
    assert len(receipts.read()) == receipts.MAX_BYTES // len(line) + 2


def test_only_the_newest_set_aside_logs_are_kept() -> None:
    log = receipts.directory() / receipts.NAME
    log.parent.mkdir(parents=True)
    line = receipts.encode(SURFACED).encode("ascii")
    for _ in range(receipts.KEEP + 2):
        log.write_bytes(line * (receipts.MAX_BYTES // len(line) + 1))
        receipts.append(LEARNED)
    aside = [p for p in log.parent.iterdir() if p.name != receipts.NAME]
    assert len(aside) == receipts.KEEP


def test_a_corrupt_log_is_set_aside_and_a_new_one_started() -> None:
    log = receipts.directory() / receipts.NAME
    log.parent.mkdir(parents=True)
    log.write_bytes(b"\x00\xff garbage\n" * 5 + receipts.encode(SURFACED).encode("ascii"))
    assert receipts.read() == [SURFACED]  # what could be read is read
    assert not log.exists()
    (aside,) = log.parent.glob(f"*{receipts.UNREADABLE}")
    assert aside.read_bytes().startswith(b"\x00\xff")
    receipts.append(LEARNED)
    assert receipts.read() == [LEARNED]


def test_a_log_that_cannot_be_opened_is_set_aside_and_the_receipt_written() -> None:
    log = receipts.directory() / receipts.NAME
    (log / "in the way").mkdir(parents=True)  # a directory where the log should be
    assert receipts.read() == []
    (log / "in the way").mkdir(parents=True)
    assert receipts.append(SURFACED)
    assert receipts.read() == [SURFACED]
    assert len(list(log.parent.glob(f"*{receipts.UNREADABLE}"))) == 2


def test_no_state_directory_costs_only_the_receipt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    assert receipts.append(SURFACED) is False
    assert receipts.read() == []


WRITER = """
import sys
from pi_memory import receipts
n, who = int(sys.argv[1]), sys.argv[2]
for i in range(n):
    receipts.append(receipts.made("hook", "surface", host=who, session=str(i), note="x" * 150,
                                  ids=tuple(f"{who}-{i}-{k}" for k in range(40))))
"""


def test_processes_appending_at_once_never_tear_a_line() -> None:
    writers, each = 6, 150
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(each), f"w{k}"], cwd=REPO)
        for k in range(writers)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    raw = (receipts.directory() / receipts.NAME).read_bytes()
    lines = raw.split(b"\n")
    assert lines[-1] == b""
    torn = [line for line in lines[:-1] if receipts.decode(line.decode("ascii")) is None]
    assert torn == []
    found = receipts.read()
    assert len(found) == writers * each
    for k in range(writers):
        mine = [r.session for r in found if r.host == f"w{k}"]
        assert mine == [str(i) for i in range(each)]


def test_summary_and_the_last_receipt_of_each_host() -> None:
    other = SURFACED._replace(at="2026-03-14T10:00:00+01:00", host="gemini", session="s-2")
    failed = LEARNED._replace(outcome=receipts.FAILED, ids=())
    total = receipts.summarise([SURFACED, LEARNED, other, failed])
    assert total == receipts.Summary(
        receipts=4, injected=0, recalled=6, learned=2, bytes=3280, tokens=820,
        spent=3660, jobs=2, failed=1, sessions=2,
    )  # fmt: skip
    last = receipts.last_by_host([SURFACED, LEARNED, other])
    assert last == {"claude-code": LEARNED, "gemini": other}
