"""One JSON POST over HTTP(S) with bounded retries: the only module that opens a socket.

Certificates are verified (the default SSL context); ``http://`` is refused for
any host but loopback unless the provider allows it; redirects are never
followed (a key must not travel to a host the user did not name); 429, 5xx and
connection errors are retried with a doubling pause that ``Retry-After``
overrides, within both a retry count and the caller's deadline.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from pi_memory.model.errors import ModelUnavailable
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    import urllib.request
    from email.message import Message as Headers
    from typing import Final

#: A reply larger than this is not a chat completion.
MAX_BODY: Final = 32 * 1024 * 1024
#: The longest pause a server may ask for before we give up instead of waiting.
MAX_RETRY_AFTER: Final = 60.0


class Policy(NamedTuple):
    #: Retries after the first attempt.
    retries: int = 3
    #: The first pause in seconds; doubled after each retry.
    backoff: float = 1.0
    allow_insecure_http: bool = False


class Response(NamedTuple):
    status: int
    body: bytes


def is_loopback(host: str) -> bool:
    import ipaddress

    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_url(url: str, allow_insecure_http: bool) -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and parts.hostname:
        if allow_insecure_http or is_loopback(parts.hostname):
            return
        raise ModelUnavailable(
            f"refusing plain http:// to {parts.hostname}: use https, or set "
            '"allowInsecureHttp": true for this provider in memory.json'
        )
    raise ModelUnavailable(f"the provider's baseUrl is not an http(s) URL: {url!r}")


def post_json(
    url: str,
    headers: Mapping[str, str],
    body: bytes | None,
    *,
    deadline: float,
    policy: Policy,
) -> Response:
    """POST ``body`` (GET when None); the final response (2xx or a non-retryable error),
    or ModelUnavailable.

    ``deadline`` is a ``time.monotonic()`` value that no attempt or pause passes.
    """
    import urllib.request
    from urllib.parse import urlsplit

    check_url(url, policy.allow_insecure_http)
    parts = urlsplit(url)
    opener = _opener(is_loopback(parts.hostname or ""), parts.scheme == "https")
    attempt = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ModelUnavailable("no answer before the job's deadline")
        # check_url above admits only http(s) URLs.
        method = "GET" if body is None else "POST"
        request = urllib.request.Request(url, data=body, headers=dict(headers), method=method)  # noqa: S310
        status, payload, retry_after, failure = _attempt(opener, request, remaining)
        if failure is None and not _retryable(status):
            return Response(status, payload)
        what = failure or f"HTTP {status}"
        if attempt >= policy.retries:
            tries = "once" if attempt == 0 else f"{attempt + 1} times"
            raise ModelUnavailable(f"{what} (tried {tries})")
        pause = retry_after if retry_after is not None else policy.backoff * (2**attempt)
        if pause > MAX_RETRY_AFTER or time.monotonic() + pause >= deadline:
            raise ModelUnavailable(f"{what}; retrying would pass the job's deadline")
        time.sleep(pause)
        attempt += 1


def _retryable(status: int) -> bool:
    return status in (408, 409, 425, 429) or status >= 500


def _attempt(
    opener: urllib.request.OpenerDirector, request: urllib.request.Request, timeout: float
) -> tuple[int, bytes, float | None, str | None]:
    """(status, body, Retry-After seconds, connection failure or None)."""
    import http.client
    import socket
    import urllib.error

    try:
        with opener.open(request, timeout=timeout) as response:
            return response.status, _read(response), None, None
    except urllib.error.HTTPError as err:
        try:
            payload = _read(err)
        except (OSError, http.client.HTTPException):
            payload = b""
        return err.code, payload, _retry_after(err.headers), None
    except (socket.timeout, TimeoutError):
        return 0, b"", None, f"no answer within {timeout:.0f} s"
    except urllib.error.URLError as err:
        reason = err.reason
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return 0, b"", None, f"no answer within {timeout:.0f} s"
        if type(reason).__module__ == "ssl":  # a certificate does not change on a retry
            raise ModelUnavailable(f"TLS failed ({_describe(reason)})") from None
        return 0, b"", None, f"connection failed ({_describe(reason)})"
    except (OSError, http.client.HTTPException) as err:
        return 0, b"", None, f"connection failed ({_describe(err)})"


def _describe(reason: object) -> str:
    verify = getattr(reason, "verify_message", None)
    if isinstance(verify, str) and verify:
        return f"certificate verify failed: {verify}"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return type(reason).__name__ if isinstance(reason, BaseException) else str(reason)


def _read(response: object) -> bytes:
    data: bytes = response.read(MAX_BODY + 1)  # type: ignore[attr-defined]  # a file-like reply
    if len(data) > MAX_BODY:
        raise ModelUnavailable("the reply is larger than any chat completion")
    return data


def _retry_after(headers: Headers | None) -> float | None:
    """``Retry-After`` in seconds (a number or an HTTP date), else None."""
    value = headers.get("Retry-After") if headers is not None else None
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    import datetime as dt

    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, (when - dt.datetime.now(dt.timezone.utc)).total_seconds())


def _opener(loopback: bool, secure: bool) -> urllib.request.OpenerDirector:
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    handlers: list[urllib.request.BaseHandler] = [NoRedirect()]
    if secure:  # the default context verifies the certificate and the host name
        import ssl

        handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context()))
    if loopback:  # a proxy from the environment must never see a loopback call
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)
