"""What pi_memory costs a turn inside each real client: one-turn sessions with and without it.

    E2E=/srv/e2e python tools/bench_clients.py [--runs 7] [--clients cc,codex,gemini,pi]

Each client (Claude Code, Codex CLI, Gemini CLI, pi: the pinned versions of
``tools/e2e_common.py``, from ``$E2E``) runs offline against its fake model on
127.0.0.1, inside a private network namespace (``unshare -n``), in a HOME and
a git project of its own with three memories stored. A round runs one
one-turn session (``claude -p``, ``codex exec``, ``gemini -p``, ``pi -p``) with
the package installed (``install HOST --no-model``, the set-up a person
gets) and one after ``uninstall HOST``; the order alternates from round to
round, so a change in the machine's load falls on both alike. Prints, per
client, the median wall time of each and their difference, with the load
average at the start and the end (the machine is shared: read the figures
with it), and the median CPU time (user and system) of the session's whole
process tree: the client, its hooks, its MCP server. The wall time ends when
the client exits, which is what a person waits for; what it leaves running
(a server ending on its closed stdin, a hook it does not wait for) is waited
for after that and its CPU time counted (this process is its subreaper). CPU
time moves much less with the load than wall time. Installing and
uninstalling is not timed. ``install`` compiles the package's bytecode, as a
person's install does, so the hooks read it even where the environment says
not to write any (``PYTHONDONTWRITEBYTECODE``).

``--processes N`` runs N sessions with the package installed instead, each of
its processes started through a wrapper, and prints what they were: per
process (the hook of an event, the MCP server, ``tool --list``), how many a
session starts, the median CPU time of each and how many modules it
imported (``-X importtime``, which adds a little CPU of its own).

A run where the installed package did not reach the model (no ``<memory-auto>``
index in any request of the "with" sessions) is reported as such: the figure
would be the client's alone.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.e2e_common import (
    REPO,
    Fake,
    claude_code_env,
    client,
    default_e2e,
    default_fakes,
    ensure_clients,
    git_project,
    in_private_network,
    package,
    workdir,
)

CLIENTS = ("cc", "codex", "gemini", "pi")
HOSTS = {"cc": "claude-code", "codex": "codex", "gemini": "gemini", "pi": "pi"}
NAMES = {"cc": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI", "pi": "pi"}
PROMPT = "What port does the staging database listen on?"
SEEDS = (
    ("staging-db", "The staging database listens on port 5433, not the default 5432."),
    ("deploy", "Deploys go through rsync with --delete from the release branch."),
    ("tests", "Run the suite with pytest -n 0 when a test touches the lock."),
)


class Client(NamedTuple):
    """One client set up for the benchmark."""

    host: str
    env: dict[str, str]
    project: Path
    #: Runs one one-turn session: the seconds until the client exited.
    turn: Callable[[], float]
    #: The fake model that client talks to (its log shows what reached the model).
    fake: Fake


def _run(argv: list[str], project: Path, env: dict[str, str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(
        argv, cwd=project, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        print(f"bench_clients: {Path(argv[0]).name} exited {done.returncode}: "
              f"{done.stderr.strip()[-300:]}", flush=True)  # fmt: skip
    _reap_orphans()
    return seconds


#: Processes of ours that outlive every session (the fake model servers).
_KEPT: set[int] = set()


def _subreaper() -> None:
    """Become the parent of whatever a client leaves running when it exits (an MCP
    server ending on its closed stdin), so its CPU time is counted with the session."""
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def _children() -> set[int]:
    pid = os.getpid()
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return set()
    return {int(word) for word in text.split()} - _KEPT


def _reap_orphans(deadline: float = 30.0) -> None:
    """Wait (at most ``deadline`` seconds) for the processes a session left behind."""
    ends = time.monotonic() + deadline
    while _children() and time.monotonic() < ends:
        for pid in _children():
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        time.sleep(0.01)


def _cpu() -> float:
    """CPU seconds of every waited-for descendant so far."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _base_env(work: Path, drop: tuple[str, ...]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env = {k: v for k, v in env.items() if not k.startswith(("PI_MEMORY", "XDG_"))}
    env.update(HOME=str(work / "home"), TMPDIR=str(work / "tmp"), NO_PROXY="127.0.0.1,localhost")
    (work / "home").mkdir(parents=True)
    (work / "tmp").mkdir()
    return env


def claude_code(e2e: Path, work: Path, fakes: Path) -> Client:
    fake = Fake(fakes / "fake_anthropic.py", work / "fake.jsonl")
    env = claude_code_env(work / "home", work / "tmp", fake.url)
    (work / "home").mkdir(parents=True)
    (work / "tmp").mkdir()
    project = git_project(work / "project")
    binary = str(client(e2e, "cc"))
    return Client("cc", env, project, lambda: _run([binary, "-p", PROMPT], project, env), fake)


def codex(e2e: Path, work: Path, fakes: Path) -> Client:
    from tools.e2e_codex import CONFIG

    fake = Fake(REPO / "tools" / "fake_responses.py", work / "fake.jsonl")
    env = _base_env(work, ("OPENAI_", "CODEX_"))
    codex_home = work / "home" / ".codex"
    codex_home.mkdir(parents=True)
    (codex_home / "config.toml").write_text(CONFIG.format(url=fake.url), "utf-8")
    env.update(CODEX_HOME=str(codex_home), FAKE_RESPONSES_KEY="dummy")
    project = git_project(work / "project")
    # Both variants pass the flag: a person trusts the hooks once, the benchmark each time.
    argv = [str(client(e2e, "codex")), "exec", "--dangerously-bypass-hook-trust", "--json"]
    argv += ["--skip-git-repo-check", PROMPT]
    return Client("codex", env, project, lambda: _run(argv, project, env), fake)


def gemini(e2e: Path, work: Path, fakes: Path) -> Client:
    from tools.e2e_gemini import SETTINGS

    del fakes  # Gemini CLI talks to the project's own fake
    fake = Fake(REPO / "tools" / "fake_gemini.py", work / "fake.jsonl")
    env = _base_env(work, ("GEMINI", "GOOGLE_", "ANTHROPIC_"))
    env.update(GEMINI_API_KEY="dummy", GOOGLE_GEMINI_BASE_URL=fake.url)
    project = git_project(work / "project")
    settings = work / "home" / ".gemini"
    settings.mkdir(parents=True)
    (settings / "settings.json").write_text(json.dumps(SETTINGS, indent=2), "utf-8")
    trusted = json.dumps({str(project): "TRUST_FOLDER"})
    (settings / "trustedFolders.json").write_text(trusted, "utf-8")
    binary = str(client(e2e, "gemini"))
    return Client("gemini", env, project, lambda: _run([binary, "-p", PROMPT], project, env), fake)


def pi(e2e: Path, work: Path, fakes: Path) -> Client:
    from tools.e2e_pi import MODELS, SETTINGS

    fake = Fake(fakes / "fake_openai.py", work / "fake.jsonl")
    env = _base_env(work, ("PI_",))
    agent = work / "home" / ".pi" / "agent"
    agent.mkdir(parents=True)
    models = json.loads(json.dumps(MODELS))
    models["providers"]["fake"]["baseUrl"] = f"{fake.url}/v1"
    (agent / "models.json").write_text(json.dumps(models), "utf-8")
    (agent / "settings.json").write_text(json.dumps(SETTINGS), "utf-8")
    node = client(e2e, "pi", 0).parent
    env.update(
        PATH=f"{node}:{env.get('PATH', '')}",
        PI_CODING_AGENT_DIR=str(agent),
        PI_OFFLINE="1",
        PI_SKIP_VERSION_CHECK="1",
        PI_TELEMETRY="0",
    )
    project = git_project(work / "project")
    binary = str(client(e2e, "pi"))
    return Client("pi", env, project, lambda: _run([binary, "-p", PROMPT], project, env), fake)


MAKERS: dict[str, Callable[[Path, Path, Path], Client]] = {
    "cc": claude_code,
    "codex": codex,
    "gemini": gemini,
    "pi": pi,
}


def _reached_model(fake: Fake, since: int) -> bool:
    """Whether a request after the first ``since`` carried the injected index."""
    # Gemini CLI escapes the tag's angle brackets: look for its name.
    return any("memory-auto" in json.dumps(r) for r in fake.requests()[since:])


class Measured(NamedTuple):
    """Seconds of each session with and without the package, wall and CPU."""

    with_it: list[float]
    without: list[float]
    cpu_with: list[float]
    cpu_without: list[float]
    #: Whether the injected index reached the model in a "with" session.
    reached: bool


def measure(one: Client, runs: int) -> Measured:
    """Each "with" and "without" session, interleaved."""
    host = HOSTS[one.host]
    with_it: list[float] = []
    without: list[float] = []
    cpu_with: list[float] = []
    cpu_without: list[float] = []
    reached = False
    installed = False
    for round_ in range(runs):
        for wanted in (True, False) if round_ % 2 == 0 else (False, True):
            if wanted != installed:
                action = ("install", host, "--no-model") if wanted else ("uninstall", host)
                package(*action, cwd=one.project, env=one.env)
                installed = wanted
            before = len(one.fake.requests())
            cpu = _cpu()
            (with_it if wanted else without).append(one.turn())
            (cpu_with if wanted else cpu_without).append(_cpu() - cpu)
            reached = reached or (wanted and _reached_model(one.fake, before))
    if installed:
        package("uninstall", host, cwd=one.project, env=one.env)
    return Measured(with_it, without, cpu_with, cpu_without, reached)


_WRAPPER = """#!/bin/bash
# Runs the interpreter as the installed command would, and records what it was asked, its CPU
# time (the shell's ``times``) and its imports. A signal the host sends reaches it.
log={log}/$$
{python} -X importtime "$@" <&0 2>"$log.err" &
child=$!
trap 'kill -TERM $child 2>/dev/null' TERM INT HUP
wait $child; rc=$?
while kill -0 $child 2>/dev/null; do wait $child; rc=$?; done
times > "$log.times"
printf '%s\\n' "$*" > "$log.args"
grep -v '^import time:' "$log.err" >&2
exit $rc
"""


def _wrap(one: Client, work: Path) -> Path:
    """Point what ``install`` wrote at a wrapper of the interpreter; the wrapper's log folder."""
    python = os.path.realpath(sys.executable)
    log = work / "processes"
    log.mkdir(exist_ok=True)
    wrapper = work / "python-wrapper"
    wrapper.write_text(_WRAPPER.format(log=log, python=python), "utf-8")
    wrapper.chmod(0o755)
    for folder in (work / "home", one.project):
        for path in folder.rglob("*"):
            skip = {".git", ".cache"}  # the package's own notes name the interpreter too
            if not path.is_file() or path.stat().st_size > 1_000_000 or skip & set(path.parts):
                continue
            try:
                text = path.read_text("utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if python in text and "pi_memory" in text:
                path.write_text(text.replace(python, str(wrapper)), "utf-8")
    return log


def _what(args: str) -> str:
    """The process's role: ``hook EVENT``, ``mcp``, ``tool --list``…"""
    words = args.split()
    after = words[words.index("-S") + 2 :] if "-S" in words else words[1:]
    if after[:1] == ["hook"]:
        return f"hook {after[-1]}"
    return " ".join(after)


def _seconds(word: str) -> float:
    minutes, _, rest = word.partition("m")
    return int(minutes) * 60 + float(rest.rstrip("s"))


@contextlib.contextmanager
def _seeded(name: str, e2e: Path, fakes: Path) -> Iterator[tuple[Client, Path]]:
    """Client ``name`` in a work directory of its own, with :data:`SEEDS` written to its
    project's memory; its fake model server stopped and the directory removed after."""
    import shutil

    work = workdir(e2e, f"bench-{name}")
    one = MAKERS[name](e2e, work, fakes)
    _KEPT.add(one.fake.proc.pid)
    try:
        for keyword, body in SEEDS:
            package("write", "--keyword", keyword, body, cwd=one.project, env=one.env)
        yield one, work
    finally:
        one.fake.stop()
        shutil.rmtree(work, ignore_errors=True)


def processes(names: list[str], runs: int, e2e: Path, fakes: Path) -> list[str]:
    """Each process the package starts in a one-turn session, ``runs`` sessions a client."""
    lines = [
        f"load average at the start: {_load()}",
        "| client | process | per session | CPU (median) | modules imported |",
        "|---|---|---:|---:|---:|",
    ]
    _subreaper()
    for name in names:
        with _seeded(name, e2e, fakes) as (one, work):
            package("install", HOSTS[name], "--no-model", cwd=one.project, env=one.env)
            one.turn()  # the client's own set-up, and the package's first notes
            log = _wrap(one, work)
            seen: dict[str, list[tuple[float, int]]] = {}
            for _ in range(runs):
                for old in log.iterdir():
                    old.unlink()
                one.turn()
                for times in sorted(log.glob("*.times")):
                    stem = times.with_suffix("")
                    cpu = sum(map(_seconds, times.read_text().split()[2:4]))
                    err = Path(f"{stem}.err").read_text("utf-8", "replace")
                    modules = sum(1 for x in err.splitlines() if x.startswith("import time:"))
                    what = _what(Path(f"{stem}.args").read_text("utf-8").strip())
                    seen.setdefault(what, []).append((cpu, max(0, modules - 1)))
        for what, got in seen.items():
            cpu = statistics.median(c for c, _ in got) * 1000
            modules = statistics.median(m for _, m in got)
            lines.append(
                f"| {NAMES[name]} | `{what}` | {len(got) / runs:.1f} | {cpu:.0f} ms "
                f"| {modules:.0f} |"
            )
        print("\n".join(lines[3:]), file=sys.stderr, flush=True)
    lines.append(f"load average at the end: {_load()}")
    return lines


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def bench(names: list[str], runs: int, e2e: Path, fakes: Path) -> list[str]:
    lines = [
        f"load average at the start: {_load()}",
        "| client | with pi_memory | without | difference | CPU with | CPU without "
        "| CPU difference | runs each |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    _subreaper()
    for name in names:
        with _seeded(name, e2e, fakes) as (one, _):
            one.turn()  # the first session of a new HOME pays for the client's own set-up
            got = measure(one, runs)
        a, b = statistics.median(got.with_it), statistics.median(got.without)
        c, d = statistics.median(got.cpu_with), statistics.median(got.cpu_without)
        note = "" if got.reached else " (the index never reached the model: not measured)"
        lines.append(
            f"| {NAMES[name]} | {a:.2f} s | {b:.2f} s | {a - b:+.2f} s{note} "
            f"| {c:.2f} s | {d:.2f} s | {c - d:+.2f} s | {runs} |"
        )
        print(lines[-1], file=sys.stderr, flush=True)
    lines.append(f"load average at the end: {_load()}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--e2e", type=Path, default=default_e2e())
    parser.add_argument("--fakes", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=7, help="sessions of each kind per client")
    parser.add_argument("--clients", default=",".join(CLIENTS), help="cc,codex,gemini,pi")
    parser.add_argument(
        "--processes", type=int, default=0, metavar="N",
        help="instead: each process the package starts, over N sessions with it",
    )  # fmt: skip
    args = parser.parse_args(argv)
    names = [name for name in args.clients.split(",") if name]
    unknown = sorted(set(names) - set(CLIENTS))
    if unknown:
        parser.error(f"unknown client {', '.join(unknown)} (one of: {', '.join(CLIENTS)})")
    fakes = (args.fakes or default_fakes()).resolve()
    e2e = args.e2e.resolve()
    for name in names:
        ensure_clients(e2e, name)
    in_private_network()
    if args.processes:
        print("\n".join(processes(names, args.processes, e2e, fakes)))
        return 0
    print("\n".join(bench(names, args.runs, e2e, fakes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
