"""Time the viewer's pages on a large store: ``python tools/bench_viewer.py [N]``.

Builds the store of ``tools/bench.py`` (N memories, default 100,000), runs
``python -m pi_memory ui`` on it, and prints the server time of each page and
the CPU time it took there (its ``Server-Timing`` header; the CPU time is what
the page costs on a busy machine) on the first request and the median of five
after. The overview is opened first, as a person opens it, and the pages are timed
once it has worked out the health in the background.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.viewerhelp import start  # noqa: E402
from tools.bench import build_store  # noqa: E402

PAGES = (
    ("/", {}),
    ("/memories", {}),
    ("/memories", {"page": "2"}),
    ("/memories", {"q": "deploy staging"}),
    ("/memories", {"q": "redis"}),
    ("/memories", {"q": "deploy", "mode": "tag"}),
    ("/memories", {"layer": "user", "stale": "only"}),
)


def server_ms(headers: dict[str, str]) -> tuple[float, float]:
    """The page's time in the server and its CPU time there (``Server-Timing``), in ms."""
    wall, cpu = (float(part.split("dur=")[1]) for part in headers["Server-Timing"].split(","))
    return wall, cpu


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "proj")
        project.mkdir(parents=True)
        build_store(home, project, n)
        os.environ.update(HOME=str(home), XDG_CACHE_HOME=str(Path(tmp, "cache")))
        with start(project) as started:
            viewer = started._replace(timeout=1800)
            began = time.monotonic()
            viewer.overview()  # as a person opens it; then the health is worked out
            print(
                "the overview's health, worked out in the background: "
                f"{time.monotonic() - began:.1f} s"
            )
            print(f"{'page':42} {'first (cpu)':>20} {'then, median of 5 (cpu)':>26}")
            for path, params in PAGES:
                first = server_ms(dict(viewer.get(path, **params).headers))
                runs = [server_ms(dict(viewer.get(path, **params).headers)) for _ in range(5)]
                shown = "&".join(f"{k}={v}" for k, v in params.items())
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                print(
                    f"{path + '?' + shown:42} {first[0]:9.1f} ({first[1]:7.1f}) ms"
                    f" {wall:14.1f} ({cpu:7.1f}) ms"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
