"""Hook latency in a repository of several worktrees: ``worktrees`` shared against separate.

    python tools/bench_worktrees.py                  # 3 worktrees of 1,000 memories each
    python tools/bench_worktrees.py --worktrees 5 --memories 2000 --runs 9

A real repository (``git init``, ``git worktree add``) whose every worktree's
project layer holds ``--memories`` memories this user wrote (their ids in the
trust records, as ``write`` leaves them), and a user layer of a quarter of
that. The session-start and prompt hooks run in the main checkout as a host
runs them, each in its own round: with the fast path's note (the common case:
nothing changed since the last hook) and without it (the note removed before
each run: the full work, reading every layer). Medians, with their ratio to
``python -c pass``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pi_memory.entry import CATEGORY_FILES, PROJECT, USER  # noqa: E402
from pi_memory.layouts.categories.format import format_entry  # noqa: E402
from pi_memory.provenance import remember_own  # noqa: E402
from tools.bench import FLOOR, PROMPT, hook_event, time_commands  # noqa: E402
from tools.bench_detect import make_store  # noqa: E402

LAYER = Path(".pi/agent/memory-auto")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def fill(directory: Path, layer: str, n: int, seed: int, home: Path) -> None:
    """``n`` memories in ``directory``'s category files, recorded as this user's."""
    entries = make_store(n, seed=seed)
    files = CATEGORY_FILES[layer]
    chunks: dict[str, list[str]] = {}
    for i, entry in enumerate(entries):
        chunks.setdefault(files[i % len(files)], []).append(format_entry(entry))
    directory.mkdir(parents=True, exist_ok=True)
    for name, rows in chunks.items():
        (directory / name).write_text("\n".join(rows), "utf-8")
    if layer == PROJECT:
        remember_own(home, directory, [e.id for e in entries])


def build(tmp: Path, worktrees: int, n: int) -> tuple[Path, Path]:
    home, main = tmp / "home", tmp / "main"
    main.mkdir(parents=True)
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    os.environ.update({**env, "GIT_COMMITTER_EMAIL": "b@b"})
    git(main, "init", "-q", "-b", "main")
    (main / "README").write_text("bench\n", "utf-8")
    git(main, "add", "README")
    git(main, "commit", "-q", "-m", "start")
    fill(home / LAYER, USER, n // 4, 1, home)
    fill(main / LAYER, PROJECT, n, 2, home)
    for k in range(1, worktrees):
        other = tmp / f"wt{k}"
        git(main, "worktree", "add", "-q", "-b", f"b{k}", str(other))
        fill(other / LAYER, PROJECT, n, 2 + k, home)
    return home, main


def bench(worktrees: int, n: int, runs: int, mode: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        home, main = build(tmp, worktrees, n)
        config = {"trustedProjects": [str(main)], "worktrees": mode}
        (home / ".pi/agent/memory.json").write_text(json.dumps(config), "utf-8")
        cache = tmp / "cache"
        env = dict(os.environ, HOME=str(home), PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(cache))
        env.pop("PI_MEMORY_AUTO_DIR", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        hook = [sys.executable, "-m", "pi_memory", "hook"]
        start = hook_event(main, "SessionStart", source="startup")
        prompt = hook_event(main, "UserPromptSubmit", prompt=PROMPT)
        subprocess.run(
            [*hook, "session-start"],
            cwd=main,
            env=env,
            input=start,
            text=True,
            check=True,
            capture_output=True,
        )
        floor = {FLOOR: ([sys.executable, "-c", "pass"], "")}
        fast = time_commands(
            {
                **floor,
                "session-start (fast path)": ([*hook, "session-start"], start),
                "user-prompt-submit (fast path)": ([*hook, "user-prompt-submit"], prompt),
            },
            main,
            env,
            runs,
        )
        # Without the note: a shell that removes it, then the hook.
        clear = f"rm -rf '{cache}/pi_memory/hooks' && exec \"$@\""
        full = time_commands(
            {
                **floor,
                "session-start (full)": (["sh", "-c", clear, "sh", *hook, "session-start"], start),
                "user-prompt-submit (full)": (
                    ["sh", "-c", clear, "sh", *hook, "user-prompt-submit"],
                    prompt,
                ),
            },
            main,
            env,
            runs,
        )
        scale = fast[FLOOR] / full.pop(FLOOR)
        return {**fast, **{k: v * scale for k, v in full.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worktrees", type=int, default=3)
    parser.add_argument("--memories", type=int, default=1000, help="per worktree")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    print(
        f"{args.worktrees} worktrees × {args.memories:,} project memories · median of {args.runs}"
    )
    for mode in ("separate", "shared"):
        times = bench(args.worktrees, args.memories, args.runs, mode)
        for name, seconds in times.items():
            ratio = seconds / times[FLOOR]
            print(f"{mode:>9} {name:<32} {seconds * 1000:>7.1f}ms {ratio:>7.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
