"""MCP signal sweep: end a real ``python -m pi_memory mcp`` with a signal right after its start.

    python tools/mcp_signals.py [--runs 400] [--min-ms 1] [--max-ms 8] [--signal INT]
                                [--seed 1] [--json]

A host ends its MCP server with SIGINT or SIGTERM (or by closing its input) when
its session ends, and a short session ends soon after the server's start. Each
run starts a server as a host does (SIGINT at its default), answers
``initialize``, then sends ``tools/list`` and, every other run, a ``tools/call``
of ``memory_write`` with a fact of its own right behind it, and sends the signal
a random 1-8 ms after ``tools/list`` went out: while the server answers the
list, reads the call, sets its signal handlers, makes its worker pool or runs
the write. Each run then counts as

- ``slow``: ended more than 1 s after the signal (on a loaded machine, a write
  in progress may take that long: the server finishes it first);
- ``hung``: still running 11 s after the signal (it is killed);
- ``bad exit``: ended with another status than 128 plus the signal's number;
- ``traceback``: wrote a traceback (or an "Exception ignored") to stderr;
- ``lost``: the write was answered as done and the fact is not stored;
- ``torn``: a file of the project layer no longer parses, or a fact is stored
  but not whole;
- ``lock left``: the project layer's ``.lock`` outlived the server.

POSIX only. Exits 1 when any count is not zero.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fault_common import dumps, make_home, private_env, stored_bodies, unreadable_files

from tests.mcpclient import default_signals

REPO = Path(__file__).resolve().parent.parent
#: A run's end, counted from its signal: a host holds its own exit for this long at most.
PROMPT_S = 1.0
#: A run not ended this much later is hung: it would hold its host until killed.
LATE_S = 10.0


def start(project: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "pi_memory", "mcp"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_signals,  # noqa: PLW1509 -- runs nothing that takes a lock
    )


def pipes(proc: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes], IO[bytes]]:
    """The server's stdin, stdout and stderr."""
    if proc.stdin is None or proc.stdout is None or proc.stderr is None:
        raise RuntimeError("the server was started without its pipes")
    return proc.stdin, proc.stdout, proc.stderr


def read_line(stdout: IO[bytes], timeout: float) -> bytes:
    """One line of the server's stdout, read unbuffered so nothing waits behind it."""
    fd = stdout.fileno()
    line = b""
    deadline = time.monotonic() + timeout
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise TimeoutError("no answer")
        chunk = os.read(fd, 1)
        if not chunk:
            break
        line += chunk
    return line


def message(ident: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    data: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if ident is not None:
        data["id"] = ident
    if params is not None:
        data["params"] = params
    return json.dumps(data).encode() + b"\n"


def one_run(
    project: Path, env: dict[str, str], delay: float, fact: str | None, signum: int
) -> dict[str, Any]:
    """Start a server, signal it ``delay`` s after ``tools/list``; what happened."""
    proc = start(project, env)
    stdin, stdout, stderr = pipes(proc)
    stdin.write(message(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}))
    stdin.flush()
    read_line(stdout, 30)
    batch = message(None, "notifications/initialized") + message(2, "tools/list")
    if fact is not None:
        arguments = {"body": fact, "keyword": "sweep"}
        batch += message(3, "tools/call", {"name": "memory_write", "arguments": arguments})
    stdin.write(batch)
    stdin.flush()
    sent = time.monotonic()
    time.sleep(max(0.0, sent + delay - time.monotonic()))
    proc.send_signal(signum)
    signalled = time.monotonic()
    hung = False
    try:
        code = proc.wait(timeout=PROMPT_S)
    except subprocess.TimeoutExpired:
        try:
            code = proc.wait(timeout=LATE_S)  # slow (a loaded machine), not hung
        except subprocess.TimeoutExpired:
            hung = True
            proc.send_signal(signal.SIGABRT)  # faulthandler prints where each thread is
            code = proc.wait()
    took = time.monotonic() - signalled
    out = stdout.read()
    err = stderr.read()
    for stream in (stdin, stdout, stderr):
        try:
            stream.close()
        except OSError:
            pass  # the server is gone: its stdin may be a broken pipe
    replies = [json.loads(line) for line in out.splitlines() if line.strip()]
    written = any(
        r.get("id") == 3 and not r.get("result", {}).get("isError", True) for r in replies
    )
    return {
        "code": code,
        "hung": hung,
        "took": took,
        "stderr": err.decode("utf-8", "replace"),
        "written": written,
    }


def sweep(
    root: Path, *, runs: int, low: float, high: float, seed: int, signum: int
) -> dict[str, Any]:
    home = make_home(root, "home", "categories")
    project = root / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    private_env(home)
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONFAULTHANDLER="1")
    layer = project / ".pi" / "agent" / "memory-auto"
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    examples: dict[str, str] = {}
    acknowledged: list[str] = []
    sent: list[str] = []
    slowest = 0.0
    for index in range(runs):
        fact = f"Sweep fact {seed}-{index}: the release {index} ships from the branch r{index}."
        fact_or_none = fact if index % 2 == 0 else None
        delay = rng.uniform(low, high) / 1000
        ran = one_run(project, env, delay, fact_or_none, signum)
        slowest = max(slowest, ran["took"])
        found: list[str] = []
        if ran["hung"]:
            found.append("hung")
        elif ran["took"] > PROMPT_S:
            found.append("slow")
        if not ran["hung"] and ran["code"] != 128 + signum:
            found.append("bad exit")
        if "Traceback" in ran["stderr"] or "Exception ignored" in ran["stderr"]:
            found.append("traceback")
        if (layer / ".lock").exists():
            found.append("lock left")
            (layer / ".lock").unlink()
        if unreadable_files(layer):
            found.append("torn")
        if fact_or_none is not None:
            sent.append(fact)
            if ran["written"]:
                acknowledged.append(fact)
        for kind in found:
            counts[kind] += 1
            examples.setdefault(
                kind,
                f"run {index}, {delay * 1000:.1f} ms, exit {ran['code']}, call "
                f"{fact_or_none is not None}, {ran['took']:.2f} s: {ran['stderr'][-3000:]}",
            )
        counts["runs"] += 1
    bodies = stored_bodies(home, project, "project")
    counts["lost"] = sum(fact not in bodies for fact in acknowledged)
    counts["torn"] += sum(
        any(body != fact and fact[:20] in body for body in bodies) for fact in sent
    )
    counts["stored"] = sum(fact in bodies for fact in sent)
    counts["acknowledged"] = len(acknowledged)
    return {"counts": dict(counts), "slowest_s": round(slowest, 3), "examples": examples}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--min-ms", type=float, default=1.0)
    parser.add_argument("--max-ms", type=float, default=8.0)
    parser.add_argument("--signal", default="INT", help="INT, TERM or HUP")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    signum = int(getattr(signal, "SIG" + args.signal.upper().removeprefix("SIG")))
    with tempfile.TemporaryDirectory(prefix="mcp_signals-") as tmp:
        result = sweep(
            Path(tmp), runs=args.runs, low=args.min_ms, high=args.max_ms, seed=args.seed,
            signum=signum,
        )  # fmt: skip
    if args.json:
        print(dumps(result))
    else:
        print(dumps(result["counts"]), f"slowest end {result['slowest_s']} s")
        for kind, example in result["examples"].items():
            print(f"--- {kind}: {example}")
    bad = ("hung", "slow", "bad exit", "traceback", "lost", "torn", "lock left")
    return 1 if any(result["counts"].get(kind) for kind in bad) else 0


if __name__ == "__main__":
    raise SystemExit(main())
