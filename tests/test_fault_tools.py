"""The fault-injection tools, in a small seeded form: stress, kill sweep, fuzzer.

The full forms are commands (``python tools/stress.py`` …) whose figures are in
the README; here each runs for a few seconds and must find nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import REPO


def tool(name: str, *args: str) -> dict[str, Any] | list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, str(REPO / "tools" / name), "--json", *args],
        capture_output=True,
        text=True,
        timeout=900,  # a bound on a hang: 120 s ran out at a load of 35
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data: Any = json.loads(done.stdout)
    return data


def test_stress_loses_duplicates_and_tears_nothing_on_either_layout() -> None:
    reports = tool("stress.py", "--processes", "3", "--writes", "10", "--seed", "5")
    assert isinstance(reports, list)
    assert [r["layout"] for r in reports] == ["categories", "files"]
    for report in reports:
        assert report["acknowledged"] == 30
        assert report["stored"] == 25  # 24 distinct facts and the shared one, seen 6 times
        counts = [report[k] for k in ("lost", "duplicated", "torn", "miscounted")]
        assert counts == [0, 0, 0, 0]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_kill_sweep_finds_every_file_readable_and_every_lock_reported() -> None:
    report = tool("kill_sweep.py", "--kills", "8", "--seed", "4", "--max-delay-ms", "120")
    assert isinstance(report, dict)
    assert report["kills"] == 8
    assert (report["lost"], report["torn"], report["unreported"]) == (0, 0, 0)
    assert report["problems"] == []


def test_fuzzer_finds_no_traceback_and_no_lost_byte() -> None:
    report = tool("fuzz.py", "--cases", "40", "--seed", "11")
    assert isinstance(report, dict)
    assert (report["cases"], report["tracebacks"], report["lost bytes"]) == (40, 0, 0)
