"""HTML for the viewer's pages: escaping, links that carry the token, forms, the frame.

Every stored text reaches a page through :func:`esc`: HTML-escaped, with each
character that would act on what a person reads (a bidi override, a
zero-width character, a control character) spelled out as the terminal output
does (:func:`pi_memory.inject.terminal.visible`), so a memory holding
``<script>`` or U+202E shows as exactly those characters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import urlencode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.viewer.app import App
    from pi_memory.viewer.routing import Response

#: The navigation: (path, label).
NAV: Final = (
    ("/", "Overview"),
    ("/memories", "Memories"),
    ("/inbox", "Inbox"),
    ("/sessions", "Sessions"),
    ("/spend", "Spend"),
)


def esc(text: object) -> str:
    """``text`` safe inside HTML text or a quoted attribute, invisible characters spelled out."""
    import html

    from pi_memory.inject.terminal import visible

    return html.escape(visible(str(text)), quote=True)


def url(app: App, path: str, **params: object) -> str:
    """A link inside the viewer: ``path`` with ``params`` and the token."""
    pairs = [(k, str(v)) for k, v in params.items() if v is not None and v != ""]
    return f"{path}?{urlencode([*pairs, ('t', app.token)])}"


def link(app: App, text: str, path: str, **params: object) -> str:
    return f'<a href="{esc(url(app, path, **params))}">{esc(text)}</a>'


def form(
    app: App,
    action: str,
    csrf: str,
    fields: Iterable[str],
    *,
    button: str,
    danger: bool = False,
    confirm: str = "",
) -> str:
    """A POST form to ``action`` with the token and the page's CSRF token."""
    extra = f' data-confirm="{esc(confirm)}"' if confirm else ""
    kind = "danger" if danger else "primary"
    return (
        f'<form method="post" action="{esc(url(app, action))}"{extra}>'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        + "".join(fields)
        + f'<button class="{kind}" type="submit">{esc(button)}</button></form>'
    )


def hidden(name: str, value: object) -> str:
    return f'<input type="hidden" name="{esc(name)}" value="{esc(value)}">'


def table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    """A table of cells already in HTML (escape what goes in)."""
    attr = f' class="{cls}"' if cls else ""
    heads = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table{attr}><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>"


def empty(text: str) -> str:
    return f'<p class="empty">{esc(text)}</p>'


def notice(text: str, kind: str = "info") -> str:
    return f'<p class="notice {esc(kind)}" role="status">{esc(text)}</p>'


def page(
    app: App, title: str, active: str, body: str, *, status: int = 200, refresh: int = 0
) -> Response:
    """A whole page: head, navigation, ``body`` (HTML), the script that only improves it;
    ``refresh``: seconds after which the browser loads the page again (0: never)."""
    from pi_memory.viewer.routing import Response

    nav = "".join(
        f'<a href="{esc(url(app, path))}"'
        + (' aria-current="page"' if path == active else "")
        + f">{esc(label)}</a>"
        for path, label in NAV
    )
    again = f'\n<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
    text = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">{again}
<title>{esc(title)} · pi_memory</title>
<link rel="stylesheet" href="{esc(url(app, "/static/style.css"))}">
</head><body>
<header><a class="brand" href="{esc(url(app, "/"))}">pi_memory</a>
<nav>{nav}</nav><span class="project" title="{esc(app.project)}">{esc(app.project.name)}</span>
</header>
<main><h1>{esc(title)}</h1>
{body}
</main>
<script src="{esc(url(app, "/static/app.js"))}" defer></script>
</body></html>
"""
    return Response(status, text.encode("utf-8"), "text/html; charset=utf-8")
