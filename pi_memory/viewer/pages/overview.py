"""The overview: both layers (counts, health, lock), today's model spend, pending jobs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pi_memory.viewer.html import empty, esc, link, page, table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.commands.show import LayerView
    from pi_memory.jobs.records import JobRecord
    from pi_memory.viewer.app import App
    from pi_memory.viewer.routing import Request, Response

#: Pairs listed per layer and kind; the rest are counted.
SHOWN_PAIRS = 5


#: Seconds before a page still working out the health asks again (without JavaScript).
REFRESH_S = 3


def layer_views(app: App) -> list[LayerView] | None:
    """``show``'s view of each layer, worked out in the background once per state of the
    store (the detectors take seconds on 100,000 memories); None until it is ready."""
    from pi_memory.commands.show import layer_view
    from pi_memory.entry import LAYERS
    from pi_memory.open_store import open_store

    def work() -> list[LayerView]:
        store = open_store(app.project, warn=False).store  # a store of its own: a thread's
        return [layer_view(store, layer, datetime.now()) for layer in LAYERS]

    return app.later("views", work)


def prepare(app: App) -> None:
    """Start what the first pages need, in the background: the health, and the first page
    of the memories (the server calls this as it starts, before the browser asks)."""
    from pi_memory.viewer.pages.memories import warm

    layer_views(app)
    warm(app)


def render(request: Request) -> Response:
    from pi_memory.entry import LAYERS

    app = request.app
    views = layer_views(app)
    prepare(app)
    if views is None:
        cards = "".join(_counts_card(app, layer) for layer in LAYERS)
    else:
        cards = "".join(_layer_card(app, view) for view in views)
    body = f'<div class="cards">{cards}</div>'
    body += _spend_card(app) + _jobs_card(app)
    notes = app.store().notes()
    if notes:
        body += "<section><h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes)
        body += "</ul></section>"
    return page(app, "Overview", "/", body, refresh=REFRESH_S if views is None else 0)


def _counts_card(app: App, layer: str) -> str:
    """A layer's card while its health is worked out: what costs nothing to count."""
    from pi_memory.fs.lock import describe_status, read_lock_status

    store = app.store()
    entries = store.read(layer)
    live = sum(1 for e in entries if e.live)
    directory = store.directory(layer)
    facts = [
        ("memories", link(app, f"{live:,}", "/memories", layer=layer)),
        ("superseded", f"{len(entries) - live:,}"),
        ("lock", esc(describe_status(read_lock_status(directory)))),
    ]
    working = f'<p class="meta working">Working out the health of {len(entries):,} memories…</p>'
    return _card(layer, store.label(layer), directory, facts, working)


def _layer_card(app: App, view: LayerView) -> str:
    health = view.health
    live = sum(1 for e in view.entries if e.live)
    stale = sum(count for _, count in health.stale)
    facts = [
        ("memories", link(app, f"{live:,}", "/memories", layer=view.layer)),
        ("superseded", f"{health.superseded:,}"),
        ("keywords", f"{health.keywords:,}"),
        ("stale", link(app, f"{stale:,}", "/memories", layer=view.layer, stale="only")),
        ("near-duplicates", f"{len(health.merge_candidates):,}"),
        ("conflicts", f"{len(health.conflicts):,}"),
        ("lock", esc(view.lock) + (" (abandoned)" if view.abandoned else "")),
    ]
    extra = f'<p class="warn">{esc(view.refused)}</p>' if view.refused else ""
    extra += "".join(f'<p class="warn">{esc(u)}</p>' for u in health.unreadable[:5])
    removed = link(app, "removed memories", "/removed", layer=view.layer)
    tail = f'{extra}{_pairs(app, view)}<p class="more">{removed}</p>'
    return _card(view.layer, view.label, view.directory, facts, tail)


def _card(
    layer: str, label: str, directory: object, facts: list[tuple[str, str]], tail: str
) -> str:
    """One layer's card: its name, directory and facts (values already HTML), then ``tail``."""
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in facts)
    return (
        f'<section class="card" data-layer="{esc(layer)}"><h2>{esc(label)}</h2>'
        f'<p class="path">{esc(directory)}</p><dl class="facts">{rows}</dl>{tail}'
        "</section>"
    )


def _pairs(app: App, view: LayerView) -> str:
    """The near-duplicates and conflicts, each with a link to settle it."""
    entries = view.health.entries
    out = ""
    for kind, title, found in (
        ("merge", "Near-duplicates", [(p.a, p.b) for p in view.health.merge_candidates]),
        ("conflict", "Conflicts", [(p.older, p.newer) for p in view.health.conflicts]),
    ):
        if not found:
            continue
        items = "".join(
            "<li>"
            + link(
                app,
                _short(entries, a) + " ↔ " + _short(entries, b),
                "/pair",
                layer=view.layer,
                kind=kind,
                a=a,
                b=b,
            )
            + "</li>"
            for a, b in found[:SHOWN_PAIRS]
        )
        more = (
            f"<li>… and {len(found) - SHOWN_PAIRS:,} more</li>" if len(found) > SHOWN_PAIRS else ""
        )
        out += f'<h3>{esc(title)}</h3><ul class="pairs">{items}{more}</ul>'
    return out


def _short(entries: object, entry_id: str, limit: int = 48) -> str:
    from collections.abc import Mapping

    found = entries.get(entry_id) if isinstance(entries, Mapping) else None
    body = " ".join(str(found.body).split()) if found is not None else entry_id
    return body if len(body) <= limit else body[: limit - 1] + "…"


def _spend_card(app: App) -> str:
    from pi_memory.model import ledger
    from pi_memory.viewer.pages.spend import spend_days

    config = app.opened().config
    spend = ledger.spend(ledger.directory(config))
    cap = config.daily_token_cap
    today = spend.tokens_today()
    share = min(100, round(100 * today / cap)) if cap else 0
    bar = (
        f'<svg class="meter" viewBox="0 0 100 4" preserveAspectRatio="none" role="img" '
        f'aria-label="{share}% of the daily cap"><rect class="track" width="100" height="4"/>'
        f'<rect class="used" width="{share}" height="4"/></svg>'
        if cap
        else ""
    )
    limit = f"of the {cap:,} daily cap" if cap else "(no daily cap)"
    return (
        '<section class="card wide"><h2>Model spend today</h2>'
        f'<p class="big"><strong>{today:,}</strong> tokens {esc(limit)}</p>{bar}'
        f"{spend_days(config, last=14)}"
        f"<p>{spend.tokens_month():,} tokens this month · {link(app, 'per job', '/spend')}</p>"
        "</section>"
    )


def _jobs_card(app: App) -> str:
    rows = [
        (
            esc(r.kind),
            esc(r.layer or r.host),
            esc(r.cwd),
            esc(_when(r.created)),
            str(r.attempts),
            esc(r.error),
        )
        for r in pending_jobs()
    ]
    inner = (
        table(("job", "for", "directory", "recorded", "attempts", "last error"), rows)
        if rows
        else empty("No background job is waiting.")
    )
    return f'<section class="card wide"><h2>Pending jobs</h2>{inner}</section>'


def pending_jobs() -> Sequence[JobRecord]:
    from pi_memory.jobs.records import pending, sessions_with_jobs

    return [record for key in sessions_with_jobs() for record in pending(key)]


def _when(created: float) -> str:
    return datetime.fromtimestamp(created).strftime("%Y-%m-%d %H:%M") if created else ""
