"""The viewer's gate: what every request must show before a page runs.

* the token printed with the URL, on every request (else 403);
* a ``Host`` the server answers to (a DNS-rebinding page names its own host);
* no foreign ``Origin`` (a cross-site request carries the page's origin), and a
  state change only from a same-origin page;
* a POST with a known per-page CSRF token and a body of bounded size.

Pure functions over the request's parts, and one small registry of CSRF tokens.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

#: The largest request body read, in bytes (a memory is far smaller).
MAX_BODY: Final = 64 * 1024
#: CSRF tokens remembered (one per page drawn); the oldest are forgotten first.
MAX_CSRF: Final = 4096
LOOPBACK: Final = ("127.0.0.1", "localhost", "[::1]")
#: The request headers the gate reads.
READ_HEADERS: Final = (
    "Host",
    "Origin",
    "Referer",
    "Sec-Fetch-Site",
    "Content-Length",
    "Content-Type",
)


class Refused(Exception):
    """A request the gate turns away: ``status`` and one line why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def new_token() -> str:
    return secrets.token_urlsafe(24)


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` values this server answers to: the loopback names, and ``host``."""
    names = {*LOOPBACK, f"[{host}]" if ":" in host else host}
    return frozenset(f"{name}:{port}" for name in names)


def origins(hosts: frozenset[str]) -> frozenset[str]:
    return frozenset(f"http://{host}" for host in hosts)


def check_token(given: str, token: str) -> None:
    if not given or not hmac.compare_digest(given.encode(), token.encode()):
        raise Refused(403, "a valid token is required: open the URL the ui command printed")


def check_headers(headers: Mapping[str, str], hosts: frozenset[str], *, post: bool) -> None:
    """``Host`` one of ``hosts``; ``Origin``, when sent, one of theirs; a POST from this site."""
    host = headers.get("Host", "")
    if host not in hosts:
        raise Refused(403, f"this server does not answer to Host {host!r}")
    origin = headers.get("Origin")
    if origin is not None and origin not in origins(hosts):
        raise Refused(403, "cross-site requests are refused")
    site = headers.get("Sec-Fetch-Site", "")
    if post and site not in ("", "same-origin", "none"):
        raise Refused(403, "cross-site requests are refused")
    if (
        post
        and origin is None
        and not headers.get("Referer", "").startswith(tuple(f"{o}/" for o in origins(hosts)))
    ):
        raise Refused(403, "a change must come from a page of this viewer (no Origin or Referer)")


def body_length(headers: Mapping[str, str]) -> int:
    """The POST body's declared length, within :data:`MAX_BODY`."""
    raw = headers.get("Content-Length")
    if raw is None or not raw.strip().isdigit():
        raise Refused(411, "a POST needs a Content-Length")
    length = int(raw)
    if length > MAX_BODY:
        raise Refused(413, f"the request body is over {MAX_BODY // 1024} KiB")
    return length


class CsrfTokens:
    """The tokens of the pages drawn so far: each form carries its page's token."""

    def __init__(self, limit: int = MAX_CSRF) -> None:
        self._issued: OrderedDict[str, None] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def issue(self) -> str:
        token = secrets.token_urlsafe(18)
        with self._lock:
            self._issued[token] = None
            while len(self._issued) > self._limit:
                self._issued.popitem(last=False)
        return token

    def check(self, given: str) -> None:
        with self._lock:
            known = bool(given) and given in self._issued
        if not known:
            raise Refused(403, "the form's CSRF token is missing or unknown: reload the page")
