"""``search``: find memories in both layers (pi-memory-auto's ``memory_search``)."""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from datetime import datetime

    from pi_memory.entry import Entry
    from pi_memory.retrieval import SearchResult
    from pi_memory.store import Store

MODES = """modes:
  keyword  (default) memories that contain any word of QUERY, best match first;
           when nothing matches, the newest memories are listed and marked so
  tag      memories filed under exactly this keyword (as the index shows it:
           '#deploy (2)' and 'deploy' both work)
  recent   the newest memories, QUERY ignored
  all      every memory, matches first and then the newest
  id       one memory by its id (YYYYMMDD-xxxx); an id-shaped QUERY does this in
           every mode
Superseded memories come last, outdated ones are labelled.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    import argparse

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = MODES
    parser.add_argument(
        "--mode",
        default="keyword",
        choices=("keyword", "tag", "recent", "all", "id"),
        help="how QUERY is matched (default: keyword; see below)",
    )
    parser.add_argument("--page", type=int, default=1, help="result page, 10 a page (default: 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--suspect",
        action="store_true",
        help="only the memories whose code changed since they were written (see verify)",
    )
    parser.add_argument("query", nargs="*", metavar="QUERY", help="words, a keyword or a memory id")


def words_only(words: list[str]) -> argparse.Namespace:
    """The arguments argparse gives a command line of QUERY words and no option (none
    starts with ``-``): each option's default. A search is typed often, and argparse
    costs more to import and build than the search it starts."""
    from types import SimpleNamespace

    found = SimpleNamespace(mode="keyword", page=1, json=False, suspect=False, query=words)
    return found  # type: ignore[return-value]  # argparse's attributes, without argparse


def search_json(result: SearchResult, max_body_bytes: int) -> dict[str, object]:
    """One page of results as JSON; each body at most ``max_body_bytes``, as in the text."""
    from pi_memory.memory_size import clipped

    return {
        "mode": result.mode,
        "query": result.query,
        "page": result.page,
        "pages": result.pages,
        "total": result.total,
        "fallback": result.fallback,
        "notes": list(result.notes),
        "results": [
            {
                "id": hit.entry.id,
                "layer": hit.entry.layer,
                "file": hit.entry.file,
                "keyword": hit.entry.keyword,
                "body": clipped(hit.entry.body, max_body_bytes, _whole_in(hit.entry)),
                "time": hit.entry.time,
                "last": hit.entry.last or None,
                "seen": hit.entry.seen,
                "src": hit.entry.src,
                "from_repository": hit.entry.id in result.foreign,
                "project": hit.entry.project,
                "stale": hit.stale,
                "suspect": result.suspect.get(hit.entry.id),
                "supersedes": list(hit.entry.supersedes),
                "superseded_by": hit.entry.superseded_by or None,
            }
            for hit in result.hits
        ],
    }


def _whole_in(entry: Entry) -> str:
    return f"the whole text is in {entry.layer}/{entry.file}"


def run(args: argparse.Namespace) -> int:
    from pi_memory.naming.git_repo import remembered

    with remembered():  # the project's work tree looked up once, not at every step
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from datetime import datetime

    from pi_memory.errors import UsageError
    from pi_memory.open_store import open_store
    from pi_memory.output import write, write_line
    from pi_memory.retrieval import render_search

    query: Sequence[str] = args.query
    if args.page < 1:
        raise UsageError("--page counts from 1")
    store = open_store().store
    credited = False  # a search of the suspect memories alone credits nothing
    if args.suspect:
        result = _suspect_only(store, " ".join(query), args.mode, args.page, datetime.now())
    else:
        result = store.search(
            " ".join(query), mode=args.mode, page=args.page, now=datetime.now(), credit=False
        )
        credited = store.credit(" ".join(query), result)
    limit = store.settings.max_body_bytes
    if args.json:
        import json

        # ASCII: lossless on any terminal or pipe.
        write_line(json.dumps(search_json(result, limit)))
    else:
        text = render_search(result, limit)
        write(text if text.endswith("\n") else text + "\n")
    if credited:  # else the search changed nothing the next start reads
        from pi_memory.hosts.after_change import after_change

        after_change()  # its recalls may reorder what the next start injects
    return 0


def _suspect_only(store: Store, query: str, mode: str, page: int, now: datetime) -> SearchResult:
    """``--suspect``: the search run over the suspect memories alone."""
    from pi_memory.retrieval import search

    suspects = store.suspects()
    entries = [e for e in store.read_all() if e.id in suspects]
    result = search(
        entries,
        query,
        mode=mode if query.strip() else "recent",
        page=page,
        now=now,
        review_months=store.settings.review_months,
        suspect=suspects,
    )
    return result._replace(notes=store.notes(), foreign=store.foreign())
