"""Lock hold: how long a write holds the store's cross-process lock, at a layer's size.

    python tools/lock_hold.py [--memories 20000] [--writes 12] [--layouts categories files]
                              [--json]

For each layout, a project layer of ``--memories`` memories (built as the kill
sweep builds it), then ``--writes`` writes made in this process one after the
other, as the kill sweep's child makes them. Each write is timed whole, and so
is every stretch in which its lock file existed (from just before the file is
created to just after it is removed; a write takes the lock more than once).
The first write is left out of the figures: it is the one that reads the
layer cold.

``held`` is the share of a write's time the lock file exists: about the share
of kills that land while it does, which leave a lock that needs a person
(``expected in 200 kills``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fault_common import dumps, make_home, preload, private_env, run

LAYOUTS = ("categories", "files")


class Stopwatch:
    """The stretches in which this process held a lock file (the lock module's two edges)."""

    def __init__(self) -> None:
        self.stretches: list[float] = []
        self._since: float | None = None

    def install(self) -> None:
        from pi_memory.fs import lock

        create, release = lock.create_lock_file, lock.release_lock_file

        def timed_create(*args: Any, **kwargs: Any) -> bool:
            started = time.perf_counter()
            made = create(*args, **kwargs)
            if made:
                self._since = started
            return made

        def timed_release(*args: Any, **kwargs: Any) -> None:
            release(*args, **kwargs)
            if self._since is not None:
                self.stretches.append(time.perf_counter() - self._since)
                self._since = None

        lock.create_lock_file = timed_create
        lock.release_lock_file = timed_release

    def take(self) -> list[float]:
        taken, self.stretches = self.stretches, []
        return taken


def measure(
    root: Path, layout: str, memories: int, writes: int, watch: Stopwatch
) -> dict[str, Any]:
    home = make_home(root, f"home-{layout}", layout)
    project = root / f"project-{layout}"
    project.mkdir()
    if memories:
        preload(home, project, layout, memories)
    private_env(home)
    totals: list[float] = []
    held: list[float] = []
    longest = 0.0
    for n in range(writes):
        watch.take()
        started = time.perf_counter()
        done = run(["write", "--keyword", "hold", f"Lock hold fact {n} stays."], project)
        total = time.perf_counter() - started
        if done.code != 0:
            raise SystemExit(f"write failed: {done.err.strip()}")
        stretches = watch.take()
        if n == 0:
            continue
        totals.append(total)
        held.append(sum(stretches))
        longest = max([longest, *stretches])
    share = sum(held) / sum(totals)
    return {
        "layout": layout,
        "memories": memories,
        "writes": len(totals),
        "write ms (median)": round(statistics.median(totals) * 1000, 1),
        "held ms (median)": round(statistics.median(held) * 1000, 2),
        "longest hold ms": round(longest * 1000, 2),
        "held": round(share, 4),
        "expected in 200 kills": round(200 * share, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=20000)
    parser.add_argument("--writes", type=int, default=12)
    parser.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    watch = Stopwatch()
    watch.install()
    show: Callable[[dict[str, Any]], str] = dumps if args.json else _line
    with tempfile.TemporaryDirectory(prefix="pi-memory-hold-") as tmp:
        for layout in args.layouts:
            print(show(measure(Path(tmp), layout, args.memories, max(2, args.writes), watch)))
    return 0


def _line(report: dict[str, Any]) -> str:
    return (
        f"{report['layout']} at {report['memories']} memories: a write takes "
        f"{report['write ms (median)']} ms and holds the lock {report['held ms (median)']} ms "
        f"(median of {report['writes']}; longest hold {report['longest hold ms']} ms); "
        f"held {report['held']:.1%} of the time, about {report['expected in 200 kills']} "
        "abandoned locks in 200 kills"
    )


if __name__ == "__main__":
    raise SystemExit(main())
