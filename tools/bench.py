"""Start-up and store-size benchmark: ratios against a bare interpreter, in one run.

    python tools/bench.py                 # 1,000 / 10,000 / 100,000 memories
    python tools/bench.py --sizes 1000 --runs 5

For each store size it builds a realistic categories store (both layers) in a
temporary HOME and project, then times, as subprocesses the way a host runs
them: ``python -c pass`` (the floor), the hooks (``session-start``,
``user-prompt-submit`` with the surfacing scorer, ``session-end``,
``pre-tool-use``, an event with nothing to do; Gemini CLI's ``BeforeAgent`` and
``PreCompress``, which it fires before every model request), each with ``--host`` as
the installed hooks run them, ``search``, ``write`` and ``show``. The prompt hook is also timed
with a side-query model whose server answers HTTP 500 (``--model-down``), against
the same hook without a model.
Medians are reported with their ratio to the floor; this machine is shared
and noisy, so the ratios are the figure to read.
A store of notes from one template over about 170 words (``--narrow``) times
``show --json`` with its health block where the detectors have it hardest, and
a read-only vendored copy of the package (``--read-only``, on a read-only bind
mount) times the hooks where no bytecode can be written beside the package.
Then the duplicate and conflict detectors are timed in-process against the
brute-force definition (``tools/bench_detect.py``).

The states a user lives in (``--states``) are timed in rounds of their own:
``search`` (the first command after the last round's writes: cold; then again:
warm), the session start after it, a ``write``, the session start after it and
again (unchanged), a write to the other layer and the start after it; each
with its CPU time beside its wall time (on a shared machine waiting for a core
is not in the CPU time). The same states from the zipapp of
``tools/build_pyz.py`` on a read-only bind mount, and ``search`` against ``rg``
over the same bodies kept as one file per memory (``--rg``; the run says so
when ``rg`` is not installed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pi_memory.entry import CATEGORY_FILES, PROJECT, USER  # noqa: E402
from pi_memory.layouts.categories.format import format_entry  # noqa: E402
from tools.bench_detect import bench as bench_detectors  # noqa: E402
from tools.bench_detect import make_narrow_store, make_store  # noqa: E402
from tools.bench_detect import report as detector_report  # noqa: E402


def build_store(home: Path, project: Path, n: int, *, narrow: bool = False) -> None:
    """``n`` memories split 1:3 between the user and project layers.

    ``narrow``: notes from one template over about 170 words (every body shares
    most words with many others), the hard case for the detectors in ``show``.
    """
    entries = (make_narrow_store if narrow else make_store)(n, seed=n)
    dirs = {USER: home / ".pi/agent/memory-auto", PROJECT: project / ".pi/agent/memory-auto"}
    chunks: dict[tuple[str, str], list[str]] = {}
    for i, entry in enumerate(entries):
        layer = USER if i % 4 == 0 else PROJECT
        files = CATEGORY_FILES[layer]
        key = (layer, files[i % len(files)])
        chunks.setdefault(key, []).append(format_entry(entry))
    an_hour_ago = time.time() - 3600  # a store that was written earlier, as real ones are
    for (layer, name), rows in chunks.items():
        dirs[layer].mkdir(parents=True, exist_ok=True)
        path = dirs[layer] / name
        path.write_text("\n".join(rows), "utf-8")
        os.utime(path, (an_hour_ago, an_hour_ago))
    (project / ".git").mkdir(exist_ok=True)
    # The person works in their own project: its memories are theirs (trusted), as
    # in a session of theirs; an untrusted layer is said at every start, and a hook
    # that said something is never answered from its note.
    config = home / ".pi/agent/memory.json"
    config.write_text(json.dumps({"trustedProjects": [str(project)]}), "utf-8")


#: A prompt as a person types it; the scorer looks for its words in every memory.
PROMPT = "Why does the deploy to staging fail on port 5433 since we moved the cache to redis?"


def hook_event(project: Path, name: str, **fields: str) -> str:
    """The JSON Claude Code sends for ``name`` (see tests/data/hosts/claude-code/)."""
    event = {
        "session_id": "55443e9c-7173-498f-ab21-5c26c4d6b176",
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": name,
        **fields,
    }
    return json.dumps(event)


def gemini_event(project: Path, name: str, **fields: str) -> str:
    """The JSON Gemini CLI sends for ``name`` (see tests/data/hosts/gemini/)."""
    event = {
        "session_id": "0f3c1e7a-5b2d-4c8e-9a61-2d7f4b8c9e10",
        "transcript_path": str(project / "session-gemini.jsonl"),
        "cwd": str(project),
        "hook_event_name": name,
        "timestamp": "2026-12-01T09:00:00.000Z",
        **fields,
    }
    return json.dumps(event)


def run_once(argv: list[str], cwd: Path, env: dict[str, str], stdin: str) -> float:
    return run_timed(argv, cwd, env, stdin)[0]


def run_timed(argv: list[str], cwd: Path, env: dict[str, str], stdin: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``argv``. On a machine
    others share, the CPU time is the steadier figure: waiting for a core is not in it."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed: {proc.stderr.strip()}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return elapsed, cpu


def time_commands(
    cases: dict[str, tuple[list[str], str]],
    cwd: Path,
    env: dict[str, str],
    runs: int,
    envs: dict[str, dict[str, str]] | None = None,
) -> dict[str, float]:
    """Median seconds per case. Rounds interleave the cases, the floor included, so a
    load that drifts during the run weighs on every command alike. ``envs``: a case's
    own environment instead of ``env``."""
    own = envs or {}
    for name, (argv, stdin) in cases.items():
        run_once(argv, cwd, own.get(name, env), stdin)  # warm-up: bytecode, parse cache
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, (argv, stdin) in cases.items():
            samples[name].append(run_once(argv, cwd, own.get(name, env), stdin))
    return {name: statistics.median(values) for name, values in samples.items()}


def bench_size(
    n: int,
    runs: int,
    *,
    narrow: bool = False,
    only: tuple[str, ...] = (),
    package_root: Path = ROOT,
) -> dict[str, float]:
    """Median seconds per command on a store of ``n`` memories (``only``: just those
    commands and the floor); ``package_root`` is the directory that holds ``pi_memory/``."""
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "proj")
        project.mkdir(parents=True)
        build_store(home, project, n, narrow=narrow)
        env = dict(os.environ, HOME=str(home), PYTHONPATH=str(package_root))
        env["XDG_CACHE_HOME"] = str(Path(tmp, "cache"))
        env.pop("PI_MEMORY_AUTO_DIR", None)
        # Measure what a user runs: bytecode cached after the first start (an installed
        # package has it precompiled). The warm-up run below writes it.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        py = [sys.executable]
        event = hook_event(project, "SessionStart", source="startup")
        claude = [*py, "-m", "pi_memory", "hook", "--host", "claude-code"]
        subprocess.run(
            [*py, "-m", "pi_memory", "hook", "--host", "claude-code", "SessionStart"],
            cwd=project,
            env=env,
            input=event,
            capture_output=True,
            text=True,
            check=True,
        )  # writes MEMORY.md once
        floor = {FLOOR: ([*py, "-c", "pass"], "")}
        # Hooks are timed in rounds of their own: a write or a search between them
        # changes the store, and a hook after a change does the full work (the
        # fast path's note is a miss), which is not what a session's hooks meet.
        hooks = {
            "hook session-start": ([*claude, "SessionStart"], event),
            "hook user-prompt-submit": (
                [*claude, "UserPromptSubmit"],
                hook_event(project, "UserPromptSubmit", prompt=PROMPT),
            ),
            "hook session-end": (
                [*claude, "SessionEnd"],
                hook_event(project, "SessionEnd", reason="other"),
            ),
            "hook pre-tool-use": (
                [*claude, "PreToolUse"],
                hook_event(project, "PreToolUse", tool_name="Bash"),
            ),
            # Gemini CLI's own path: the index and surfacing come with each prompt, and
            # PreCompress, fired before every model request, watches for a compression.
            "hook gemini before-agent": (
                [*py, "-m", "pi_memory", "hook", "--host", "gemini", "BeforeAgent"],
                gemini_event(project, "BeforeAgent", prompt=PROMPT),
            ),
            "hook gemini pre-compress": (
                [*py, "-m", "pi_memory", "hook", "--host", "gemini", "PreCompress"],
                gemini_event(project, "PreCompress", trigger="auto"),
            ),
        }
        commands = {
            "search": ([*py, "-m", "pi_memory", "search", "deploy", "staging", "port"], ""),
            "write": (
                [
                    *py,
                    "-m",
                    "pi_memory",
                    "write",
                    "--keyword",
                    "bench",
                    "The benchmark writes this same fact on every run.",
                ],
                "",
            ),
            "show": ([*py, "-m", "pi_memory", "show"], ""),
            "show --json": ([*py, "-m", "pi_memory", "show", "--json"], ""),
        }
        if only:
            hooks = {name: case for name, case in hooks.items() if name in only}
            commands = {name: case for name, case in commands.items() if name in only}
        timed = time_commands({**floor, **hooks}, project, env, runs)
        if not commands:
            return timed
        others = time_commands({**floor, **commands}, project, env, runs)
        # Each group's ratios are against its own floor; report them against one.
        scale = timed[FLOOR] / others.pop(FLOOR)
        return {**timed, **{name: seconds * scale for name, seconds in others.items()}}


FLOOR = "python -c pass"
NO_MODEL = "hook user-prompt-submit (no model)"
MODEL_DOWN = "hook user-prompt-submit (model down)"


def bench_model_down(n: int, runs: int) -> dict[str, float]:
    """The prompt hook without a model, and with a side-query model whose server (on
    127.0.0.1) answers every request with HTTP 500, on the same store of ``n``
    memories; each case has its own HOME, project and cache. The warm-up run pays for
    finding the model down; the timed runs are the prompts after it."""
    from tests.fake_provider import Fail, FakeProvider, memory_json, write_memory_json

    server = FakeProvider()
    server.default = Fail(500)
    py = [sys.executable, "-m", "pi_memory", "hook"]
    cases: dict[str, tuple[list[str], str]] = {FLOOR: ([sys.executable, "-c", "pass"], "")}
    envs: dict[str, dict[str, str]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in (NO_MODEL, MODEL_DOWN):
                home, project = Path(tmp, f"home-{len(envs)}"), Path(tmp, f"proj-{len(envs)}")
                project.mkdir()
                build_store(home, project, n)
                env = dict(os.environ, HOME=str(home), PYTHONPATH=str(ROOT))
                env["XDG_CACHE_HOME"] = str(Path(tmp, f"cache-{len(envs)}"))
                env.pop("PI_MEMORY_AUTO_DIR", None)
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                if name == MODEL_DOWN:
                    trusted = {"trustedProjects": [str(project)]}
                    write_memory_json(home, memory_json(server, **trusted))
                start = hook_event(project, "SessionStart", source="startup")
                run_once([*py, "session-start"], project, env, start)  # writes MEMORY.md
                envs[name] = env
                prompt = hook_event(project, "UserPromptSubmit", prompt=PROMPT)
                cases[name] = ([*py, "user-prompt-submit"], prompt)
            timed = time_commands(cases, Path(tmp), envs[NO_MODEL], runs, envs)
    finally:
        server.close()
    asked = len(server.posts())
    print(f"model down: the server was asked {asked} times in {runs + 1} prompts")
    return timed


@contextlib.contextmanager
def read_only_copy() -> Iterator[Path]:
    """A copy of the package, without bytecode, on a read-only bind mount (as a vendored
    copy in a read-only location is): Python cannot write ``__pycache__`` beside it."""
    with tempfile.TemporaryDirectory() as tmp:
        source, mount = Path(tmp, "src"), Path(tmp, "vendor")
        shutil.copytree(
            ROOT / "pi_memory", source / "pi_memory", ignore=shutil.ignore_patterns("__pycache__")
        )
        mount.mkdir()
        subprocess.run(["mount", "--bind", str(source), str(mount)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], check=True)
            yield mount
        finally:
            subprocess.run(["umount", str(mount)], check=False)


#: One round of the states a user lives in, in the order the issue's table times them:
#: each search is the first command after the previous round's writes (cold), then again
#: (warm); each hook follows what changed just before it.
STATES: tuple[tuple[str, str], ...] = (
    ("search (cold: first after a write)", "search"),
    ("search (warm)", "search"),
    # Not timed: a search for a keyword it credits, so the recalls change, as a person's
    # searches change them (the words alone credit none in these stores).
    ("", "credit"),
    ("hook session-start after a search", "hook"),
    ("write", "write"),
    ("hook session-start after a write", "hook"),
    ("hook session-start unchanged", "hook"),
    ("write to the other layer", "write user"),
    ("hook session-start after a write to the other layer", "hook"),
)


def credited_keyword(project: Path) -> str:
    """The project layer's most shared keyword that a search credits (a word of its own,
    not a stopword): a search for it records keyword usage, as a person's searches do."""
    from pi_memory.keywords import STOPWORDS

    table = (project / ".pi/agent/memory-auto/MEMORY.md").read_text("utf-8")
    for line in table.splitlines():
        word = line.lstrip("#").split(" (")[0]
        if line.startswith("#") and word.isalpha() and word.isascii() and word not in STOPWORDS:
            return word
    return "deploy"


def state_commands(py: list[str], project: Path) -> dict[str, tuple[list[str], str]]:
    """The commands of :data:`STATES` run as ``py`` (the interpreter and the package)."""
    fact = ["--keyword", "bench", "The benchmark writes this same fact on every run."]
    return {
        "search": ([*py, "search", "deploy", "staging", "port"], ""),
        "credit": ([*py, "search", credited_keyword(project)], ""),
        "hook": (
            [*py, "hook", "--host", "claude-code", "SessionStart"],
            hook_event(project, "SessionStart", source="startup"),
        ),
        "write": ([*py, "write", *fact], ""),
        "write user": ([*py, "write", "--layer", "user", *fact], ""),
    }


def bench_states(
    n: int, runs: int, *, pyz: Path | None = None
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU seconds of each of :data:`STATES` on a store of ``n``
    memories, in rounds that run the floor and then the states in order (``pyz``: run the
    zipapp with ``-S``, as a vendored copy is run, instead of the package directory)."""
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "proj")
        project.mkdir(parents=True)
        build_store(home, project, n)
        env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(Path(tmp, "cache")))
        env.pop("PI_MEMORY_AUTO_DIR", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if pyz is None:
            env["PYTHONPATH"] = str(ROOT)
            py = [sys.executable, "-m", "pi_memory"]
        else:
            env.pop("PYTHONPATH", None)
            py = [sys.executable, "-S", str(pyz)]
        event = hook_event(project, "SessionStart", source="startup")
        start = [*py, "hook", "--host", "claude-code", "SessionStart"]
        run_once(start, project, env, event)  # writes MEMORY.md
        commands = state_commands(py, project)
        floor = [sys.executable, "-c", "pass"]
        for _ in range(2):  # warm-up: bytecode, caches, the first note and ready index
            for _, key in STATES:
                run_once(commands[key][0], project, env, commands[key][1])
        names = (FLOOR, *(name for name, _ in STATES if name))
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for _ in range(runs):
            samples[FLOOR].append(run_timed(floor, project, env, ""))
            for name, key in STATES:
                timed = run_timed(commands[key][0], project, env, commands[key][1])
                if name:
                    samples[name].append(timed)
    wall = {name: statistics.median(w for w, _ in values) for name, values in samples.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in samples.items()}
    return wall, cpu


@contextlib.contextmanager
def read_only_zipapp() -> Iterator[Path]:
    """The zipapp of ``tools/build_pyz.py`` on a read-only bind mount, as a vendored copy
    in a read-only location is run."""
    from tools.build_pyz import build

    with tempfile.TemporaryDirectory() as tmp:
        source, mount = Path(tmp, "src"), Path(tmp, "vendor")
        build(source / "pi_memory.pyz")
        mount.mkdir()
        subprocess.run(["mount", "--bind", str(source), str(mount)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(mount)], check=True)
            yield mount / "pi_memory.pyz"
        finally:
            subprocess.run(["umount", str(mount)], check=False)


def bench_rg(n: int, runs: int) -> dict[str, float] | None:
    """``search`` (warm) against ``rg`` over the same bodies kept as one file per memory,
    on ``n`` memories; ``None`` when ``rg`` is not installed."""
    rg = shutil.which("rg")
    if rg is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        home, project, flat = Path(tmp, "home"), Path(tmp, "proj"), Path(tmp, "flat")
        project.mkdir(parents=True)
        build_store(home, project, n)
        flat.mkdir()
        for i, entry in enumerate(make_store(n, seed=n)):
            Path(flat, f"{i:06d}.md").write_text(entry.body + "\n", "utf-8")
        env = dict(os.environ, HOME=str(home), PYTHONPATH=str(ROOT))
        env["XDG_CACHE_HOME"] = str(Path(tmp, "cache"))
        env.pop("PI_MEMORY_AUTO_DIR", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        words = ["deploy", "staging", "port"]
        cases = {
            FLOOR: ([sys.executable, "-c", "pass"], ""),
            "search (warm)": ([sys.executable, "-m", "pi_memory", "search", *words], ""),
            "rg, one file per memory": (
                [rg, "-i", "-l", *(f"-e{w}" for w in words), str(flat)],
                "",
            ),
        }
        return time_commands(cases, project, env, runs)


def print_rows(n: int, times: dict[str, float], label: str = "") -> None:
    floor = times[FLOOR]
    for name, seconds in times.items():
        shown = f"{name} {label}".strip()
        print(f"{n:>9,} {shown:<60} {seconds * 1000:>7.1f}ms {seconds / floor:>16.2f}×")


def report_states(sizes: list[int], runs: int, read_only: int) -> None:
    """The states of :data:`STATES` at each size, and from the read-only zipapp."""
    for n in sizes:
        print_states(n, *bench_states(n, runs if n < 100_000 else max(5, runs // 2)))
    if not read_only:
        return
    try:
        with read_only_zipapp() as pyz:
            wall, cpu = bench_states(read_only, runs, pyz=pyz)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"read-only zipapp not measured: no read-only mount here ({error})")
    else:
        print_states(read_only, wall, cpu, "(read-only zipapp)")


def print_states(n: int, wall: dict[str, float], cpu: dict[str, float], label: str = "") -> None:
    """Each state's median wall time and CPU time, each against the floor's."""
    for name, seconds in wall.items():
        shown = f"{name} {label}".strip()
        ratios = f"{seconds / wall[FLOOR]:>6.2f}× {cpu[name] / cpu[FLOOR]:>6.2f}×"
        times = f"{seconds * 1000:>7.1f}ms {cpu[name] * 1000:>7.1f}ms"
        print(f"{n:>9,} {shown:<60} {times} {ratios}")


def report_rg(n: int, runs: int) -> None:
    if not n:
        return
    times = bench_rg(n, runs)
    if times is None:
        print(f"{n:>9,} rg is not installed: search not compared with it (apt-get install ripgrep)")
        return
    print_rows(n, times, "(against rg)")
    ratio = times["search (warm)"] / times["rg, one file per memory"]
    print(f"{n:>9,} search / rg: {ratio:.2f}×")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000, 100_000])
    parser.add_argument("--runs", type=int, default=9, help="runs per command (median)")
    parser.add_argument(
        "--detector-sizes",
        type=int,
        nargs="*",
        default=[10_000, 100_000],
        help="store sizes for duplicate and conflict detection (brute force at the first)",
    )
    parser.add_argument(
        "--narrow",
        type=int,
        default=10_000,
        help="size of the narrow-vocabulary store (0 to skip)",
    )
    parser.add_argument(
        "--read-only",
        type=int,
        default=1_000,
        help="size of the store for the read-only vendored run (0 to skip; needs mount)",
    )
    parser.add_argument(
        "--states",
        type=int,
        nargs="*",
        default=[10_000, 100_000],
        help="store sizes for the states a user lives in (after a search, a write, ...)",
    )
    parser.add_argument(
        "--rg",
        type=int,
        default=10_000,
        help="store size for search against rg over one file per memory (0 to skip)",
    )
    parser.add_argument(
        "--model-down",
        type=int,
        default=1_000,
        help="store size for the prompt hook with a side-query model answering 500 (0 to skip)",
    )
    args = parser.parse_args(argv)
    print(f"Python {sys.version.split()[0]} · {os.cpu_count()} cores · median of {args.runs} runs")
    print(f"{'memories':>9} {'command':<60} {'median':>9} {'× python -c pass':>17}")
    for n in args.sizes:
        runs = args.runs if n < 100_000 else max(3, args.runs // 3)
        print_rows(n, bench_size(n, runs))
    if args.states:
        print(f"{'':>9} {'state (wall, CPU: median ms; × python -c pass)':<60}")
    report_states(args.states, args.runs, args.read_only)
    report_rg(args.rg, args.runs)
    if args.narrow:
        only = ("hook session-start", "hook user-prompt-submit", "search", "show --json")
        print_rows(
            args.narrow, bench_size(args.narrow, args.runs, narrow=True, only=only), "(narrow)"
        )
    if args.read_only:
        only = ("hook session-start", "hook user-prompt-submit", "hook pre-tool-use", "search")
        try:
            with read_only_copy() as vendor:
                times = bench_size(args.read_only, args.runs, only=only, package_root=vendor)
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"read-only vendored run not measured: no read-only mount here ({error})")
        else:
            print_rows(args.read_only, times, "(read-only)")
    if args.model_down:
        print_rows(args.model_down, bench_model_down(args.model_down, args.runs))
    if args.detector_sizes:
        print("\nDuplicate and conflict detection, in process (p = pairs found):")
        print("\n".join(detector_report(bench_detectors(tuple(args.detector_sizes)))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
