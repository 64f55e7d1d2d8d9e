"""Time the viewer's pages on a large store: ``python tools/bench_viewer.py [N]``.

Builds the store of ``tools/bench.py`` (N memories, default 100,000), runs
``python -m pi_memory ui`` on it, and prints the server time of each page (its
``Server-Timing`` header) on the first request and the median of five after.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
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


def server_ms(headers: dict[str, str]) -> float:
    return float(headers["Server-Timing"].split("dur=")[1])


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "proj")
        project.mkdir(parents=True)
        build_store(home, project, n)
        os.environ.update(HOME=str(home), XDG_CACHE_HOME=str(Path(tmp, "cache")))
        with start(project) as viewer:
            for path, params in PAGES:
                first = server_ms(dict(viewer.get(path, **params).headers))
                runs = [server_ms(dict(viewer.get(path, **params).headers)) for _ in range(5)]
                shown = "&".join(f"{k}={v}" for k, v in params.items())
                then = statistics.median(runs)
                print(f"{path}?{shown:32} first {first:8.1f} ms   then {then:7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
