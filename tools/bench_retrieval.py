"""Recall of ``search`` on LoCoMo, run as the benchmark's retrieval task defines it.

Each conversation becomes its own store: one layer, one category file, written
in the categories layout's own format and read back through the layout, then
searched in the default mode exactly as ``python -m pi_memory search`` does.

- **facts**: each ``observation`` item is a memory (keyword: the speaker in lower
  case; time: the date of the session of its first evidence turn). A question's
  relevant memories are the facts whose evidence shares a dia_id with its own.
- **turns**: each turn is a memory (``"<speaker>: <text>"`` plus
  ``" [image: <caption>]"``; keyword: the speaker; time: the session's date).
  A question's relevant memories are its evidence turns.

Questions: every ``qa`` item whose category is not 5 and whose evidence is not
empty (for facts, those with at least one relevant fact).

Prints recall@1/5/10 per corpus, and two precision figures for surfacing, where
a wrong memory costs the user's attention: P@1 is how often the top result is
relevant when the search found anything at all (not the "no match, newest
entries" fallback), and P@5 the share of relevant results among the first five.

    python tools/bench_retrieval.py [--data shared/data/locomo-dev/locomo-dev.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pi_memory import surfacing  # noqa: E402
from pi_memory.entry import Entry, format_time  # noqa: E402
from pi_memory.layouts.categories.format import format_entry  # noqa: E402
from pi_memory.layouts.categories.layer import CategoriesLayer  # noqa: E402
from pi_memory.retrieval import search  # noqa: E402

#: One LoCoMo sample as the JSON release has it.
Sample = dict[str, Any]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo-dev" / "locomo-dev.json"
#: Worktrees and clones elsewhere: the shared folder of the project's workplace.
FALLBACK_DATA = Path("/work/shared/data/locomo-dev/locomo-dev.json")
FILE = "CONVENTIONS.md"
LAYER = "project"
KS = (1, 5, 10)
_DATE_RE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})", re.I)


class Memory(NamedTuple):
    body: str
    keyword: str
    time: datetime
    dia_ids: frozenset[str]


class Question(NamedTuple):
    text: str
    evidence: frozenset[str]


def session_date(text: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` -> a datetime."""
    match = _DATE_RE.search(text)
    if match is None:
        raise ValueError(f"unreadable session date {text!r}")
    hour, minute, half, day, month, year = match.groups()
    clock = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    parsed = datetime.strptime(f"{day} {month[:3]} {year}", "%d %b %Y")
    return parsed.replace(hour=clock, minute=int(minute))


def _as_ids(evidence: object) -> frozenset[str]:
    """One dia_id, a list of them, or ``"D8:6; D9:17"`` (either form, as the data has)."""
    items = evidence if isinstance(evidence, list) else [evidence] if evidence else []
    parts = (part.strip() for item in items for part in str(item).split(";"))
    return frozenset(part for part in parts if part)


def _sessions(conversation: Sample) -> dict[int, datetime]:
    dates = {}
    for key, value in conversation.items():
        match = re.fullmatch(r"session_(\d+)_date_time", key)
        if match and isinstance(value, str):
            dates[int(match.group(1))] = session_date(value)
    return dates


def _session_of(dia_id: str) -> int:
    match = re.match(r"D(\d+):", dia_id)
    return int(match.group(1)) if match else 0


def facts(sample: Sample) -> list[Memory]:
    conversation = sample["conversation"]
    dates = _sessions(conversation)
    fallback = min(dates.values())
    memories = []
    observation = sample["observation"]
    for per_speaker in observation.values():
        for speaker, items in per_speaker.items():
            for text, evidence in items:
                ids = _as_ids(evidence)
                first = sorted(ids, key=lambda d: (_session_of(d), d))
                session = _session_of(first[0]) if first else 0
                when = dates.get(session, fallback)
                memories.append(Memory(text, speaker.lower(), when, ids))
    return memories


def turns(sample: Sample) -> list[Memory]:
    conversation = sample["conversation"]
    dates = _sessions(conversation)
    memories = []
    for key, value in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if not match or not isinstance(value, list):
            continue
        when = dates[int(match.group(1))]
        for turn in value:
            body = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                body += f" [image: {turn['blip_caption']}]"
            speaker = turn["speaker"].lower()
            memories.append(Memory(body, speaker, when, frozenset([turn["dia_id"]])))
    return memories


def questions(sample: Sample) -> list[Question]:
    asked = []
    qa = sample["qa"]
    for item in qa:
        evidence = _as_ids(item.get("evidence"))
        if item.get("category") == 5 or not evidence:
            continue
        asked.append(Question(str(item["question"]), evidence))
    return asked


def build_layer(memories: Iterable[Memory], directory: Path) -> tuple[list[Entry], dict[str, int]]:
    """Write ``memories`` as one category file; returns what the layout reads back."""
    rows = []
    position_of_id: dict[str, int] = {}
    for position, memory in enumerate(memories):
        entry_id = f"{memory.time:%Y%m%d}-{position:04x}"
        position_of_id[entry_id] = position
        entry = Entry(
            id=entry_id,
            time=format_time(memory.time),
            project="locomo",
            src="user",
            keyword=memory.keyword,
            body=" ".join(memory.body.split()),
            layer=LAYER,
            file=FILE,
        )
        rows.append(format_entry(entry))
    directory.mkdir(parents=True, exist_ok=True)
    (directory / FILE).write_bytes("".join(rows).encode("utf-8"))
    return CategoriesLayer(LAYER, directory).read(), position_of_id


class Score(NamedTuple):
    asked: int
    recall: dict[int, float]
    precision_at_1: float
    precision_at_5: float
    #: Share of the questions the prompt hook's scorer surfaced anything for.
    surfaced: float
    #: How often its first pick is relevant, when it picked one.
    surfaced_precision: float


def evaluate(data: list[Sample], corpus_name: str, workdir: Path, now: datetime) -> Score:
    found = dict.fromkeys(KS, 0)
    asked = answered = top_relevant = 0
    relevant_in_five = surfaced = surfaced_relevant = 0
    for sample in data:
        memories = facts(sample) if corpus_name == "facts" else turns(sample)
        where = workdir / f"{corpus_name}-{sample['sample_id']}"
        entries, position_of_id = build_layer(memories, where)
        prompt_corpus = surfacing.corpus(entries)
        for question in questions(sample):
            relevant = {i for i, m in enumerate(memories) if m.dia_ids & question.evidence}
            if not relevant and corpus_name == "facts":
                continue
            asked += 1
            result = search(entries, question.text, now=now)
            ranked = [position_of_id[hit.entry.id] for hit in result.hits]
            for k in KS:
                if any(position in relevant for position in ranked[:k]):
                    found[k] += 1
            if not result.fallback and ranked:
                answered += 1
                top_relevant += ranked[0] in relevant
            relevant_in_five += sum(position in relevant for position in ranked[:5])
            picked = surfacing.score(prompt_corpus, question.text)
            if picked:
                surfaced += 1
                surfaced_relevant += position_of_id[picked[0][1].id] in relevant
    return Score(
        asked=asked,
        recall={k: found[k] / asked for k in KS},
        precision_at_1=top_relevant / answered if answered else 0.0,
        precision_at_5=relevant_in_five / (5 * asked),
        surfaced=surfaced / asked,
        surfaced_precision=surfaced_relevant / surfaced if surfaced else 0.0,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = DEFAULT_DATA if DEFAULT_DATA.is_file() else FALLBACK_DATA
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--corpus", choices=("facts", "turns", "both"), default="both")
    parser.add_argument(
        "--samples",
        help="only these conversations, by sample_id, comma-separated (to hold some out)",
    )
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"no data at {args.data}", file=sys.stderr)
        return 2
    data = json.loads(args.data.read_text(encoding="utf-8"))
    if args.samples:
        wanted = set(args.samples.split(","))
        data = [sample for sample in data if sample["sample_id"] in wanted]
    corpora = ("facts", "turns") if args.corpus == "both" else (args.corpus,)
    now = datetime.now()
    print("| corpus | questions | r@1 | r@5 | r@10 | P@1 | P@5 | surfaced | S-P@1 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in corpora:
            score = evaluate(data, corpus, Path(tmp), now)
            recall = " | ".join(f"{score.recall[k]:.3f}" for k in KS)
            print(
                f"| {corpus} | {score.asked} | {recall} | "
                f"{score.precision_at_1:.3f} | {score.precision_at_5:.3f} | "
                f"{score.surfaced:.3f} | {score.surfaced_precision:.3f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
