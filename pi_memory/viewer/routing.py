"""Which code answers which request: the table of pages, actions and assets.

A page answers a GET and changes nothing; an action answers a POST, changes
the store through the engine and redirects to a page (303), or draws the page
again with why nothing was changed. Only the module of the page asked for is
imported.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Final

    from pi_memory.viewer.app import App

#: GET path → the module under ``pi_memory.viewer.pages`` that draws it (its ``render``).
PAGES: Final = {
    "/": "overview",
    "/memories": "memories",
    "/memory": "memory",
    "/removed": "removed",
    "/pair": "pair",
    "/inbox": "inbox",
    "/sessions": "sessions",
    "/spend": "spend",
}
#: POST path → (module, function) of the action.
ACTIONS: Final = {
    "/edit": ("memory", "edit"),
    "/supersede": ("memory", "supersede"),
    "/remove": ("memory", "remove"),
    "/restore": ("removed", "restore"),
    "/merge": ("pair", "merge"),
    "/resolve": ("pair", "resolve"),
    "/inbox/accept": ("inbox", "accept"),
    "/inbox/reject": ("inbox", "reject"),
}
#: Assets served from the package: name → content type.
STATIC: Final = {"style.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8"}


class Request(NamedTuple):
    app: App
    method: str
    path: str
    query: Mapping[str, str]
    form: Mapping[str, str]

    def arg(self, name: str, default: str = "") -> str:
        """A form field, else a query parameter, else ``default``."""
        return self.form.get(name) or self.query.get(name) or default


class Response(NamedTuple):
    status: int
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    #: Where a 303 sends the browser.
    location: str = ""


def redirect(location: str) -> Response:
    return Response(303, b"", "text/plain; charset=utf-8", location)


def plain(status: int, text: str) -> Response:
    return Response(status, (text + "\n").encode("utf-8"), "text/plain; charset=utf-8")


def route(request: Request) -> Response:
    if request.method == "GET" and request.path.startswith("/static/"):
        return _static(request.path[len("/static/") :])
    with request.app.busy:  # one page at a time reads or changes the store
        return _dispatch(request)


def _dispatch(request: Request) -> Response:
    import importlib

    if request.method == "GET" and request.path in PAGES:
        module = importlib.import_module(f"pi_memory.viewer.pages.{PAGES[request.path]}")
        draw: Callable[[Request], Response] = module.render
        return draw(request)
    if request.method == "POST" and request.path in ACTIONS:
        name, function = ACTIONS[request.path]
        module = importlib.import_module(f"pi_memory.viewer.pages.{name}")
        act: Callable[[Request], Response] = getattr(module, function)
        return act(request)
    if request.path in PAGES or request.path in ACTIONS:
        return plain(405, "method not allowed")
    return plain(404, "not found")


def _static(name: str) -> Response:
    import pkgutil

    if name not in STATIC:
        return plain(404, "not found")
    data = pkgutil.get_data("pi_memory.viewer", f"static/{name}")
    if data is None:
        return plain(404, "not found")
    return Response(200, data, STATIC[name])
