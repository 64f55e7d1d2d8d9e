"""Sessions: a timeline per host of what the memory did in each session (injected,
surfaced, scheduled, learned: the receipts), and a search of past conversations
(``sessions search``)."""

from __future__ import annotations

from collections.abc import Sequence

from pi_memory.viewer.html import empty, esc, notice, page

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.receipts import Receipt
    from pi_memory.viewer.app import App
    from pi_memory.viewer.routing import Request, Response

#: Sessions listed per search, and how long a search may read transcripts.
LIMIT: Final = 20
BUDGET_S: Final = 5.0
#: Sessions shown per host in the timeline, newest first.
SESSIONS_PER_HOST: Final = 12


def render(request: Request) -> Response:
    app = request.app
    query = request.arg("q").strip()
    body = _timeline(app)
    body += (
        '<section class="card"><h2>Past conversations</h2>'
        '<form class="search" method="get" action="/sessions" role="search">'
        f'<input type="hidden" name="t" value="{esc(app.token)}">'
        f'<input type="search" name="q" value="{esc(query)}" placeholder="words said in a session"'
        ' aria-label="search sessions"><button class="primary" type="submit">Search</button></form>'
    )
    if query:
        body += _results(query)
    body += "</section>"
    return page(app, "Sessions", "/sessions", body)


def _timeline(app: App) -> str:
    from pi_memory import receipts

    found = receipts.read()
    if not found:
        return (
            '<section class="card"><h2>Timeline</h2>'
            + empty("No receipts yet: a session's hooks record what they inject and surface.")
            + "</section>"
        )
    by_host: dict[str, dict[str, list[Receipt]]] = {}
    for receipt in reversed(found):  # newest first
        sessions = by_host.setdefault(receipt.host or "background", {})
        sessions.setdefault(receipt.session, []).append(receipt)
    return "".join(_host(app, host, sessions) for host, sessions in sorted(by_host.items()))


def _host(app: App, host: str, sessions: dict[str, list[Receipt]]) -> str:
    from pi_memory.receipts import summarise

    items = []
    for session, done in list(sessions.items())[:SESSIONS_PER_HOST]:
        total = summarise(done)
        head = (
            f"<strong>{esc(done[-1].at[:16].replace('T', ' '))}</strong> "
            f'<span class="meta">session {esc(session[:12] or "?")} · '
            f"{total.injected} injected · {total.recalled} surfaced · "
            f"{total.learned} learned</span>"
        )
        items.append(f"<li>{head}{_events(app, done)}</li>")
    more = len(sessions) - SESSIONS_PER_HOST
    tail = f'<p class="meta">… and {more} earlier sessions</p>' if more > 0 else ""
    return (
        f'<section class="card" data-host="{esc(host)}"><h2>{esc(host)}</h2>'
        f'<ul class="timeline">{"".join(items)}</ul>{tail}</section>'
    )


def _events(app: App, done: Sequence[Receipt]) -> str:
    from pi_memory.viewer.receipts_view import ids, what

    lines = [
        f'<li><span class="meta">{esc(r.at[11:16])}</span> {esc(what(r))} {ids(app, r)}</li>'
        for r in reversed(done)
    ]
    return f'<ul class="events">{"".join(lines)}</ul>'


def _results(query: str) -> str:
    from pi_memory.hosts.registry import NAMES
    from pi_memory.transcripts.session_search import search_sessions

    result = search_sessions(query, hosts=NAMES, limit=LIMIT, budget_s=BUDGET_S)
    out = notice(f"Stopped early: {result.stopped}", "warn") if result.stopped else ""
    if not result.hits:
        return out + empty(f"No session holds every word ({result.scanned} looked at).")
    items = "".join(
        f'<li><strong>{esc(hit.host)}</strong> <span class="meta">{esc(hit.date)} · '
        f"{esc(hit.project)}</span><br>{esc(hit.snippet)}"
        f'<br><code class="path">{esc(hit.path)}</code></li>'
        for hit in result.hits
    )
    return out + f'<ul class="timeline">{items}</ul>'
