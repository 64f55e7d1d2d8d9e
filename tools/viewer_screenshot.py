"""Draw ``docs/images/viewer.png``: the viewer's overview of a small example store, in Chromium.

    python tools/viewer_screenshot.py [OUT.png]

Writes a few memories (with a conflict and a near-duplicate for the health
check) and a week of model spend into a throwaway HOME, runs ``ui`` on it and
keeps a screenshot of the overview.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.devtools import chromium, find_chromium  # noqa: E402
from tests.viewerhelp import start  # noqa: E402

MEMORIES = (
    ("project", "deploy", "Deploy with make deploy; staging listens on port 5433"),
    ("project", "database", "The staging database listens on port 5432"),
    ("project", "database", "The staging database listens on port 6543"),
    ("project", "testing", "Run the unit tests with pytest -q before every commit"),
    ("project", "testing", "Run unit tests with pytest -q before each commit please"),
    ("project", "cache", "The cache moved to redis; keys expire after 15 minutes"),
    ("user", "style", "Prefer small commits whose messages say why"),
    ("user", "editor", "Uses neovim; format Python with ruff format"),
)


def example_store(home: Path, project: Path) -> None:
    from pi_memory.model import ledger
    from pi_memory.open_store import open_store

    (home / ".pi/agent").mkdir(parents=True)
    (home / ".pi/agent/memory.json").write_text(json.dumps({"dailyTokenCap": 100_000}))
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    opened = open_store(project, warn=False)
    for layer, keyword, body in MEMORIES:
        opened.store.write(layer, body, [keyword], now=datetime.now())
    today = ledger.now_local()
    for back in range(13, -1, -1):
        for job, tokens in (
            ("review", 30_000 + 3_000 * (back % 5)),
            ("compact", 6_000 * (back % 3)),
        ):
            if tokens:
                when = ledger.stamp(today - timedelta(days=back))
                line = ledger.LedgerLine(when, job, "haiku", tokens, tokens // 10, 800)
                ledger.record(ledger.directory(opened.config), line)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs/images/viewer.png"
    executable = find_chromium()
    if executable is None:
        print("NOT RUN: no Chromium (apt-get install chromium)")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "shop")
        os.environ.update(HOME=str(home), XDG_CACHE_HOME=str(Path(tmp, "cache")))
        os.environ["XDG_STATE_HOME"] = str(Path(tmp, "state"))
        example_store(home, project)
        with start(project) as viewer, chromium(executable) as page:
            page.open(viewer.url)
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(out)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
