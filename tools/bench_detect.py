"""Time duplicate and conflict detection on generated stores.

    python tools/bench_detect.py            # 10,000 and 100,000 memories
    python tools/bench_detect.py 2000 20000

The brute-force references (the all-pairs definitions) run once, on the
smallest store only: at 100,000 memories they would take hours.

The detectors share per-entry features, computed once per store: duplicates
run first and pay for them, conflicts then reuse them, as ``show`` runs the
two. "alone" is conflicts on a fresh copy of the store, paying for them itself.
"kept" is both detectors as ``show`` runs them on an unchanged store: in a new
process, each body's facts read from the per-file cache a previous run left
(the store is written as category files for it), the reading included.

The pairs found at the sizes in :data:`PINNED` are compared with a digest of
the pairs the detectors found before their joins were last reworked: a faster
join must find the very same pairs, scores and values ("pinned" in the report).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import random
import re
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_memory.detect.conflicts import find_conflicts, find_conflicts_bruteforce
from pi_memory.detect.duplicates import find_duplicates, find_duplicates_bruteforce
from pi_memory.detect.feature_cache import known_facts
from pi_memory.entry import Entry
from pi_memory.layouts.categories.format import format_entry

FUNCTION_WORDS = ["the", "a", "to", "for", "on", "with", "is", "and", "in", "of", "not", "before"]
TOOLS = [
    "pnpm", "npm", "yarn", "bun", "node", "python", "pytest", "ruff", "mypy", "docker",
    "nginx", "redis", "postgres", "sqlite", "rsync", "make", "git", "vite", "webpack", "jest",
    "eslint", "prettier", "uv", "pip", "cargo", "go", "terraform", "helm", "kubectl", "bazel",
]  # fmt: skip
NUMBER_TEMPLATES = [
    "The {s} listens on port {n}.",
    "The {s} timeout is {n} seconds.",
    "Pin {t} to version {n} for the {s}.",
    "The {s} retries {n} times before giving up.",
    "Keep at most {n} connections open to the {s}.",
]
HAN_CHARS = (
    "部署备份版本配置文件仓库根目录测试失败日志启动脚本发布分支合并检查缓存服务器端口超时重试"
    "数据库迁移索引搜索队列任务调度权限认证密钥证书网关代理前端后端构建打包依赖安装升级回滚"
)
SYLLABLES = ["ka", "lo", "mi", "ren", "tas", "vo", "zu", "pel", "dri", "qua", "sen", "tor", "bix"]


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set(TOOLS)
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    ordered = sorted(words)
    rng.shuffle(ordered)
    return ordered


class _Zipf:
    """Draws from ``items`` with weight ``1 / rank``: a few common, a long tail."""

    def __init__(self, rng: random.Random, items: list[str]) -> None:
        self._rng = rng
        self._items = items
        self._cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(items))))

    def draw(self, k: int = 1) -> list[str]:
        return self._rng.choices(self._items, cum_weights=self._cumulative, k=k)


def _id(rng: random.Random, day: int, taken: set[str]) -> str:
    while True:
        candidate = f"2026{1 + day // 28:02d}{1 + day % 28:02d}-{rng.getrandbits(16):04x}"
        if candidate not in taken:
            taken.add(candidate)
            return candidate


def _prose(rng: random.Random, words: _Zipf) -> str:
    out: list[str] = []
    for word in words.draw(rng.randint(5, 16)):
        out.append(word)
    return " ".join(out).capitalize() + "."


def _sentence(rng: random.Random, words: _Zipf, topics: _Zipf) -> tuple[str, str]:
    """A body and its keyword."""
    roll = rng.random()
    if roll < 0.12:
        subject = " ".join(words.draw(2))
        number = rng.choice([rng.randint(1, 120), rng.randint(1000, 9999), "1.2.3", "18.4"])
        body = rng.choice(NUMBER_TEMPLATES).format(s=subject, t=rng.choice(TOOLS), n=number)
        return body, subject.replace(" ", "-")
    if roll < 0.2:
        han = "".join(rng.choice(HAN_CHARS) for _ in range(rng.randint(6, 16)))
        return f"{han} {rng.choice(TOOLS)}", topics.draw()[0]
    return _prose(rng, words), topics.draw()[0]


def _reword(rng: random.Random, body: str) -> str:
    """A true near-duplicate: the same fact in slightly different words."""
    words = body.rstrip(".").split()
    if rng.random() < 0.5 and len(words) > 3:
        del words[rng.randrange(1, len(words))]
    else:
        words.insert(rng.randrange(1, len(words) + 1), rng.choice(["always", "now", "also"]))
    return " ".join(words) + "."


def _renumber(rng: random.Random, body: str) -> str:
    """A changed requirement: the same sentence with another number."""
    return re.sub(r"\d+", lambda _: str(rng.randint(1, 9999)), body, count=1)


def make_store(n: int, seed: int = 0) -> list[Entry]:
    """``n`` memories over two layers: prose from a Zipf vocabulary, numbered
    templates, some Chinese, about 4% rewordings, 1% changed numbers, 2% superseded."""
    rng = random.Random(seed)
    # Real text: the most frequent words are function words, content words
    # follow a long tail.
    words = _Zipf(rng, FUNCTION_WORDS + _vocabulary(rng, 4000 + n // 5))
    topics = _Zipf(rng, words.draw(max(50, n // 4)))
    taken: set[str] = set()
    entries: list[Entry] = []
    for i in range(n):
        day = i * 300 // max(1, n)
        roll = rng.random()
        if entries and roll < 0.05:
            source = rng.choice(entries)
            edit = _reword if roll < 0.04 or not re.search(r"\d", source.body) else _renumber
            body, keyword, layer = edit(rng, source.body), source.keyword, source.layer
        else:
            body, keyword = _sentence(rng, words, topics)
            layer = "project" if rng.random() < 0.7 else "user"
        entries.append(
            Entry(
                id=_id(rng, day, taken),
                time=f"2026-{1 + day // 28:02d}-{1 + day % 28:02d} {rng.randint(0, 23):02d}:00:00",
                project="bench",
                src="auto",
                keyword=keyword,
                body=body,
                layer=layer,
                file="DECISIONS.md" if layer == "project" else "TOOLING.md",
                superseded_by="20260101-dead" if rng.random() < 0.02 else "",
            )
        )
    return entries


NARROW_SUBJECTS = [
    "api",
    "worker",
    "scheduler",
    "gateway",
    "frontend",
    "backend",
    "cache",
    "queue",
    "database",
    "proxy",
    "indexer",
    "crawler",
    "mailer",
    "billing",
    "auth",
    "search",
    "storage",
    "metrics",
    "logger",
    "uploader",
]
NARROW_VERBS = [
    "restarts",
    "flushes",
    "rotates",
    "checks",
    "rebuilds",
    "reloads",
    "drains",
    "warms",
    "validates",
    "compacts",
    "syncs",
    "pauses",
    "resumes",
    "retries",
    "signs",
    "encrypts",
    "compresses",
    "trims",
    "exports",
    "imports",
]
NARROW_OBJECTS = [
    "sessions",
    "tokens",
    "logs",
    "certificates",
    "indexes",
    "snapshots",
    "buffers",
    "connections",
    "jobs",
    "tables",
    "caches",
    "keys",
    "configs",
    "schemas",
    "queues",
    "events",
    "reports",
    "backups",
    "artifacts",
    "images",
    "bundles",
    "manifests",
    "secrets",
    "users",
    "roles",
    "quotas",
    "limits",
    "alerts",
    "dashboards",
    "webhooks",
    "invoices",
    "receipts",
    "payloads",
    "headers",
    "cookies",
    "routes",
    "shards",
    "replicas",
    "partitions",
    "segments",
    "chunks",
    "blobs",
    "files",
    "folders",
    "mounts",
    "volumes",
    "disks",
    "nodes",
    "pods",
    "containers",
    "services",
    "clusters",
    "regions",
    "zones",
    "tenants",
    "projects",
    "teams",
    "builds",
    "releases",
    "branches",
    "commits",
    "tags",
    "hooks",
    "pipelines",
    "runners",
    "agents",
    "workers",
    "threads",
    "locks",
    "leases",
    "tickets",
    "batches",
    "streams",
    "topics",
    "channels",
    "feeds",
    "digests",
    "summaries",
    "exports",
    "imports",
    "migrations",
    "fixtures",
    "mocks",
    "stubs",
    "samples",
    "traces",
    "spans",
    "profiles",
    "heaps",
    "dumps",
    "crashes",
]
NARROW_WHEN = [
    "nightly",
    "hourly",
    "weekly",
    "daily",
    "monthly",
    "always",
    "often",
    "rarely",
    "usually",
    "early",
    "late",
]
NARROW_HOW = [
    "safely",
    "carefully",
    "silently",
    "automatically",
    "locally",
    "remotely",
    "fully",
    "partially",
    "incrementally",
    "atomically",
    "quickly",
    "slowly",
    "manually",
    "twice",
    "once",
]
NARROW_LINKS = ["before", "after", "with", "for", "during"]


def make_narrow_store(n: int, seed: int = 0) -> list[Entry]:
    """``n`` notes from one template over a vocabulary of about 170 words, as a team that
    writes its notes from templates has: every body shares most of its words with many
    others, and even its rarest words are common. 40 keywords, one layer."""
    rng = random.Random(seed)
    topics = [f"{s}-{o}" for s in NARROW_SUBJECTS[:8] for o in NARROW_OBJECTS[:5]]
    taken: set[str] = set()
    entries = []
    for i in range(n):
        day = i * 300 // max(1, n)
        body = (
            f"The {rng.choice(NARROW_SUBJECTS)} {rng.choice(NARROW_VERBS)} the "
            f"{rng.choice(NARROW_OBJECTS)} {rng.choice(NARROW_WHEN)} {rng.choice(NARROW_LINKS)} "
            f"the {rng.choice(NARROW_SUBJECTS)} {rng.choice(NARROW_VERBS)} "
            f"{rng.choice(NARROW_OBJECTS)} {rng.choice(NARROW_HOW)}."
        )
        entries.append(
            Entry(
                id=_id(rng, day, taken),
                time=f"2026-{1 + day // 28:02d}-{1 + day % 28:02d} {rng.randint(0, 23):02d}:00:00",
                project="bench",
                src="auto",
                keyword=rng.choice(topics),
                body=body,
                layer="project",
                file="DECISIONS.md",
            )
        )
    return entries


#: The moment the detectors judge the generated stores at (the stores are dated 2026).
NOW = datetime(2026, 12, 1, 12, 0, 0)
#: :func:`pairs_digest` of the pairs found on ``make_store(n, seed=n)``, by ``n``.
PINNED = {
    10_000: "c8af7beeb88f72d4",
    100_000: "d3d271d93187e85d",
}


def pairs_digest(duplicates: list[Any], conflicts: list[Any]) -> str:
    """A digest of both lists of pairs, every field of every pair in its order."""
    text = "\n".join(map(repr, [*duplicates, *conflicts]))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _timed(fn: Any, *args: Any) -> tuple[float, list[Any]]:
    start = time.perf_counter()
    result = fn(*args, now=NOW)
    return time.perf_counter() - start, result


#: The timed part of "kept", in a new process as ``show`` is: argv = the cache home and
#: a pickle of (files as (path, live entries), the store), one pickle so that the
#: entries stay the very objects the store holds, as in ``show``; prints the seconds,
#: then writes the pickled pairs over that file.
KEPT = """
import os, pickle, sys, time
from datetime import datetime
os.environ["XDG_CACHE_HOME"] = sys.argv[1]
from pi_memory.detect.conflicts import find_conflicts
from pi_memory.detect.duplicates import find_duplicates
from pi_memory.detect.feature_cache import known_facts
with open(sys.argv[2], "rb") as f:
    files, store = pickle.load(f)
start = time.perf_counter()
known = known_facts(files)
now = datetime.fromisoformat(sys.argv[3])
pairs = [find_duplicates(store, known=known, now=now), find_conflicts(store, known=known, now=now)]
print(time.perf_counter() - start)
with open(sys.argv[2], "wb") as f:
    pickle.dump(pairs, f)
"""


def _with_kept_facts(store: list[Entry]) -> tuple[float, list[Any], list[Any]]:
    """Seconds for both detectors with each body's facts read from the cache a previous
    run left (the reading included), in a new process as ``show`` meets it, and the
    pairs found."""
    import pickle
    import subprocess

    saved = os.environ.get("XDG_CACHE_HOME")
    with tempfile.TemporaryDirectory() as tmp:
        cache = str(Path(tmp, "cache"))
        os.environ["XDG_CACHE_HOME"] = cache
        try:
            files: list[tuple[Path, list[Entry]]] = []
            for layer in sorted({entry.layer for entry in store}):
                path = Path(tmp, layer, "NOTES.md")
                path.parent.mkdir()
                mine = [entry for entry in store if entry.layer == layer]
                path.write_text("".join(map(format_entry, mine)), "utf-8")
                an_hour_ago = time.time() - 3600  # as a store written earlier is
                os.utime(path, (an_hour_ago, an_hour_ago))
                files.append((path, [entry for entry in mine if entry.live]))
            known_facts(files)  # the previous run: works the facts out and keeps them
        finally:
            if saved is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = saved
        fresh = [entry._replace() for entry in store]  # not the memoised store
        by_id = {id(entry): copy for entry, copy in zip(store, fresh)}
        shared = Path(tmp, "store.pickle")
        files_fresh = [(path, [by_id[id(entry)] for entry in live]) for path, live in files]
        shared.write_bytes(pickle.dumps((files_fresh, fresh)))
        done = subprocess.run(
            [sys.executable, "-c", KEPT, cache, str(shared), NOW.isoformat()],
            env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent)),
            capture_output=True,
            text=True,
            check=True,
        )
        dups, conflicts = pickle.loads(shared.read_bytes())  # noqa: S301 -- written just now, by us
        return float(done.stdout.split()[0]), dups, conflicts


def bench(n_values: tuple[int, ...] = (10_000, 100_000)) -> dict[str, Any]:
    """Seconds and pair counts per store size; brute force at the smallest size only.

    The narrow-vocabulary store runs at the smallest size, after the others.
    """
    results: dict[str, Any] = {}
    stores = [(str(n), n, make_store) for n in n_values]
    if n_values:
        stores.append((f"{min(n_values)} narrow", min(n_values), make_narrow_store))
    for position, (label, n, make) in enumerate(stores):
        store = make(n, seed=n)
        row: dict[str, Any] = {}
        row["duplicates_s"], dups = _timed(find_duplicates, store)
        row["conflicts_s"], conflicts = _timed(find_conflicts, store)
        row["conflicts_alone_s"], _ = _timed(find_conflicts, [e._replace() for e in store])
        row["duplicates"], row["conflicts"] = len(dups), len(conflicts)
        if make is make_store and n in PINNED:
            row["pinned"] = pairs_digest(dups, conflicts) == PINNED[n]
        row["kept_s"], *kept_pairs = _with_kept_facts(store)
        if kept_pairs != [dups, conflicts]:
            raise SystemExit(f"{label}: the detectors found other pairs from kept facts")
        if position == 0 or label.endswith("narrow"):
            row["duplicates_brute_s"], brute_dups = _timed(find_duplicates_bruteforce, store)
            row["conflicts_brute_s"], brute_conf = _timed(find_conflicts_bruteforce, store)
            row["same_as_brute"] = (brute_dups, brute_conf) == (dups, conflicts)
        results[label] = row
    return results


def report(results: dict[str, Any]) -> list[str]:
    lines = [
        f"{'memories':>9}  {'duplicates':>16}  {'conflicts':>16}  {'both':>7}"
        f"  {'alone':>7}  {'kept':>7}  brute force"
    ]
    for n, row in results.items():
        both = row["duplicates_s"] + row["conflicts_s"]
        brute = ""
        if "duplicates_brute_s" in row:
            brute_total = row["duplicates_brute_s"] + row["conflicts_brute_s"]
            brute = (
                f"{brute_total:.1f} s ({brute_total / both:.0f}x slower, "
                f"same pairs: {row['same_as_brute']})"
            )
        if "pinned" in row:
            brute += f"{'  ' if brute else ''}same pairs as pinned: {row['pinned']}"
        size, _, kind = n.partition(" ")
        label = f"{int(size):,} {kind}".strip()
        lines.append(
            f"{label:>9}  {row['duplicates_s']:>7.3f} s {row['duplicates']:>5}p"
            f"  {row['conflicts_s']:>7.3f} s {row['conflicts']:>5}p  {both:>5.2f} s"
            f"  {row['conflicts_alone_s']:>5.2f} s  {row['kept_s']:>5.2f} s  {brute}"
        )
    return lines


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "sizes", nargs="*", type=lambda s: int(s.replace("_", "")), metavar="MEMORIES",
        help="store sizes (default: 10,000 and 100,000)",
    )  # fmt: skip
    sizes = tuple(parser.parse_args(argv).sizes) or (10_000, 100_000)
    results = bench(sizes)
    print("\n".join(report(results)))
    # Other pairs than pinned: a faster join that finds other pairs is a defect.
    return 1 if any(row.get("pinned") is False for row in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
