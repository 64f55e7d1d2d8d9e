"""Parser fuzzer: mutated golden files through show, search, the hook and a write.

    python tools/fuzz.py [--cases 2000] [--seed 1] [--json]

Each case takes one golden input — a category file from ``tests/data/categories``
or an entry file from ``tests/data/files_layout/entries`` — applies a few
random mutations (flipped and inserted bytes, invalid UTF-8, BOMs, CR and
CRLF, conflict markers, row-header and frontmatter fragments, duplicated,
swapped, dropped and truncated lines), puts it in a fresh store of its
layout, and runs, in this process: ``show``, ``search`` for a word of the
file, ``hook session-start`` with the event a host sends, and a ``write`` of a
new fact to the same layer. It checks:

- ``tracebacks``: no command ends in an internal error (exit 3, a
  traceback, ``internal error``), the hook exits 0 with nothing on stderr,
  and nothing new lands in the error log;
- ``lost bytes``: after the write, a mutated category file still starts with
  every byte it had (rows a git union merge would leave doubled are folded
  first, as the layout documents), and a mutated entry file is unchanged.

Exits 1 when either count is not zero; the first failures are printed with
the seed that reproduces them.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fault_common import REPO, dumps, make_home, private_env, run

DATA = REPO / "tests" / "data"
FRAGMENTS = (
    b"\r", b"\n", b"\r\n", b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\x00", b"\x1b[2J", b"|",
    b"<!--", b"-->", b"<!-- mid: 20260101-abcd | t: 2026-01-01 00:00:00 | tags: x -->\n",
    b"mid: ", b"| seen: ", b"| superseded-by: 20260101-abcd", b"<<<<<<< HEAD\n",
    b"=======\n", b">>>>>>> theirs\n", b"---\n", b"name: ", b"type: user\n", b"\xe2\x80\xae",
    b"   ", b"\t", b"#", b"`", b"\xf0\x9f\x98\x80", b"\xe9\x83\xa8\xe7\xbd\xb2",
)  # fmt: skip


def goldens() -> list[tuple[str, Path]]:
    categories = [
        ("categories", p)
        for p in sorted((DATA / "categories").glob("*.md"))
        if p.name.count(".") == 1
    ]
    files = [("files", p) for p in sorted((DATA / "files_layout" / "entries").glob("*.md"))]
    return categories + files


def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
        at = rng.randint(0, len(out))
        if kind == 0 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif kind == 1:
            out[at:at] = rng.choice(FRAGMENTS)
        elif kind == 2 and out:
            out[at : at + rng.randint(1, 40)] = b""
        elif kind == 3:
            del out[rng.randint(0, len(out)) :]
        else:
            lines = bytes(out).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if kind == 4:
                lines.insert(j, lines[i])
            elif kind == 5:
                lines[i], lines[j] = lines[j], lines[i]
            else:
                del lines[i]
            out = bytearray(b"\n".join(lines))
    return bytes(out)


def a_word(data: bytes, rng: random.Random) -> str:
    words = [w for w in data.decode("utf-8", "replace").split() if w.isalpha() and len(w) > 3]
    return rng.choice(words) if words else "deploy"


def one_case(n: int, seed: int, root: Path) -> list[str]:
    rng = random.Random(seed * 1_000_003 + n)
    layout, golden = rng.choice(goldens())
    mutated = mutate(golden.read_bytes(), rng)
    case = root / f"case-{n}"
    home = make_home(case, "home", layout)
    project = case / "project"
    project.mkdir()
    private_env(home)
    if layout == "categories":
        directory = home / ".pi" / "agent" / "memory-auto"
        target = directory / "USER.md"
        write_args = ["write", "--layer", "user", "--file", "USER.md", "--keyword", "fuzz"]
    else:
        directory = home / ".pi" / "memory" / "user"
        target = directory / golden.name
        write_args = ["write", "--layer", "user", "--keyword", "fuzz"]
    directory.mkdir(parents=True)
    target.write_bytes(mutated)
    log = home / ".pi" / "agent" / "memory-auto" / "pi_memory.log"
    problems: list[str] = []
    where = f"case {n} (seed {seed}, {layout} {golden.name})"
    event = json.dumps({"hook_event_name": "SessionStart", "cwd": str(project), "session_id": "f"})
    for args, stdin in (
        (["show"], ""),
        (["search", a_word(mutated, rng)], ""),
        (["hook", "session-start"], event),
        ([*write_args, f"Fuzz case {n} adds this fact."], ""),
    ):
        result = run(args, project, stdin)
        text = result.out + result.err
        if result.code == 3 or "Traceback" in text or "internal error" in text:
            problems.append(f"traceback: {where}: {' '.join(args[:2])}: {result.err.strip()[:200]}")
        if args[0] == "hook" and (result.code != 0 or result.err):
            problems.append(f"traceback: {where}: hook exit {result.code}: {result.err[:200]}")
    if log.exists() and "Traceback" in log.read_text("utf-8", "replace"):
        problems.append(f"traceback: {where}: logged: {log.read_text('utf-8', 'replace')[-300:]}")
    after = target.read_bytes() if target.exists() else b""
    if layout == "categories":
        from pi_memory.layouts.categories.format import decode, encode, fold_text

        kept = encode(fold_text(decode(mutated), "user", "USER.md"))
        if not after.startswith(kept):
            problems.append(f"lost bytes: {where}")
    elif after != mutated:
        problems.append(f"lost bytes: {where}")
    shutil.rmtree(case, ignore_errors=True)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pi-memory-fuzz-") as tmp:
        for n in range(args.cases):
            problems += one_case(n, args.seed, Path(tmp))
    report: dict[str, Any] = {
        "cases": args.cases,
        "seed": args.seed,
        "tracebacks": sum(p.startswith("traceback") for p in problems),
        "lost bytes": sum(p.startswith("lost bytes") for p in problems),
        "problems": problems[:20],
    }
    if args.json:
        print(dumps(report))
    else:
        print(
            f"{report['cases']} mutated files (seed {args.seed}): "
            f"{report['tracebacks']} tracebacks, {report['lost bytes']} lost bytes"
        )
        for problem in report["problems"]:
            print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
