"""Random stores for comparing the detectors' fast paths with their definitions."""

from __future__ import annotations

import random
import re

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


_PROSE = [
    "the", "a", "to", "for", "on", "with", "is", "and", "in", "of", "not", "before", "after",
    "must", "never", "all", "each", "every", "by", "that", "off",
    "deploy", "deploys", "deployed", "release", "released", "start", "starts", "started",
    "build", "builds", "test", "tests", "server", "staging", "cache", "cached", "queue",
    "worker", "workers", "token", "tokens", "branch", "tag", "lint", "format", "vault",
    "secret", "backup", "backups", "migration", "schema", "index", "search", "ranking",
    "hook", "hooks", "session", "prompt", "config", "settings", "timeout", "retry", "port",
    "goes", "go", "through", "uses", "use", "reach", "run", "runs", "ran", "check", "checks",
]  # fmt: skip
_TOOLS = [
    "pnpm", "npm", "yarn", "node", "python", "pytest", "ruff", "mypy", "docker", "nginx",
    "redis", "postgres", "sqlite", "rsync", "make", "git", "vite", "jest", "uv", "cargo",
]  # fmt: skip
_HAN_TEXT = (
    "部署备份版本配置文件仓库根目录测试失败日志启动脚本发布分支合并检查缓存服务器端口超时重试"
)
_VALUES = [
    "80", "81", "8080", "5432", "5433", "3000", "30", "45", "1.2.3", "1.2.4", "18.4", "v2",
    "3.11", "0.5", "2026", "/usr/local/bin/node", "src/app/main.py", "~/.config/pi/memory.json",
    "C:\\Users\\dev\\repo", "./scripts/deploy.sh", "30s", "15min", "512MB", "10%",
]  # fmt: skip
_SUBJECT_TEMPLATES = [
    "The {s} listens on port {n}.",
    "Pin {t} to version {n} for the {s}.",
    "The {s} timeout is {n} seconds",
    "Run {t} from {n} before each {s} release.",
    "Keep at most {n} connections open to the {s}!",
    "{s} 的 端口 是 {n}",
    "使用 {t} {n} 构建 {s}",
]
_KEYWORD_SPELLINGS = ["{k}", "{K}", "{k}-notes", "{k} notes", "{k}_notes"]


def _zipf_choice(rng: random.Random, items: list[str]) -> str:
    """A draw weighted ``1 / rank``: a few common items, a long tail."""
    return items[min(len(items) - 1, int(len(items) ** rng.random()) - 1)]


def _prose_body(rng: random.Random, vocabulary: list[str]) -> str:
    words = [_zipf_choice(rng, vocabulary) for _ in range(rng.randint(3, 18))]
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words) + 1), rng.choice(_TOOLS))
    return " ".join(words).capitalize() + rng.choice([".", "", "!", "..."])


def _han_body(rng: random.Random) -> str:
    han = "".join(rng.choice(_HAN_TEXT) for _ in range(rng.randint(2, 14)))
    roll = rng.random()
    if roll < 0.3:
        return f"{han} {rng.choice(_TOOLS)}"
    if roll < 0.5:
        return f"{han}{rng.choice(_VALUES)}"
    return han


def _reworded(rng: random.Random, body: str, vocabulary: list[str]) -> str:
    """``body`` changed a little: a word dropped, added, inflected or swapped, a number
    renumbered, case and punctuation changed, or a Han character dropped."""
    choice = rng.randint(0, 7)
    words = body.split()
    if choice == 0 or not words:
        return body.upper() if rng.random() < 0.5 else "  " + body.lower() + " ."
    if choice == 1 and any(c.isdigit() for c in body):
        return re.sub(r"\d+", lambda _: str(rng.randint(1, 9999)), body, count=1)
    if choice == 2 and len(words) > 2:
        del words[rng.randrange(len(words))]
    elif choice == 3:
        words.insert(rng.randrange(len(words) + 1), rng.choice(["always", "also", "now", "each"]))
    elif choice == 4:
        for _ in range(rng.randint(1, 3)):
            words[rng.randrange(len(words))] = _zipf_choice(rng, vocabulary)
    elif choice == 5 and len(body) > 3 and not body.isascii():
        cut = rng.randrange(len(body))
        return body[:cut] + body[cut + 1 :]
    elif choice == 6:
        swaps = {"deploys": "deploy", "every": "each", "starts": "started", "goes": "go"}
        words = [swaps.get(word, word) for word in words]
    else:
        words[rng.randrange(len(words))] = rng.choice(_VALUES)
    return " ".join(words)


def _time_of(rng: random.Random, i: int, n: int) -> str:
    day = 1 + (i * 300 // max(1, n))
    month, mday = 1 + (day - 1) // 28 % 12, 1 + (day - 1) % 28
    roll = rng.random()
    if roll < 0.03:
        return f"2026-{month:02d}-{mday:02d}T{rng.randint(0, 23):02d}:15:00"
    if roll < 0.04:
        return "2099-01-01 00:00:00"  # a date to come: counts as now
    if roll < 0.05:
        return "yesterday"  # unreadable: sorts oldest
    return f"2026-{month:02d}-{mday:02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00"


def realistic_store(n: int, seed: int) -> list[Entry]:
    """``n`` memories over both layers as people write them: English prose over a Zipf
    vocabulary with inflections and function words, Chinese text, numbers, versions and
    paths in templates, about a quarter rewordings, renumberings or word swaps of an
    earlier memory, keywords spelled several ways, some superseded rows, odd times."""
    rng = random.Random(seed)
    vocabulary = list(_PROSE)
    syllables = ["ka", "lo", "mi", "ren", "tas", "vo", "zu", "pel", "dri", "qua", "sen"]
    while len(vocabulary) < 80 + n // 10:
        vocabulary.append("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    topics = [rng.choice(vocabulary[20:]) for _ in range(max(8, n // 12))]
    entries: list[Entry] = []
    for i in range(n):
        roll = rng.random()
        if entries and roll < 0.25:
            source = rng.choice(entries[-2000:])
            body, keyword, layer = (
                _reworded(rng, source.body, vocabulary),
                source.keyword,
                source.layer,
            )
            if rng.random() < 0.2:
                keyword = keyword.upper().replace("-", " ")
        else:
            if roll < 0.45:
                subject = " ".join(_zipf_choice(rng, vocabulary[20:]) for _ in range(2))
                body = rng.choice(_SUBJECT_TEMPLATES).format(
                    s=subject, t=rng.choice(_TOOLS), n=rng.choice(_VALUES)
                )
            elif roll < 0.6:
                body = _han_body(rng)
            else:
                body = _prose_body(rng, vocabulary)
            topic = _zipf_choice(rng, topics)
            keyword = rng.choice(_KEYWORD_SPELLINGS).format(k=topic, K=topic.capitalize())
            if rng.random() < 0.05:
                keyword = rng.choice(["部署", "端口", "缓存"])
            layer = "project" if rng.random() < 0.6 else "user"
        entries.append(
            Entry(
                id=f"2026{1 + i * 11 // max(1, n):02d}{1 + i % 28:02d}-{i:04x}",
                time=_time_of(rng, i, n),
                project="shop",
                src="auto",
                keyword=keyword,
                body=body,
                layer=layer,
                file="DECISIONS.md" if layer == "project" else "TOOLING.md",
                superseded_by="20260101-dead" if rng.random() < 0.03 else "",
            )
        )
    return entries
