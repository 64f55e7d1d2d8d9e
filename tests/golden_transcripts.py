"""The transcript golden files: each sample in ``tests/data/transcripts`` and its turns."""

from __future__ import annotations

import json
from pathlib import Path

from pi_memory.transcripts.read import read_transcript

CASES_DIR = Path(__file__).resolve().parent / "data" / "transcripts"
GOLDEN_SUFFIX = ".turns.json"


def samples() -> list[Path]:
    return sorted(p for p in CASES_DIR.iterdir() if not p.name.endswith(GOLDEN_SUFFIX))


def golden_path(sample: Path) -> Path:
    return sample.with_name(sample.stem + GOLDEN_SUFFIX)


def expected_text(sample: Path) -> str:
    fmt, turns = read_transcript(sample)
    data = {"format": fmt, "turns": [turn._asdict() for turn in turns]}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
