from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

from pi_memory.entry import Entry, format_time
from pi_memory.staleness import (
    SECONDS_END,
    clamp_review_months,
    interval_months,
    moment,
    seconds,
    sortable_time,
    stale_age_days,
    stale_counts,
    stale_label,
)

NOW = datetime(2026, 10, 1, 10, 0, 0)


def entry(
    time: str = "2026-01-11 10:00:00",
    file: str = "FAILURES.md",
    *,
    type_: str = "",
    last: str = "",
    superseded_by: str = "",
) -> Entry:
    return Entry(
        id="20260111-aabb",
        time=time,
        project="p",
        src="auto",
        keyword="deploy",
        body="b",
        file=file,
        type=type_,
        last=last,
        superseded_by=superseded_by,
    )


def ago(days: float) -> str:
    return format_time(NOW - timedelta(days=days))


@pytest.mark.parametrize(
    ("file", "months"),
    [
        ("TOOLING.md", 3),
        ("USER.md", 6),
        ("CONVENTIONS.md", 6),
        ("LESSONS.md", 12),
        ("FAILURES.md", 12),
        ("DECISIONS.md", 12),
        ("something-else.md", 12),
    ],
)
def test_interval_per_file(file: str, months: int) -> None:
    assert interval_months(entry(file=file)) == months


@pytest.mark.parametrize(
    ("type_", "months"),
    [("reference", 3), ("user", 6), ("feedback", 12), ("project", 12), ("odd", 12)],
)
def test_interval_per_type_in_the_files_layout(type_: str, months: int) -> None:
    # The files layout names files after the memory; USER.md here is a memory's name.
    assert interval_months(entry(file="USER.md", type_=type_)) == months


def test_override_applies_to_every_file() -> None:
    assert interval_months(entry(file="TOOLING.md"), 2) == 2
    assert interval_months(entry(file="DECISIONS.md", type_="project"), 1) == 1


def test_zero_and_negative_override_mean_defaults() -> None:
    assert interval_months(entry(file="TOOLING.md"), 0) == 3
    assert interval_months(entry(file="TOOLING.md"), -5) == 3
    assert clamp_review_months(-5) == 0
    assert clamp_review_months(4) == 4


def test_label_text() -> None:
    assert (
        stale_label(entry(time=ago(400)), NOW)
        == "stale (400d, interval 12mo) — verify before relying on it"
    )
    assert (
        stale_label(entry(time=ago(263), file="TOOLING.md"), NOW)
        == "stale (263d, interval 3mo) — verify before relying on it"
    )


def test_month_is_thirty_days_and_the_boundary_is_fresh() -> None:
    tooling = "TOOLING.md"
    assert stale_age_days(entry(time=ago(90), file=tooling), NOW) is None
    just_over = format_time(NOW - timedelta(days=90, seconds=1))
    assert stale_age_days(entry(time=just_over, file=tooling), NOW) == 90


def test_days_are_whole_days_rounded_down() -> None:
    assert stale_age_days(entry(time=ago(400.9)), NOW) == 400


def test_last_restarts_the_clock() -> None:
    assert stale_age_days(entry(time=ago(800), last=ago(10)), NOW) is None
    assert stale_age_days(entry(time=ago(800), last=ago(500)), NOW) == 500


def test_superseded_is_never_stale() -> None:
    assert stale_label(entry(time=ago(2000), superseded_by="20260201-cccc"), NOW) is None


def test_unreadable_time_is_not_stale() -> None:
    assert stale_label(entry(time="garbage"), NOW) is None
    assert stale_label(entry(time=""), NOW) is None


def test_iso_times_from_the_files_layout() -> None:
    assert stale_age_days(entry(time="2024-01-01T00:00:00", file="x.md"), NOW) is not None
    assert stale_age_days(entry(time="2026-09-30", file="x.md"), NOW) is None


def test_aware_now_is_compared_in_local_time() -> None:
    aware = NOW.astimezone(timezone.utc)
    assert stale_age_days(entry(time=ago(400)), aware) == 400


def test_override_changes_the_label() -> None:
    assert (
        stale_label(entry(time=ago(45)), NOW, 1)
        == "stale (45d, interval 1mo) — verify before relying on it"
    )


def test_sortable_time() -> None:
    assert sortable_time("2026-01-11 10:00:00") == "2026-01-11 10:00:00"
    assert sortable_time("2026-01-11T10:00:00") == "2026-01-11 10:00:00"
    assert sortable_time("2026-01-11") == "2026-01-11 00:00:00"
    assert sortable_time("nonsense") == ""


def test_stale_counts_agree_with_the_labels() -> None:
    rng = random.Random(7)
    now = datetime(2026, 11, 30, 12, 0, 0)
    files = ["TOOLING.md", "USER.md", "DECISIONS.md", "FAILURES.md", "CONVENTIONS.md"]
    entries = []
    for i in range(2000):
        age = timedelta(
            days=rng.choice([89, 90, 91, 179, 180, 181, 359, 360, 361, 400]),
            seconds=rng.choice([-1, 0, 1]),
        )
        when = (now - age).strftime("%Y-%m-%d %H:%M:%S")
        entries.append(
            Entry(
                id=f"20260101-{i:04x}",
                time=when,
                project="p",
                src="user",
                keyword="k",
                body="b",
                file=rng.choice(files),
                last=rng.choice(["", when, "garbage"]),
                superseded_by=rng.choice(["", "", "", "20260101-ffff"]),
            )
        )
    for months in (0, 1, 4):
        expected: dict[str, int] = {}
        for entry in entries:
            if stale_label(entry, now, months):
                expected[entry.file] = expected.get(entry.file, 0) + 1
        assert stale_counts(entries, now, months) == expected
        assert sum(expected.values()) > 0


def test_seconds_order_as_the_texts_and_differ_as_the_moments() -> None:
    rng = random.Random(3)
    start = datetime(2000, 1, 1)
    times = [start + timedelta(seconds=rng.randrange(0, 4 * 10**9)) for _ in range(500)]
    texts = sorted({format_time(when) for when in times})
    counts = [seconds(text) for text in texts]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    for text, count in zip(texts, counts):
        assert count is not None and 0 <= count < SECONDS_END
        assert start + timedelta(seconds=count) == moment(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1999-12-31 23:59:59",  # before the count starts
        "2200-01-01 00:00:00",  # past a 32-bit count
        "2026-13-01 10:00:00",  # no such month
        "2026-02-30 10:00:00",
        "2026-01- 1 10:00:00",  # a time moment() reads, but ordered unlike its count
        "2026-01-01T10:00:00",
        "２０２６-01-01 10:00:00",
    ],
)
def test_a_time_without_a_count(text: str) -> None:
    assert seconds(text) is None
