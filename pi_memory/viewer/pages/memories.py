"""The memories: ``search``'s modes and ranking, with filters by layer, type, staleness
and status, ten a page (``search``'s pages)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pi_memory.named_tuple import NamedTuple
from pi_memory.viewer.html import empty, esc, link, notice, page, url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.entry import Entry
    from pi_memory.retrieval import Hit, SearchResult
    from pi_memory.store import Store
    from pi_memory.viewer.app import App
    from pi_memory.viewer.routing import Request, Response

#: The body shown in the list, in characters (the memory's page shows all of it).
BODY_CHARS: Final = 240
STALE_CHOICES: Final = (("", "any age"), ("only", "stale only"), ("hide", "not stale"))
STATUS_CHOICES: Final = (
    ("", "live and superseded"),
    ("live", "live"),
    ("superseded", "superseded"),
)
#: Memories whose anchored code changed since (``search --suspect``).
SUSPECT_CHOICES: Final = (("", "any code"), ("only", "suspect only"))


class Filters(NamedTuple):
    layer: str
    type: str
    stale: str
    status: str
    suspect: str = ""

    @property
    def any(self) -> bool:
        return any(self)


def filters_of(request: Request) -> Filters:
    from pi_memory.entry import LAYERS

    layer = request.arg("layer")
    stale = request.arg("stale")
    status = request.arg("status")
    return Filters(
        layer if layer in LAYERS else "",
        request.arg("type"),
        stale if stale in ("only", "hide") else "",
        status if status in ("live", "superseded") else "",
        "only" if request.arg("suspect") == "only" else "",
    )


def find(store: Store, query: str, mode: str, page: int, wanted: Filters) -> SearchResult:
    """``search``'s answer; with filters, its ranking over the memories that pass them."""
    from pi_memory.retrieval import search

    now = datetime.now()
    if not wanted.any:
        return store.search(query, mode=mode, page=page, now=now, credit=False)
    months = store.settings.review_months
    suspects = store.suspects()
    chosen = [
        e
        for e in store.read_all()
        if _passes(e, wanted, now, months) and (not wanted.suspect or e.id in suspects)
    ]
    result = search(
        chosen, query, mode=mode, page=page, now=now, review_months=months, suspect=suspects
    )
    return result._replace(notes=store.notes(), foreign=store.foreign())


def answer(app: App, query: str, mode: str, page: int, wanted: Filters) -> SearchResult:
    """:func:`find`, remembered while the store does not change (paging back, reloading)."""
    key = f"search:{(query, mode, page, tuple(wanted))!r}"
    return app.memo(key, lambda: find(app.store(), query, mode, page, wanted))


def warm(
    app: App, query: str = "", mode: str = "keyword", page: int = 1, wanted: Filters | None = None
) -> None:
    """Work out a page of the list in the background, so that opening it costs nothing on
    a large store: the overview warms the first page, each page the next."""
    chosen = wanted or Filters("", "", "", "")

    def work() -> SearchResult:
        with app.busy:
            return answer(app, query, mode, page, chosen)

    app.later(f"warm:{(query, mode, page, tuple(chosen))!r}", work)


def _passes(entry: Entry, wanted: Filters, now: datetime, months: int) -> bool:
    from pi_memory.staleness import stale_label

    if wanted.layer and entry.layer != wanted.layer:
        return False
    if wanted.type and entry.type != wanted.type:
        return False
    if wanted.status and entry.live != (wanted.status == "live"):
        return False
    if wanted.stale:
        stale = entry.live and stale_label(entry, now, months) is not None
        return stale == (wanted.stale == "only")
    return True


def render(request: Request) -> Response:
    from pi_memory.retrieval import MODES

    app = request.app
    query = request.arg("q")
    mode = request.arg("mode", "keyword")
    mode = mode if mode in MODES else "keyword"
    number = request.arg("page", "1")
    page_no = int(number) if number.isdigit() and int(number) > 0 else 1
    wanted = filters_of(request)
    result = answer(app, query, mode, page_no, wanted)
    body = _search_form(app, query, mode, wanted, _types(app))
    body += "".join(notice(n, "warn") for n in result.notes)
    body += _summary(result)
    if result.hits:
        items = "".join(_item(app, hit, result.suspect.get(hit.entry.id)) for hit in result.hits)
        body += f'<ol class="memories">{items}</ol>'
    else:
        body += empty("No memories match." if query or wanted.any else "No memories yet.")
    body += _pager(app, result, query, mode, wanted)
    if result.page < result.pages:
        warm(app, query, mode, result.page + 1, wanted)
    return page(app, "Memories", "/memories", body)


def _types(app: App) -> list[str]:
    store = app.store()
    return app.memo("types", lambda: sorted({e.type for e in store.read_all() if e.type}))


def _options(choices: Sequence[tuple[str, str]], chosen: str) -> str:
    return "".join(
        f'<option value="{esc(v)}"'
        + (" selected" if v == chosen else "")
        + f">{esc(label)}</option>"
        for v, label in choices
    )


def _search_form(app: App, query: str, mode: str, wanted: Filters, types: list[str]) -> str:
    from pi_memory.retrieval import MODES

    layers = (("", "both layers"), ("user", "global"), ("project", "project"))
    type_choices = [("", "any type"), *((t, t) for t in types)]
    return (
        f'<form class="search" method="get" action="/memories" role="search">'
        f'<input type="hidden" name="t" value="{esc(app.token)}">'
        f'<input type="search" name="q" value="{esc(query)}" aria-label="search" autofocus'
        ' placeholder="words, a keyword or an id">'
        + _select("mode", [(m, m) for m in MODES], mode)
        + _select("layer", layers, wanted.layer)
        + (_select("type", type_choices, wanted.type) if types else "")
        + _select("stale", STALE_CHOICES, wanted.stale, "age")
        + _select("status", STATUS_CHOICES, wanted.status)
        + _select("suspect", SUSPECT_CHOICES, wanted.suspect, "anchors")
        + '<button class="primary" type="submit">Search</button></form>'
    )


def _select(name: str, choices: Sequence[tuple[str, str]], chosen: str, label: str = "") -> str:
    return (
        f'<label>{esc(label or name)} <select name="{esc(name)}">'
        f"{_options(choices, chosen)}</select></label>"
    )


def _summary(result: SearchResult) -> str:
    what = {
        "keyword": "best match first",
        "tag": "filed under this keyword",
        "recent": "newest first",
        "all": "matches first, then the newest",
        "id": "by id",
    }.get(result.mode, result.mode)
    from pi_memory.text import counted

    text = f"{counted(result.total, 'memory', 'memories')} · {what}"
    if result.fallback:
        text = f"nothing matched: the newest of {result.total:,} memories"
    return f'<p class="summary" data-total="{result.total}">{esc(text)}</p>'


def _item(app: App, hit: Hit, suspect: str | None) -> str:
    entry = hit.entry
    body = " ".join(entry.body.split())
    if len(body) > BODY_CHARS:
        body = body[: BODY_CHARS - 1] + "…"
    badges = [
        f'<span class="badge layer">{esc("global" if entry.layer == "user" else "project")}</span>'
    ]
    badges.append(f'<span class="badge kw">#{esc(entry.keyword)}</span>')
    if entry.type:
        badges.append(f'<span class="badge">{esc(entry.type)}</span>')
    if not entry.live:
        badges.append(f'<span class="badge old">superseded by {esc(entry.superseded_by)}</span>')
    elif hit.stale:
        badges.append('<span class="badge stale">stale</span>')
    if suspect:
        badges.append(f'<span class="badge stale" title="{esc(suspect)}">suspect</span>')
    title = entry.name or entry.id
    return (
        f'<li class="memory{"" if entry.live else " superseded"}" data-id="{esc(entry.id)}">'
        f'<div class="head">{link(app, title, "/memory", layer=entry.layer, id=entry.id)}'
        f' <span class="meta">{esc(entry.time)}</span> {"".join(badges)}</div>'
        f'<p class="body">{esc(body)}</p></li>'
    )


def _pager(app: App, result: SearchResult, query: str, mode: str, wanted: Filters) -> str:
    if result.pages <= 1:
        return ""
    params = {"q": query, "mode": mode, **wanted._asdict()}
    parts = []
    if result.page > 1:
        before = url(app, "/memories", **params, page=result.page - 1)
        parts.append(f'<a rel="prev" href="{esc(before)}">← before</a>')
    parts.append(f"<span>page {result.page:,} of {result.pages:,}</span>")
    if result.page < result.pages:
        after = url(app, "/memories", **params, page=result.page + 1)
        parts.append(f'<a rel="next" href="{esc(after)}">next →</a>')
    return f'<nav class="pager">{" ".join(parts)}</nav>'
