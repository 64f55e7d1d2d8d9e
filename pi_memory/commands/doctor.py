"""``python -m pi_memory doctor [--json] [--offline]``: the problems first, one line each."""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from pi_memory.config.schema import Config
    from pi_memory.doctor import Report
    from pi_memory.receipts import Receipt
    from pi_memory.store import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--offline", action="store_true", help="send no request to any provider")


def run(args: argparse.Namespace) -> int:
    """0 when nothing is wrong, 1 when at least one problem was found."""
    from pi_memory.doctor import diagnose
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line

    cwd = Path(os.getcwd())
    # A broken value falls back to its default, so the layers are still where they are.
    _, store, _, loaded = open_store(cwd, warn=False)
    report = diagnose(loaded, store.settings.dirs, os.environ, offline=args.offline)
    report = with_inbox(with_background(with_hooks(report, cwd)), store)
    report = with_worktrees(report, loaded.config, store, cwd)
    if args.json:
        import json

        write_line(json.dumps(to_json(report)))
    else:
        for line in render(report):
            write_line(line)
    return 1 if report.problems else 0


def with_worktrees(report: Report, config: Config, store: Store, cwd: Path) -> Report:
    """A note on how the repository's worktrees share the project layer (none with one)."""
    from pi_memory.entry import PROJECT
    from pi_memory.worktree_memories import worktrees_line

    read = len(store.settings.worktree_dirs)
    line = worktrees_line(config, store.directory(PROJECT), read, cwd)
    return report._replace(notes=(*report.notes, line)) if line else report


def with_hooks(report: Report, cwd: Path) -> Report:
    """Which agents have this package's hooks, as ``install`` would leave them.

    ``installed``: installing again would change nothing; ``not installed``:
    uninstalling would change nothing; anything between (another interpreter,
    an older command, a partial edit) is ``outdated``.
    """
    from pi_memory.commands.install import backups, read_file
    from pi_memory.hosts.install import current_launcher, plan
    from pi_memory.hosts.install_plan import Locations
    from pi_memory.hosts.registry import NAMES
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.home import home_dir

    loc = Locations(home=home_dir(os.environ), root=project_root(cwd), env=os.environ)
    launcher = current_launcher()
    states: dict[str, str] = {}
    for host in NAMES:
        for scope in ("user", "project"):
            try:
                steps = {
                    action: plan(
                        action,
                        host=host,
                        scope=scope,
                        launcher=launcher,
                        loc=loc,
                        read=read_file,
                        backups=backups,
                    )
                    for action in ("install", "uninstall")
                }
            except Exception as exc:  # a host file we cannot read must not stop doctor
                states[f"{host} ({scope})"] = f"unknown ({exc})"
                continue
            if not steps["install"]:
                states[f"{host} ({scope})"] = "installed"
            elif not steps["uninstall"]:
                states[f"{host} ({scope})"] = "not installed"
            else:
                states[f"{host} ({scope})"] = "outdated"
    notes = list(report.notes)
    for where, state in states.items():
        if state == "outdated":
            host, scope = where.split(" (")
            notes.append(
                f"{where}: pi_memory's hooks differ from what this interpreter would install"
                f" — python -m pi_memory install {host}"
                + (" --scope project" if scope == "project)" else "")
            )
    if not any(state in ("installed", "outdated") for state in states.values()):
        notes.append(
            "no agent runs pi_memory's hooks yet — python -m pi_memory install claude-code"
            " (or codex, gemini, pi)"
        )
    return report._replace(hooks=states, notes=tuple(notes))


def with_background(report: Report) -> Report:
    """Background work: pending and set-aside jobs, and when each host's hooks last ran."""
    import time

    from pi_memory import receipts
    from pi_memory.doctor import job_problems
    from pi_memory.jobs.status import job_states

    jobs = job_states(time.time())
    problems = list(report.problems)
    job_problems(jobs, problems)
    last = receipts.last_by_host(receipts.read())
    runs = {host: receipts.seconds_of(r.at) or 0.0 for host, r in last.items()}
    notes = list(report.notes)
    for where, state in report.hooks.items():
        host = where.split(" (")[0]
        if state == "installed" and host not in runs:
            notes.append(
                f"{host}'s hooks have left no receipt (start a session there to see it "
                "here; 'log' lists what the hooks did)"
            )
    return report._replace(
        jobs=tuple(jobs),
        hook_runs=runs,
        last_receipts=last,
        problems=tuple(problems),
        notes=tuple(dict.fromkeys(notes)),
    )


def with_inbox(report: Report, store: Store) -> Report:
    """How many proposals wait for the user; an inbox file that cannot be read is a problem."""
    from pi_memory import inbox

    problems = list(report.problems)
    problems += [
        f"{path} is not an inbox item this version can read — look at it, then delete it"
        for path in inbox.damaged(store)
    ]
    return report._replace(inbox=inbox.count(store), problems=tuple(problems))


def _background_lines(report: Report) -> list[str]:
    import time

    from pi_memory.doctor import ago

    now = time.time()
    pending = [j for j in report.jobs if not j.failed]
    lines = [f"jobs: {len(pending)} pending, {len(report.jobs) - len(pending)} set aside"]
    for job in report.jobs:
        state = "set aside" if job.failed else f"pending {ago(job.age)}"
        tried = (
            f", {job.attempts} attempt{'s' if job.attempts != 1 else ''}" if job.attempts else ""
        )
        said = f" (last error: {job.error})" if job.error else ""
        lines.append(f"  {job.name} of session {job.session}: {state}{tried}{said}")
    if report.backoffs:
        lines.append("model back-off:")
    for b in report.backoffs:
        until = time.strftime("%H:%M", time.localtime(b.until))
        state = f"not asked at prompt time until {until}" if b.waiting(now) else "asked again"
        lines.append(f"  {b.model}: {b.failures} failure(s) in a row, {state} ({b.error})")
    runs = ", ".join(
        f"{h} {ago(now - t)} ago ({_what(report.last_receipts.get(h))})"
        for h, t in sorted(report.hook_runs.items())
    )
    lines.append(f"hooks last ran: {runs or 'no run recorded yet'}")
    if report.inbox:
        from pi_memory.launcher import this_package

        waiting = "proposal waits" if report.inbox == 1 else "proposals wait"
        lines.append(f"inbox: {report.inbox} {waiting} for you ({this_package().command('inbox')})")
    return lines


def _what(receipt: Receipt | None) -> str:
    """A receipt in a few words: ``surface, nothing``."""
    return f"{receipt.event}, {receipt.outcome}" if receipt is not None else "?"


def render(report: Report) -> list[str]:
    from pi_memory.model import ledger

    count = len(report.problems)
    lines = [f"doctor: {count} problem{'s' if count != 1 else ''}" if count else "doctor: ok"]
    lines += [f"- {problem}" for problem in report.problems]
    lines.append("")
    sources = ", ".join(report.sources) or "none (the built-in defaults)"
    lines.append(f"config: {sources} · layout {report.layout}")
    lines.append("models:")
    for task in report.models:
        shown = task.model or "none"
        state = "" if task.state == "ok" else f" ({_STATES[task.state]})"
        lines.append(f"  {task.task}: {shown}{state}")
    lines.append("providers:" if report.providers else "providers: none declared")
    for p in report.providers:
        where = p.base_url or "its CLI"
        if p.outcome == "answered":
            said = f"{p.model} answered in {p.ms} ms" + (f" ({p.detail})" if p.detail else "")
        elif p.outcome == "failed":
            said = f"{p.model} did not answer"
        else:
            said = p.detail
        lines.append(f"  {p.name} ({p.api}, {where}): {said}")
    if report.locks:
        lines.append("locks: " + " · ".join(f"{k} {v}" for k, v in report.locks.items()))
    hooked = [where for where, state in report.hooks.items() if state != "not installed"]
    if report.hooks:
        shown = ", ".join(f"{w} {report.hooks[w]}" for w in hooked) or "none installed"
        lines.append(f"hooks: {shown}")
    lines += _background_lines(report)
    if report.spend is not None:
        block = ledger.render(report.spend, report.cap)
        lines += block or [f"Model tokens: none used this month (daily cap {report.cap:,})"]
    lines += [f"note: {note}" for note in report.notes]
    return lines


_STATES = {
    "missing": "no model",
    "unresolvable": "not resolvable",
    "off": "disabled, not needed",
}


def to_json(report: Report) -> dict[str, Any]:
    from pi_memory.model import ledger
    from pi_memory.receipts import as_json

    return {
        "ok": not report.problems,
        "problems": list(report.problems),
        "notes": list(report.notes),
        "config": {"sources": list(report.sources), "layout": report.layout},
        "models": {t.task: {"model": t.model, "state": t.state} for t in report.models},
        "providers": {p.name: p._asdict() for p in report.providers},
        "locks": dict(report.locks),
        "hooks": dict(report.hooks),
        "model_usage": ledger.to_json(report.spend, report.cap) if report.spend else None,
        "jobs": [
            {
                "session": j.session,
                "name": j.name,
                "state": "set aside" if j.failed else "pending",
                "age_seconds": round(j.age),
                "attempts": j.attempts,
                "error": j.error,
                "path": str(j.path),
            }
            for j in report.jobs
        ],
        "backoff": {
            b.model: {"failures": b.failures, "until": b.until, "error": b.error}
            for b in report.backoffs
        },
        "hook_runs": {host: round(when) for host, when in report.hook_runs.items()},
        "last_receipts": {host: as_json(r) for host, r in report.last_receipts.items()},
        "inbox": report.inbox,
    }
