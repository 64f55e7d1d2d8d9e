"""Precision and recall of secret redaction over the corpus in tests/data/redaction/.

    python tools/bench_redaction.py [--verbose]

A positive counts as found when its secret is gone and a placeholder stands in
the text; a negative counts as a false alarm when its text changed at all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "redaction"
sys.path.insert(0, str(ROOT))

from pi_memory.model.redact import redact  # noqa: E402  # after the path is set


class Score(NamedTuple):
    found: int
    missed: list[dict[str, Any]]
    false_alarms: list[dict[str, Any]]
    clean: int

    @property
    def precision(self) -> float:
        flagged = self.found + len(self.false_alarms)
        return self.found / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        total = self.found + len(self.missed)
        return self.found / total if total else 1.0


def load(name: str) -> list[dict[str, Any]]:
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def score(only: str | None = None) -> Score:
    """Over the whole corpus, or only the cases of one ``set`` (e.g. ``held-out``)."""
    found, missed, alarms, clean = 0, [], [], 0
    for case in load("positives.jsonl"):
        if only and case.get("set") != only:
            continue
        out = redact(case["text"]).text
        if case["secret"] not in out and "[REDACTED:" in out:
            found += 1
        else:
            missed.append(case)
    for case in load("negatives.jsonl"):
        if only and case.get("set") != only:
            continue
        if redact(case["text"]).text == case["text"]:
            clean += 1
        else:
            alarms.append(case)
    return Score(found, missed, alarms, clean)


def main(argv: list[str]) -> int:
    for title, only in (("whole corpus", None), ("held-out cases", "held-out")):
        s = score(only)
        positives = s.found + len(s.missed)
        negatives = s.clean + len(s.false_alarms)
        print(f"{title}:")
        print(f"  positives {positives}: found {s.found}, missed {len(s.missed)}")
        print(f"  negatives {negatives}: untouched {s.clean}, false alarms {len(s.false_alarms)}")
        print(f"  precision {s.precision:.3f}  recall {s.recall:.3f}")
    import time

    sample = (ROOT / "pi_memory" / "store.py").read_text(encoding="utf-8")
    text = (sample * (60_000 // len(sample) + 1))[:60_000]
    redact(text)  # compiles the rules
    runs = 20
    start = time.perf_counter()
    for _ in range(runs):
        redact(text)
    per = (time.perf_counter() - start) / runs * 1000
    print(f"speed: {per:.1f} ms for 60,000 characters of Python source (a review's tail)")
    s = score()
    if "--verbose" in argv:
        for case in s.missed:
            print(f"MISSED [{case['kind']}] {case['text'][:100]!r}")
        for case in s.false_alarms:
            after = redact(case["text"]).text
            print(f"FALSE ALARM [{case['what']}] {case['text'][:80]!r} -> {after[:80]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
