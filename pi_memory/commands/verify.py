"""``verify``: which project memories are suspect, and confirming one (anchoring it again).

A project memory is anchored to the repository paths and code names it mentions
(:mod:`pi_memory.anchors`); once one of those files changed in a commit since, the
memory is *suspect*. ``verify`` runs the check now and lists the suspect ones;
``verify ID`` anchors a memory to the code as it is now, after a person or an
agent read the code and found the memory still true (correct it with
``write --supersedes ID`` otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from pi_memory.anchors.project import Found
    from pi_memory.anchors.verdict import Verdict
    from pi_memory.store import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="a project memory confirmed still true: anchor it again to the code as it is now",
    )


def run(args: argparse.Namespace) -> int:
    from pi_memory.open_store import open_store

    store = open_store().store
    return run_verify(store, args.ids, as_json=args.json)


def run_verify(store: Store, ids: Sequence[str], *, as_json: bool) -> int:
    import time
    from datetime import datetime

    from pi_memory.anchors.cache import refresh
    from pi_memory.entry import PROJECT
    from pi_memory.errors import UsageError

    root = store.settings.project_root
    if root is None or PROJECT in store.settings.unavailable:
        reason = store.settings.unavailable.get(PROJECT, "there is no project here")
        raise UsageError(f"no project memories to verify: {reason}")
    anchored = {memory_id: store.anchor(memory_id, datetime.now()) for memory_id in ids}
    verdicts = refresh(store.directory(PROJECT), root, time.time())
    _say(store, anchored, verdicts, as_json)
    return 0


def _say(
    store: Store,
    anchored: Mapping[str, Found | None],
    verdicts: Mapping[str, Verdict],
    as_json: bool,
) -> None:
    from pi_memory.anchors.verdict import SUSPECT
    from pi_memory.entry import PROJECT
    from pi_memory.output import write_line

    live = {e.id: e for e in store.read(PROJECT) if e.live}
    suspect = {k: v.reason for k, v in verdicts.items() if v.state == SUSPECT and k in live}
    if as_json:
        import json

        data = {
            "anchored": {k: _what(found) for k, found in anchored.items()},
            "checked": sum(1 for k in verdicts if k in live),
            "suspect": suspect,
            "verdicts": {k: v._asdict() for k, v in sorted(verdicts.items()) if k in live},
        }
        write_line(json.dumps(data))
        return
    for memory_id, found in anchored.items():
        write_line(f"[{memory_id}] anchored to {_what(found) or 'nothing (judged by time alone)'}")
    checked = sum(1 for k in verdicts if k in live)
    write_line(f"{checked} anchored project memories checked, {len(suspect)} suspect")
    for memory_id, reason in suspect.items():
        entry = live[memory_id]
        write_line(f"  [{memory_id}] {entry.name or '#' + entry.keyword}: {reason}")


def _what(found: Found | None) -> str:
    """``src/deploy.py, deploy_all (src/deploy.py)``: what a memory is anchored to."""
    if found is None:
        return ""
    parts = [path for path, _ in found.paths]
    parts += [f"{name} ({path})" for name, path, _ in found.names]
    return ", ".join(parts)
