"""Kill sweep: SIGKILL a writer at random points of write, rebuild and import, then check.

    python tools/kill_sweep.py [--kills 400] [--max-delay-ms 800] [--seed 1] [--json]
                               [--memories N] [--operations write ...] [--layouts ...]

A store has both layouts side by side: a categories project layer (written by
``write`` and rewritten by ``rebuild``) and a files project layer (written by
``write`` and filled by ``import --from categories --to files``). Each round
starts one child process that loops over one operation — write then write,
write then rebuild, or write then import, on either layout — printing an
acknowledgement after every write that exited 0, and kills it with SIGKILL
after a random delay counted from when its interpreter is up (so the kill
lands in the work, not in start-up). Then:

- every file of the layer the round wrote still parses (``torn``);
- every acknowledged fact is still stored (``lost``, checked at the end);
- a ``.lock`` the kill left behind is reported by ``show`` as abandoned
  (``unreported`` otherwise), then cleared with ``unlock --yes``, as a person
  would; ``locks`` counts them;
- temp files the kill left behind are counted (``temp files``).

``--memories N`` starts the project layer of each layout in play with N
memories, built once (the time a write holds the lock once grew with the layer:
``--memories 20000 --operations write --layouts categories --max-delay-ms 4000``
is the figure for how often a kill leaves a lock that needs a person). Each
round then parses only the files that changed since the last check, and the
acknowledged facts are looked for once, at the end. ``--operations`` and
``--layouts`` pick from what the rounds draw.

POSIX only (SIGKILL). Exits 1 when anything is torn, lost or unreported.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fault_common import (
    REPO,
    dumps,
    layer_dirs,
    make_home,
    preload,
    private_env,
    project_layer,
    run,
    unreadable_files,
)

OPERATIONS = ("write", "rebuild", "import")

CHILD = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from fault_common import private_env, run
home, project, layout, op, tag = sys.argv[2:7]
private_env(Path(home))
import pi_memory.cli  # noqa: F401 -- loaded before READY, so the kill lands in the work
print("READY", flush=True)
i = 0
while True:
    i += 1
    body = f"Kill sweep fact {tag}-{i} stays."
    if run(["write", "--keyword", "sweep", body], Path(project)).code == 0:
        print("ACK", body, flush=True)
    if op == "rebuild":
        run(["rebuild", "project"], Path(project))
    elif op == "import":
        run(["import", "--from", "categories", "--to", "files", "project"], Path(project))
"""


LAYOUTS = ("categories", "files")


def one_round(
    n: int,
    rng: random.Random,
    homes: dict[str, Path],
    project: Path,
    max_delay_ms: int,
    *,
    choice: tuple[tuple[str, ...], tuple[str, ...]] = (OPERATIONS, LAYOUTS),
) -> tuple[str, str, list[str]]:
    operations, layouts = choice
    layout = rng.choice(layouts)
    op = rng.choice(operations)
    if op == "import":
        layout = "files"  # import writes the files layer from the categories one
    if op == "rebuild":
        layout = rng.choice(layouts)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(Path(__file__).parent), str(homes[layout]),
         str(project), layout, op, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )  # fmt: skip
    if child.stdout is not None:
        child.stdout.readline()  # READY: the interpreter is up, the operations start now
    time.sleep(rng.uniform(0, max_delay_ms / 1000))
    child.send_signal(signal.SIGKILL)
    out, _ = child.communicate(timeout=30)
    acked = [line[4:] for line in out.splitlines() if line.startswith("ACK ")]
    return layout, op, acked


def check(
    homes: dict[str, Path],
    project: Path,
    report: dict[str, Any],
    seen: dict[Path, tuple[int, int, int]],
) -> None:
    """Every file changed since the last check still parses; a lock left behind is
    reported by ``show``, then cleared as a person would. (``seen``: the identity of
    each file already checked, so that a round at 20,000 memories parses only what
    the round changed.)"""
    for layout, home in homes.items():
        private_env(home)
        for label, directory in layer_dirs(home, project).items():
            if not label.startswith(layout):
                continue
            bad = unreadable_files(directory, seen)
            report["torn"] += len(bad)
            report["problems"] += [f"torn: {label}/{name}" for name in bad]
            report["temp files"] = report.get("temp files", 0) + len(list(directory.glob(".*.tmp")))
        lock = project_layer(home, project) / ".lock"
        if lock.exists():
            report["locks"] += 1
            shown = json.loads(run(["show", "--json"], project).out)
            if not shown["layers"]["project"].get("lock_abandoned"):
                report["unreported"] += 1
                report["problems"].append(f"unreported lock: {layout} {lock.read_text('utf-8')}")
            run(["unlock", "--yes", "project"], project)


def check_stored(
    homes: dict[str, Path], project: Path, acked: dict[str, set[str]], report: dict[str, Any]
) -> None:
    """Every acknowledged fact is stored (the layers read whole, once, at the end)."""
    from pi_memory.open_store import open_store

    for layout, home in homes.items():
        if not acked[layout]:
            continue
        private_env(home)
        stored = {entry.body for entry in open_store(project).store.layer("project").read()}
        missing = acked[layout] - stored
        report["lost"] += len(missing)
        report["problems"] += [f"lost: {layout} {body}" for body in sorted(missing)]


def sweep(
    kills: int,
    max_delay_ms: int,
    seed: int,
    root: Path,
    *,
    memories: int = 0,
    choice: tuple[tuple[str, ...], tuple[str, ...]] = (OPERATIONS, LAYOUTS),
) -> dict[str, Any]:
    homes = {layout: make_home(root, f"home-{layout}", layout) for layout in LAYOUTS}
    project = root / "project"
    project.mkdir()
    if memories:
        for layout in choice[1]:
            preload(homes[layout], project, layout, memories)
    rng = random.Random(seed)
    acked: dict[str, set[str]] = {"categories": set(), "files": set()}
    report: dict[str, Any] = {
        "kills": 0, "by operation": {}, "acknowledged": 0, "lost": 0, "torn": 0,
        "locks": 0, "unreported": 0, "temp files": 0, "problems": [],
    }  # fmt: skip
    seen: dict[Path, tuple[int, int, int]] = {}
    check({layout: homes[layout] for layout in choice[1]}, project, report, seen)
    started = time.monotonic()
    for n in range(kills):
        layout, op, new = one_round(n, rng, homes, project, max_delay_ms, choice=choice)
        key = f"{op} ({layout})"
        report["by operation"][key] = report["by operation"].get(key, 0) + 1
        report["kills"] += 1
        report["acknowledged"] += len(new)
        acked[layout].update(new)
        report["temp files"] = 0  # counted afresh each round: what is left now
        check({layout: homes[layout]}, project, report, seen)
    check_stored(homes, project, acked, report)
    report["seconds"] = round(time.monotonic() - started, 1)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=400)
    parser.add_argument("--max-delay-ms", type=int, default=800)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--memories", type=int, default=0, help="memories the categories project layer starts with"
    )
    parser.add_argument("--operations", nargs="+", choices=OPERATIONS, default=list(OPERATIONS))
    parser.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS))
    args = parser.parse_args(argv)
    if not hasattr(signal, "SIGKILL"):
        raise SystemExit("kill_sweep needs SIGKILL (POSIX)")
    with tempfile.TemporaryDirectory(prefix="pi-memory-kill-") as tmp:
        choice = (tuple(args.operations), tuple(args.layouts))
        report = sweep(
            args.kills,
            args.max_delay_ms,
            args.seed,
            Path(tmp),
            memories=args.memories,
            choice=choice,
        )
    if args.json:
        print(dumps(report))
    else:
        print(
            f"{report['kills']} kills in {report['seconds']} s: {report['acknowledged']} writes "
            f"acknowledged, lost {report['lost']}, torn {report['torn']}; "
            f"{report['locks']} leftover locks, {report['unreported']} unreported; "
            f"{report['temp files']} temp files left at the end"
        )
        for key, count in sorted(report["by operation"].items()):
            print(f"  {key}: {count}")
        for problem in report["problems"][:20]:
            print(f"  {problem}")
    return 1 if report["lost"] or report["torn"] or report["unreported"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
