"""``inbox``: the proposals the background review staged (``extractMemories.approval: inbox``).

``inbox`` (or ``inbox list``) lists them, ``inbox show ID`` shows one with the
transcript messages it came from, ``inbox accept ID`` makes it a memory
(``--text``, ``--keyword``, ``--layer``… change it first; ``--text -`` reads the
text from stdin) and ``inbox reject ID`` drops it for good. The engine is
:mod:`pi_memory.inbox`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from pi_memory.inbox import Item

USAGE = "usage: python -m pi_memory inbox [list | show ID | accept ID | reject ID]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    listed = actions.add_parser("list", help="the staged proposals, oldest first (the default)")
    listed.add_argument("--json", action="store_true", help="print one JSON object")
    shown = actions.add_parser("show", help="one proposal with the messages it came from")
    shown.add_argument("id", metavar="ID", help="the proposal's id (or its first characters)")
    shown.add_argument("--json", action="store_true", help="print one JSON object")
    accept = actions.add_parser("accept", help="make the proposal a memory, edited or as it is")
    accept.add_argument("id", metavar="ID", help="the proposal's id (or its first characters)")
    accept.add_argument("--text", help="the memory's text instead ('-' reads stdin)")
    accept.add_argument("--keyword", help="its keyword (the files layout: its name) instead")
    accept.add_argument("--layer", help="user|project instead")
    accept.add_argument("--file", help="the category file instead (categories layout)")
    accept.add_argument("--description", help="its one-line description (files layout)")
    accept.add_argument("--type", help="its type (files layout)")
    accept.add_argument("--json", action="store_true", help="print one JSON object")
    reject = actions.add_parser("reject", help="drop the proposal; it is not proposed again")
    reject.add_argument("id", metavar="ID", help="the proposal's id (or its first characters)")
    reject.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from pi_memory import inbox
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line

    store = open_store().store
    action = args.action or "list"
    if action == "list":
        if not args.json:
            for refused in store.refused_notes():
                write_line(f"note: {refused}")
        return _list(inbox.pending(store), args.json)
    if action == "show":
        item = inbox.find(store, args.id)
        _print(item_json(item) if args.json else None, describe(item, messages=True))
        return 0
    if action == "reject":
        item = inbox.reject(store, args.id)
        _print(item_json(item) if args.json else None, f"rejected {item.id}: not proposed again")
        return 0
    from datetime import datetime

    done = inbox.accept(store, args.id, _edits(args), now=datetime.now())
    if args.json:
        _print({**item_json(done.item), "memory": done.memory, "deduped": done.deduped}, "")
    else:
        again = " (it was there already)" if done.deduped else ""
        write_line(f"accepted {done.item.id}: {done.written.layer} memory {done.memory}{again}")
        if done.note:
            write_line(f"note: {done.note}")
    return 0


def _edits(args: argparse.Namespace) -> Any:
    from pi_memory.inbox import Edits
    from pi_memory.utf8 import read_stdin

    text = read_stdin() if args.text == "-" else args.text
    return Edits(text, args.keyword, args.layer, args.file, args.description, args.type)


def _list(items: list[Item], as_json: bool) -> int:
    from pi_memory.output import write_line

    if as_json:
        _print({"items": [item_json(item) for item in items]}, "")
        return 0
    if not items:
        write_line("The inbox is empty.")
        return 0
    write_line(f"{len(items)} {'proposal waits' if len(items) == 1 else 'proposals wait'}:")
    for item in items:
        write_line(describe(item, messages=False))
    write_line("accept: python -m pi_memory inbox accept ID · reject: … inbox reject ID")
    return 0


def describe(item: Item, *, messages: bool) -> str:
    """One proposal for a person: id, layer, what it would do, its text."""
    p = item.proposal
    where = f"{p.layer}/{p.file}" if p.file else p.layer
    verb = "" if p.action == "write" else f"{p.action} "
    lines = [f"{item.id}  {item.created}  {where}  {verb}#{p.keyword}"]
    if p.text:
        lines.extend(f"    {line}" for line in p.text.splitlines() or [""])
    if p.supersedes:
        lines.append(f"    supersedes: {', '.join(p.supersedes)}")
    if messages:
        s = item.source
        lines.append(f"  from {s.job} of session {s.session or '?'} ({s.transcript or '?'}):")
        lines.extend(f"    [{m.position}] {m.role}: {m.text}" for m in s.messages)
    return "\n".join(lines)


def item_json(item: Item) -> dict[str, Any]:
    import json

    from pi_memory.inbox import render_item

    parsed: dict[str, Any] = json.loads(render_item(item))
    return parsed


def _print(data: dict[str, Any] | None, text: str) -> None:
    from pi_memory.output import write_line

    if data is not None:
        import json

        write_line(json.dumps(data))  # ASCII: lossless on any terminal or pipe
    elif text:
        write_line(text)
