"""Stress: N processes × M writes on each layout, counting lost, duplicated and torn memories.

    python tools/stress.py [--processes 8] [--writes 100] [--layouts categories files]
                           [--seed 1] [--json]

Every worker is its own process writing through the command line's code
(``write``, each a locked read-modify-write of the project layer). Each writes
its own distinct facts and, every fifth write, one fact all workers share, so
de-duplication races too. Afterwards the layer is read back:

- ``lost``: acknowledged facts (exit 0) that are not stored;
- ``duplicated``: facts stored as more than one memory;
- ``torn``: files that no longer parse, and stored bodies nobody wrote;
- ``miscounted``: the shared fact's ``seen`` differs from its acknowledged writes;
- ``refused``: writes that exited non-zero (a lock wait that timed out): not
  acknowledged, so not lost, but reported.

Exits 1 when any of lost, duplicated, torn or miscounted is not zero.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fault_common import (
    dumps,
    layer_dirs,
    make_home,
    private_env,
    run,
    unreadable_files,
)

SHARED = "Every stress worker states this same fact."
WORDS = ("deploy", "cache", "rsync", "staging", "port", "timeout", "retry", "lint", "node")


def worker(*, home: str, project: str, index: int, writes: int, seed: int, queue: Any) -> None:
    """One writer process: its facts, acknowledged or refused, go back through ``queue``."""
    private_env(Path(home))
    rng = random.Random(seed * 1000 + index)
    acked: list[str] = []
    refused: list[str] = []
    for i in range(writes):
        if i % 5 == 4:
            body = SHARED
        else:
            body = f"Stress fact {index}-{i}: {rng.choice(WORDS)} {rng.randrange(10**6)}."
        result = run(["write", "--keyword", f"worker {index}", body], Path(project))
        (acked if result.code == 0 else refused).append(body if result.code == 0 else result.err)
    queue.put((index, acked, refused))


def stress(layout: str, processes: int, writes: int, seed: int, root: Path) -> dict[str, Any]:
    home = make_home(root, f"home-{layout}", layout)
    project = root / f"project-{layout}"
    project.mkdir()
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    started = time.monotonic()
    procs = [
        context.Process(
            target=worker,
            kwargs={
                "home": str(home),
                "project": str(project),
                "index": n,
                "writes": writes,
                "seed": seed,
                "queue": queue,
            },
        )
        for n in range(processes)
    ]
    for proc in procs:
        proc.start()
    results = [queue.get(timeout=600) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    seconds = time.monotonic() - started
    acked = Counter(body for _, bodies, _ in results for body in bodies)
    refused = [err for _, _, errs in results for err in errs]

    private_env(home)
    from pi_memory.open_store import open_store

    entries = open_store(project).store.layer("project").read()
    stored = Counter(entry.body for entry in entries)
    shared_seen = sum(entry.seen for entry in entries if entry.body == SHARED)
    torn_files = [
        f"{label}/{name}"
        for label, directory in layer_dirs(home, project).items()
        for name in unreadable_files(directory)
    ]
    strangers = [body for body in stored if body not in acked and not body.startswith("Stress")]
    return {
        "layout": layout,
        "processes": processes,
        "writes": processes * writes,
        "acknowledged": sum(acked.values()),
        "refused": len(refused),
        "stored": len(entries),
        "lost": sum(1 for body in acked if body not in stored),
        "duplicated": sum(count - 1 for count in stored.values() if count > 1),
        "torn": len(torn_files) + len(strangers),
        "miscounted": int(bool(acked[SHARED]) and shared_seen != acked[SHARED]),
        "seconds": round(seconds, 2),
        "problems": torn_files + strangers[:5] + refused[:3],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--writes", type=int, default=100, help="writes per process")
    parser.add_argument("--layouts", nargs="+", default=["categories", "files"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    reports = []
    with tempfile.TemporaryDirectory(prefix="pi-memory-stress-") as tmp:
        for layout in args.layouts:
            reports.append(stress(layout, args.processes, args.writes, args.seed, Path(tmp)))
    if args.json:
        print(dumps(reports))
    else:
        for r in reports:
            print(
                f"{r['layout']}: {r['processes']} processes x {r['writes'] // r['processes']} "
                f"writes: {r['acknowledged']} acknowledged, {r['refused']} refused, "
                f"{r['stored']} memories; lost {r['lost']}, duplicated {r['duplicated']}, "
                f"torn {r['torn']}, miscounted {r['miscounted']} ({r['seconds']} s)"
            )
            for problem in r["problems"]:
                print(f"  {problem.strip()}")
    bad = sum(r[key] for r in reports for key in ("lost", "duplicated", "torn", "miscounted"))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
