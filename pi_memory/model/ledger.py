"""The spend ledger: one JSON line per model call (and per store redaction), per month.

``<user layer>/model-usage-YYYY-MM.jsonl``. Each record is appended with one
``write`` on an ``O_APPEND`` descriptor, so concurrent writers interleave whole
lines; a damaged line is skipped when read. Days and months are the user's
local calendar. The ledger is the only memory of spend: the daily cap reads it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.config.schema import Config

PREFIX: Final = "model-usage-"

#: Outcomes of a call.
OK: Final = "ok"
FAILED: Final = "failed"
CUT: Final = "cut"
REFUSED: Final = "refused"
OVER_CAP: Final = "over-cap"
#: A record that only counts redactions (the store's write path).
REDACTED: Final = "redacted"


class LedgerLine(NamedTuple):
    """One line of the ledger: a model call's tokens, time and outcome, or a redaction count."""

    #: Local time, ``YYYY-MM-DDTHH:MM:SS±HH:MM``.
    at: str
    job: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    ms: int = 0
    outcome: str = OK
    redactions: int = 0


class JobSpend(NamedTuple):
    calls: int = 0
    failures: int = 0
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out


class Spend(NamedTuple):
    """One line of the ledger: a model call's tokens, time and outcome, or a redaction count."""

    today: Mapping[str, JobSpend]
    month: Mapping[str, JobSpend]
    redactions_today: int = 0
    redactions_month: int = 0
    #: Background calls the daily cap refused today.
    stopped_today: int = 0

    def tokens_today(self) -> int:
        return sum(s.tokens for s in self.today.values())

    def tokens_month(self) -> int:
        return sum(s.tokens for s in self.month.values())


def directory(config: Config) -> Path:
    """The user layer's directory, where the ledger lives."""
    from pi_memory.config.layout_setting import user_layer_dir

    return user_layer_dir(config)


def now_local() -> datetime:
    return datetime.now().astimezone()


def stamp(when: datetime) -> str:
    return when.isoformat(timespec="seconds")


def path_for(directory: Path, when: datetime) -> Path:
    return directory / f"{PREFIX}{when:%Y-%m}.jsonl"


def encode(spent: LedgerLine) -> str:
    record = {
        "at": spent.at,
        "job": spent.job,
        "model": spent.model,
        "in": spent.tokens_in,
        "out": spent.tokens_out,
        "ms": spent.ms,
        "outcome": spent.outcome,
    }
    if spent.redactions:
        record["redacted"] = spent.redactions
    return json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n"


def decode(line: str) -> LedgerLine | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    at, job = data.get("at"), data.get("job")
    if not isinstance(at, str) or len(at) < 10 or not isinstance(job, str):
        return None
    numbers = [data.get(key, 0) for key in ("in", "out", "ms", "redacted")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        return None
    return LedgerLine(
        at,
        job,
        str(data.get("model", "")),
        numbers[0],
        numbers[1],
        numbers[2],
        str(data.get("outcome", OK)),
        numbers[3],
    )


#: Tokens the calls recorded by this process spent (a job's receipt counts its own).
_SPENT_HERE: list[int] = [0]


def spent_in_process() -> int:
    """Tokens (in + out) of the calls this process recorded so far."""
    return _SPENT_HERE[0]


def record(directory: Path, spent: LedgerLine) -> None:
    """Append one record (creating the directory); raises OSError for the caller to judge."""
    _SPENT_HERE[0] += spent.tokens_in + spent.tokens_out
    path = path_for(directory, datetime.fromisoformat(spent.at))
    directory.mkdir(parents=True, exist_ok=True)
    data = encode(spent).encode("ascii")
    fd = os.open(str(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read_month(directory: Path, when: datetime) -> Iterator[LedgerLine]:
    try:
        text = path_for(directory, when).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in text.splitlines():
        spent = decode(line)
        if spent is not None:
            yield spent


def spend(directory: Path, when: datetime | None = None) -> Spend:
    """Tokens per job today and this month, and redactions, from this month's ledger."""
    when = when or now_local()
    day = f"{when:%Y-%m-%d}"
    today: dict[str, JobSpend] = {}
    month: dict[str, JobSpend] = {}
    red_today = red_month = stopped = 0
    for spent in read_month(directory, when):
        red_month += spent.redactions
        if spent.at[:10] == day:
            red_today += spent.redactions
            stopped += spent.outcome == OVER_CAP
        if spent.outcome in (REDACTED, OVER_CAP):
            continue
        _add(month, spent)
        if spent.at[:10] == day:
            _add(today, spent)
    return Spend(today, month, red_today, red_month, stopped)


def daily(directory: Path, when: datetime | None = None) -> dict[str, dict[str, JobSpend]]:
    """This month's model calls by day (``YYYY-MM-DD``) and job, from the ledger."""
    days: dict[str, dict[str, JobSpend]] = {}
    for spent in read_month(directory, when or now_local()):
        if spent.outcome not in (REDACTED, OVER_CAP):
            _add(days.setdefault(spent.at[:10], {}), spent)
    return days


def _add(table: dict[str, JobSpend], spent: LedgerLine) -> None:
    s = table.get(spent.job, JobSpend())
    table[spent.job] = JobSpend(
        s.calls + 1,
        s.failures + (spent.outcome != OK),
        s.tokens_in + spent.tokens_in,
        s.tokens_out + spent.tokens_out,
    )


def render(spend: Spend, cap: int) -> list[str]:
    """``show``'s model block: tokens today and this month per job, and redactions."""
    if not spend.month and not spend.redactions_month and not spend.stopped_today:
        return []
    limit = f" of the {cap:,} daily cap for background jobs" if cap else " (no daily cap)"
    lines = [
        f"Model tokens: today {spend.tokens_today():,}{limit} · this month {spend.tokens_month():,}"
    ]
    for job in sorted(spend.month):
        month = spend.month[job]
        day = spend.today.get(job, JobSpend())
        failed = f" ({month.failures} failed)" if month.failures else ""
        lines.append(
            f"  {job}: today {_calls(day.calls)}, {day.tokens:,} tokens · "
            f"month {_calls(month.calls)}, {month.tokens:,} tokens{failed}"
        )
    if spend.stopped_today:
        lines.append(
            f"  background calls stopped by the daily cap today: {spend.stopped_today}"
            ' (raise "dailyTokenCap" in memory.json to allow more)'
        )
    if spend.redactions_month:
        lines.append(
            f"  secrets redacted: {spend.redactions_today} today · "
            f"{spend.redactions_month} this month"
        )
    return lines


def _calls(n: int) -> str:
    return f"{n} call" if n == 1 else f"{n} calls"


def to_json(spend: Spend, cap: int) -> dict[str, object]:
    def table(jobs: Mapping[str, JobSpend]) -> dict[str, object]:
        return {
            job: {
                "calls": s.calls,
                "failures": s.failures,
                "tokens_in": s.tokens_in,
                "tokens_out": s.tokens_out,
            }
            for job, s in sorted(jobs.items())
        }

    return {
        "daily_cap": cap,
        "tokens_today": spend.tokens_today(),
        "tokens_month": spend.tokens_month(),
        "today": table(spend.today),
        "month": table(spend.month),
        "redactions_today": spend.redactions_today,
        "redactions_month": spend.redactions_month,
        "stopped_today": spend.stopped_today,
    }
