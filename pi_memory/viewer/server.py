"""The viewer's HTTP server: standard library, threaded, on the loopback interface.

Each request passes the gate (:mod:`pi_memory.viewer.security`) before any
page code runs; a refusal is a short plain-text answer with its status. Pages
never raise to the client: an unexpected error is a 500 with one line, and the
server goes on.
"""

from __future__ import annotations

import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from pi_memory.viewer import security
from pi_memory.viewer.app import App

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Final

    from pi_memory.viewer.routing import Response

#: Headers every answer carries: no framing, no sniffing, nothing from elsewhere.
SECURITY_HEADERS: Final = (
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
)


class Handler(BaseHTTPRequestHandler):
    server_version = "pi_memory-ui"
    app: App  # set on the subclass made by make_server

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def do_HEAD(self) -> None:
        self._send(_refusal(security.Refused(405, "method not allowed")), body=False)

    def log_message(self, format: str, *args: object) -> None:
        pass  # the terminal shows only the URL; nothing of the traffic

    def _answer(self, method: str) -> None:
        from pi_memory.viewer.routing import Request, plain, route

        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        try:
            security.check_token(query.get("t", ""), self.app.token)
            headers = {name: self.headers.get(name, "") for name in security.READ_HEADERS}
            headers = {k: v for k, v in headers.items() if k in self.headers}
            security.check_headers(headers, self.app.hosts, post=method == "POST")
            form: dict[str, str] = {}
            if method == "POST":
                form = self._form(headers)
                self.app.csrf.check(form.get("csrf", ""))
        except security.Refused as refused:
            self._send(_refusal(refused))
            return
        request = Request(self.app, method, parts.path, query, form)
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            response = route(request)
        except Exception as exc:  # a page's bug must not stop the server
            response = plain(500, f"the viewer failed on this page: {type(exc).__name__}: {exc}")
        spent = (time.perf_counter() - started) * 1000
        used = (time.thread_time() - cpu) * 1000
        self._send(response, timing=f"page;dur={spent:.1f}, cpu;dur={used:.1f}")

    def _form(self, headers: dict[str, str]) -> dict[str, str]:
        length = security.body_length(headers)
        kind = headers.get("Content-Type", "").split(";")[0].strip()
        if kind != "application/x-www-form-urlencoded":
            raise security.Refused(415, "a change is sent as a form")
        raw = self.rfile.read(length)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise security.Refused(400, "the form is not UTF-8") from None
        return dict(parse_qsl(text, keep_blank_values=True))

    def _send(self, response: Response, *, body: bool = True, timing: str = "") -> None:
        self.send_response(response.status)
        if timing:  # the time the page took in the server (a browser's dev tools show it)
            self.send_header("Server-Timing", timing)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        if response.location:
            self.send_header("Location", response.location)
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(response.body)


def _refusal(refused: security.Refused) -> Response:
    from pi_memory.viewer.routing import plain

    return plain(refused.status, refused.reason)


def make_server(project: Path, host: str, port: int, token: str) -> tuple[ThreadingHTTPServer, App]:
    """A server bound to ``host:port`` (0: a free port), not yet serving, and its state."""

    class Bound(Handler):
        pass

    server = ThreadingHTTPServer((host, port), Bound)
    server.daemon_threads = True
    bound = int(server.server_address[1])
    Bound.app = App(project, token, security.allowed_hosts(host, bound))
    return server, Bound.app


def address(server: ThreadingHTTPServer, token: str) -> str:
    """The URL a person opens: the server's address and the token."""
    host, port = server.server_address[:2]
    name = host.decode() if isinstance(host, bytes) else str(host)
    shown = f"[{name}]" if ":" in name else name
    return f"http://{shown}:{port}/?t={token}"


def load_every_module() -> None:
    """Import the whole package here, in the main thread, before any other thread runs.

    The pages and their background work import the engine lazily, as the hooks do; two
    threads importing the same modules at once can see one half made and fail (it was
    seen as "cannot import name 'CategoriesLayer'" when run from the zipapp). A server
    that lives for minutes can afford the import once, up front; the listening socket
    keeps the first requests waiting meanwhile.
    """
    import importlib
    import pkgutil

    import pi_memory

    for found in pkgutil.walk_packages(pi_memory.__path__, "pi_memory."):
        if found.name != "pi_memory.__main__":
            importlib.import_module(found.name)


def serve(
    project: Path,
    *,
    host: str,
    port: int,
    open_browser: bool,
    say: Callable[[str], None] = print,
) -> int:
    """Serve until interrupted; the URL is the first line said."""
    from pi_memory.viewer.pages.overview import prepare

    token = security.new_token()
    server, app = make_server(project, host, port, token)
    where = address(server, token)
    say(where)
    load_every_module()
    prepare(app)
    say(f"serving the memories of {project}; ^C stops")
    if open_browser:
        import webbrowser

        webbrowser.open(where)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print("stopped", file=sys.stderr)
    return 0
