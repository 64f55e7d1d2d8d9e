"""Random stores for comparing the detectors' fast paths with their definitions."""

from __future__ import annotations

import random

from pi_memory.entry import Entry

COMMON = [
    "the",
    "a",
    "to",
    "of",
    "and",
    "is",
    "use",
    "uses",
    "for",
    "on",
    "in",
    "with",
    "server",
    "build",
    "deploy",
    "test",
    # Function words and inflections: rewordings the conflict rule folds.
    "every",
    "each",
    "by",
    "that",
    "deploys",
    "deployed",
    "goes",
    "go",
    "starts",
    "started",
]
RARE = [
    "rsync",
    "staging",
    "host",
    "pnpm",
    "npm",
    "node",
    "cache",
    "redis",
    "postgres",
    "docker",
    "nginx",
    "port",
    "timeout",
    "retry",
    "lint",
    "format",
    "ruff",
    "mypy",
    "pytest",
    "branch",
    "release",
    "tag",
    "token",
    "secret",
    "vault",
]
HAN = ["部署", "脚本", "测试", "端口", "缓存", "服务器", "发布", "分支", "超时", "重试"]
KEYWORDS = ["dev-server", "Dev Server", "dev_server", "deploy", "Deploy", "cache", "端口", "x"]
TEMPLATES = [
    "The dev server listens on port {n}.",
    "Use node {n} for the build.",
    "Retry the deploy {n} times before giving up.",
    "API timeout is {n} seconds",
    "服务器 端口 是 {n}",
]
PUNCT = ["", "...", "!!", " ", "—", "-- ; --", "。"]


def _sentence(rng: random.Random, mode: str) -> str:
    if mode == "common":
        return " ".join(rng.choice(COMMON) for _ in range(rng.randint(1, 9)))
    if mode == "mixed":
        words = [
            rng.choice(COMMON if rng.random() < 0.5 else RARE) for _ in range(rng.randint(1, 10))
        ]
        return " ".join(words)
    if mode == "template":
        return rng.choice(TEMPLATES).format(n=rng.choice([80, 81, 3000, 8080, "1.2.3", 18, 20]))
    if mode == "han":
        return "".join(rng.choice(HAN) for _ in range(rng.randint(1, 6)))
    if mode == "punct":
        return rng.choice(PUNCT)
    return ""


def _variant(rng: random.Random, body: str) -> str:
    """The same body reworded a little: case, spacing, punctuation, a word swapped."""
    choice = rng.randint(0, 3)
    if choice == 0:
        return body.upper() + rng.choice(["", ".", " !"])
    if choice == 1:
        return "  ".join(body.split())
    words = body.split()
    if words:
        words[rng.randrange(len(words))] = rng.choice(RARE + COMMON)
    if choice == 3 and words:
        words.append(rng.choice(RARE))
    return " ".join(words)


def random_store(seed: int, size: int | None = None) -> list[Entry]:
    rng = random.Random(seed)
    n = rng.randint(0, 300) if size is None else size
    modes = rng.sample(
        ["common", "mixed", "template", "han", "punct", "mixed"], k=rng.randint(1, 4)
    )
    keywords = rng.sample(KEYWORDS, k=rng.randint(1, len(KEYWORDS)))
    entries: list[Entry] = []
    for i in range(n):
        if entries and rng.random() < 0.25:
            body = _variant(rng, rng.choice(entries).body)
        else:
            body = _sentence(rng, rng.choice(modes))
        day = rng.randint(1, 28)
        time = f"2026-02-{day:02d} 10:00:{rng.randint(0, 1):02d}"
        if rng.random() < 0.05:
            time = f"2026-02-{day:02d}T10:00:00"
        entries.append(
            Entry(
                id=f"202602{day:02d}-{i:04x}",
                time=time,
                project="p",
                src="auto",
                keyword=rng.choice(keywords),
                body=body,
                layer=rng.choice(["user", "project"]),
                file=rng.choice(["DECISIONS.md", "CONVENTIONS.md"]),
                superseded_by="" if rng.random() < 0.9 else "20260101-dead",
            )
        )
    return entries


def shuffled(entries: list[Entry], seed: int) -> list[Entry]:
    copy = [entry._replace() for entry in entries]
    random.Random(seed).shuffle(copy)
    return copy


_SUBJECTS = [
    "api",
    "worker",
    "scheduler",
    "gateway",
    "cache",
    "queue",
    "database",
    "proxy",
    "indexer",
    "mailer",
]
_VERBS = [
    "restarts",
    "flushes",
    "rotates",
    "checks",
    "rebuilds",
    "reloads",
    "drains",
    "warms",
    "validates",
    "syncs",
]
_OBJECTS = [
    "sessions",
    "tokens",
    "logs",
    "certificates",
    "indexes",
    "snapshots",
    "buffers",
    "jobs",
    "tables",
    "keys",
]
_WHEN = ["nightly", "hourly", "weekly", "daily", "always", "often", "rarely", "manually"]
_LINKS = ["before", "after", "with", "for"]


def narrow_store(seed: int, size: int = 600) -> list[Entry]:
    """Notes from one template over a ~50-word vocabulary: every body shares most
    words with many others, so each of its rarest words is still common.

    A few keywords make the keyword groups large; some notes carry a number, and
    a quarter are rewordings or copies of an earlier note.
    """
    rng = random.Random(seed)
    keywords = [f"{subject}-ops" for subject in _SUBJECTS[: rng.randint(2, 5)]]
    entries: list[Entry] = []
    for i in range(size):
        roll = rng.random()
        if entries and roll < 0.25:
            words = rng.choice(entries).body.split()
            words[rng.randrange(len(words))] = rng.choice(_WHEN + _OBJECTS)
            body = " ".join(words)
        else:
            body = (
                f"the {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} the {rng.choice(_OBJECTS)} "
                f"{rng.choice(_WHEN)} {rng.choice(_LINKS)} the {rng.choice(_SUBJECTS)} "
                f"{rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
            )
            if roll > 0.85:
                body += f" every {rng.choice([5, 10, 30])} minutes"
        day = rng.randint(1, 28)
        entries.append(
            Entry(
                id=f"202603{day:02d}-{i:04x}",
                time=f"2026-03-{day:02d} 10:00:00",
                project="p",
                src="auto",
                keyword=rng.choice(keywords),
                body=body,
                layer="project",
                file="DECISIONS.md",
            )
        )
    return entries
