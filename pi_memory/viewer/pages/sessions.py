"""Sessions: what each host's sessions were given and taught (from the receipts), and a
search of past conversations (``sessions search``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_memory.viewer.html import empty, esc, notice, page

if TYPE_CHECKING:
    from pi_memory.viewer.routing import Request, Response

#: Sessions listed per search, and how long a search may read transcripts.
LIMIT = 20
BUDGET_S = 5.0


def render(request: Request) -> Response:
    app = request.app
    query = request.arg("q").strip()
    body = (
        '<section class="card"><h2>Timeline</h2>'
        + empty(
            "No receipts: this version of pi_memory does not record what each session "
            "was given or learned."
        )
        + "</section>"
    )
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
