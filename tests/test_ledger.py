"""The spend ledger's format (golden), its arithmetic, and concurrent writers."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from pi_memory.model import ledger
from tests.conftest import DATA, REPO

GOLDEN = DATA / "model" / "model-usage-2026-12.jsonl"


def test_a_record_is_one_line_in_a_fixed_shape() -> None:
    usage = ledger.LedgerLine(
        "2026-12-01T09:15:02+01:00",
        "extract",
        "anthropic/claude-sonnet-4-5",
        4210,
        388,
        5210,
        "ok",
        2,
    )
    first = GOLDEN.read_text(encoding="utf-8").splitlines(keepends=True)[0]
    assert ledger.encode(usage) == first
    assert ledger.decode(first) == usage


def test_spend_over_a_damaged_ledger(tmp_path: Path) -> None:
    shutil.copy(GOLDEN, tmp_path / GOLDEN.name)
    when = datetime.fromisoformat("2026-12-01T23:00:00+01:00")
    spend = ledger.spend(tmp_path, when)
    # The line with "in": "many" and the torn last line are skipped; over-cap and
    # redaction-only records are no calls.
    assert spend.today == {
        "extract": ledger.JobSpend(calls=2, failures=1, tokens_in=4210, tokens_out=388),
        "surface": ledger.JobSpend(calls=1, failures=0, tokens_in=910, tokens_out=12),
    }
    assert spend.month["dream"] == ledger.JobSpend(1, 1, 30120, 1790)
    assert (spend.tokens_today(), spend.tokens_month()) == (5520, 37430)
    assert (spend.redactions_today, spend.redactions_month) == (3, 3)
    assert spend.stopped_today == 1
    assert ledger.render(spend, 5000)[-2:] == [
        "  background calls stopped by the daily cap today: 1"
        ' (raise "dailyTokenCap" in memory.json to allow more)',
        "  secrets redacted: 3 today · 3 this month",
    ]


def test_concurrent_writers_never_tear_a_line(tmp_path: Path) -> None:
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pi_memory.model import ledger\n"
        "for n in range(300):\n"
        "    usage = ledger.LedgerLine('2026-12-01T10:00:00+01:00', 'job' + sys.argv[1],"
        " 'provider/' + 'm' * 200, n, n, n)\n"
        "    ledger.record(Path(sys.argv[2]), usage)\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", program, str(i), str(tmp_path)],
            cwd=REPO,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        )
        for i in range(4)
    ]
    assert [p.wait(60) for p in procs] == [0, 0, 0, 0]
    lines = (tmp_path / "model-usage-2026-12.jsonl").read_text().splitlines()
    assert len(lines) == 1200
    assert all(ledger.decode(line) is not None for line in lines)
    spend = ledger.spend(tmp_path, datetime.fromisoformat("2026-12-01T12:00:00+01:00"))
    assert {job: s.calls for job, s in spend.today.items()} == {f"job{i}": 300 for i in range(4)}
