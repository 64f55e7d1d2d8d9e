"""``write``: store one memory (pi-memory-auto's ``memory_write``)."""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Final

    from pi_memory.store import WriteOutcome


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--layer", default="project", help="user|project (default: project)")
    parser.add_argument("--file", help="category file, e.g. DECISIONS.md (categories layout)")
    parser.add_argument(
        "--keyword",
        action="append",
        default=[],
        required=True,
        help="the memory's one keyword (extras are ignored)",
    )
    parser.add_argument(
        "--supersedes",
        action="append",
        default=[],
        metavar="ID",
        help="id of a memory this one replaces (repeatable)",
    )
    parser.add_argument("--src", default="user", help="who wrote it (default: user)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("body", nargs="+", metavar="BODY", help="the memory text ('-' reads stdin)")


#: The options :func:`plain_options` reads: each takes a value, and the repeatable ones
#: gather theirs in a list.
_VALUED: Final = {"--layer": "layer", "--file": "file", "--src": "src"}
_REPEATED: Final = {"--keyword": "keyword", "--supersedes": "supersedes"}


def plain_options(args: list[str]) -> argparse.Namespace | None:
    """What argparse reads from a plain ``write`` line, without importing it: the options
    spelled out in full, each value its own word not starting with ``-``, all before the
    body's words, none of which starts with ``-``; ``None`` for any other line (argparse
    reads it, and says what is wrong with it)."""
    from types import SimpleNamespace

    found: dict[str, object] = {
        "layer": "project", "file": None, "src": "user", "json": False,
    }  # fmt: skip
    repeated: dict[str, list[str]] = {"keyword": [], "supersedes": []}
    at = 0
    while at < len(args) and args[at].startswith("-"):
        option = args[at]
        if option == "--json":
            found["json"] = True
            at += 1
            continue
        if option not in _VALUED and option not in _REPEATED:
            return None
        if at + 1 >= len(args) or args[at + 1].startswith("-"):
            return None
        value = args[at + 1]
        if option in _VALUED:
            found[_VALUED[option]] = value
        else:
            repeated[_REPEATED[option]].append(value)
        at += 2
    body = args[at:]
    if not body or not repeated["keyword"] or any(word.startswith("-") for word in body):
        return None
    found.update(repeated)
    return SimpleNamespace(**found, body=body)  # type: ignore[return-value]  # argparse's attributes


def write_json(outcome: WriteOutcome) -> dict[str, object]:
    e = outcome.entry
    return {
        "id": e.id,
        "layer": e.layer,
        "file": e.file,
        "deduped": outcome.deduped,
        "superseded": list(outcome.superseded),
        "dropped_keywords": outcome.dropped_keywords,
        "note": outcome.note or None,
    }


def run(args: argparse.Namespace) -> int:
    from pi_memory.naming.git_repo import remembered

    with remembered():  # the project's work tree looked up once, not at every step
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from datetime import datetime

    from pi_memory.agent_tools.memory_write import consolidate_if_due, describe_write
    from pi_memory.open_store import open_store
    from pi_memory.output import write_line
    from pi_memory.store import parse_layer
    from pi_memory.utf8 import read_stdin

    body: Sequence[str] = args.body
    text = read_stdin() if list(body) == ["-"] else " ".join(body)
    config, store, _, _ = open_store()
    outcome = store.write(
        parse_layer(args.layer),
        text,
        args.keyword,
        now=datetime.now(),
        file=args.file,
        supersedes=args.supersedes,
        src=args.src,
    )
    consolidate_if_due(store, config)
    if args.json:
        import json

        write_line(json.dumps(write_json(outcome)))  # ASCII: lossless on any terminal or pipe
    else:
        write_line(describe_write(outcome))
    from pi_memory.hosts.after_change import after_change

    after_change()  # the next session start here reads one note
    return 0
