"""``log``: what the memory did, one receipt a line (:mod:`pi_memory.receipts`).

Every hook that put the index or memories into a prompt, every job handed to the
background and every job that finished left a receipt; this lists them, oldest
first, filtered by session, host, layer, kind, event, memory and time.
"""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from pi_memory.receipts import Receipt


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pi_memory.entry import LAYERS
    from pi_memory.hosts.registry import NAMES as HOSTS
    from pi_memory.receipts import KINDS

    parser.add_argument("--session", default="", help="only this session's receipts")
    parser.add_argument("--host", default="", choices=HOSTS, help="only this agent's receipts")
    parser.add_argument("--layer", default="", choices=LAYERS, help="only receipts naming it")
    parser.add_argument(
        "--kind", default="", choices=KINDS, help="hook (what went into prompts) or job"
    )
    parser.add_argument(
        "--event", default="", help="inject, surface, schedule, or a job: review, flush …"
    )
    parser.add_argument("--memory", default="", metavar="ID", help="only receipts naming it")
    parser.add_argument(
        "--since", default="", help="today, yesterday, 30m, 2h, 7d, or a date or time"
    )
    parser.add_argument(
        "--limit", type=int, default=50, help="the newest this many receipts (50; 0: all)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    import time

    from pi_memory import receipts
    from pi_memory.errors import UsageError
    from pi_memory.output import write_line

    since = 0.0
    if args.since:
        found = receipts.since_seconds(args.since, time.time())
        if found is None:
            raise UsageError(f"--since: not a time: {args.since!r} (today, 2h, 2026-03-14 …)")
        since = found
    if args.limit < 0:
        raise UsageError("--limit is a whole number (0: all)")
    wanted = receipts.Filter(
        args.session, args.host, args.layer, args.kind, args.event, args.memory, since
    )
    found_all = receipts.read(wanted)
    shown = found_all[-args.limit :] if args.limit else found_all
    if args.json:
        import json

        data = {
            "count": len(found_all),
            "receipts": [receipts.as_json(r) for r in shown],
            "summary": receipts.summarise(found_all)._asdict(),
        }
        write_line(json.dumps(data))
        return 0
    for line in table(shown, len(found_all)):
        write_line(line)
    return 0


def table(shown: Sequence[Receipt], total: int) -> list[str]:
    """The receipts as a table a person reads, with a line saying what was left out."""
    from pi_memory.inject.terminal import visible

    if not shown:
        return ["no receipts (the hooks and jobs write one each time they do something)"]
    head = f"{'time':<19}  {'host':<11}  {'session':<8}  {'what':<16}  {'outcome':<7}  "
    lines = [head + f"{'memories':>8}  {'prompt':>13}  {'spent':>6}  {'ms':>6}  note"]
    for r in shown:
        prompt = f"{r.bytes} B ~{r.tokens} t" if r.bytes else "-"
        what = f"{r.kind} {r.event}"
        lines.append(
            visible(
                f"{r.at[:19].replace('T', ' '):<19}  {r.host[:11]:<11}  {r.session[:8]:<8}  "
                f"{what[:16]:<16}  {r.outcome[:7]:<7}  {len(r.ids):>8}  {prompt:>13}  "
                f"{r.spent or '-':>6}  {r.ms:>6}  {r.note}"
            )
        )
    if total > len(shown):
        lines.append(f"({total - len(shown)} older receipts not shown; --limit 0 shows all)")
    return lines
