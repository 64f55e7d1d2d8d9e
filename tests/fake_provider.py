"""A model provider on 127.0.0.1 for the tests: both wire formats, scripted replies and faults.

A real HTTP server (``http.server`` in a thread, port 0) that answers
``POST /v1/chat/completions`` as OpenAI's Chat Completions and
``POST /v1/messages`` as Anthropic's Messages API do — status codes, error
bodies, ``Retry-After``, tool-call shapes, ``finish_reason`` / ``stop_reason``,
usage fields, and Anthropic's server-sent events when the request asks to
stream (the real ``claude`` CLI does). Every request is logged (method, path,
headers, body) so a test can compare what the client sent byte for byte.

Replies come from a queue, one per request, in order::

    fake.script(Say("hello"), Fail(500), Say(tool_calls=[("memory", {"action": "list"})]))

An empty queue answers with ``fake.default`` (a 500 unless a test sets one), so
an unexpected request fails loudly. Use it through the ``fake_provider``
fixture in ``conftest.py``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple, Union

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"


class Say(NamedTuple):
    """A successful reply: text and/or tool calls ``(name, arguments)``."""

    text: str = ""
    tool_calls: Sequence[tuple[str, Mapping[str, Any]]] = ()
    #: Overrides the stop: ``length`` (cut) or ``content_filter`` / ``refusal``; ``None`` = natural.
    stop: str | None = None
    #: The model declines: OpenAI's ``message.refusal``, Anthropic's ``stop_reason: refusal``.
    refusal: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None


class Fail(NamedTuple):
    """An HTTP error with the provider's own error body."""

    status: int
    retry_after: str | None = None
    message: str = ""


class Raw(NamedTuple):
    """Exactly these bytes, for malformed bodies."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    headers: Mapping[str, str] = {}


class Hang(NamedTuple):
    """Say nothing for ``seconds`` (the client should time out first), then ``then``."""

    seconds: float
    then: Say | Fail | None = None


class Trickle(NamedTuple):
    """Answer 200, then one byte every ``interval`` seconds for ``seconds``: no single read
    ever waits long enough to time out, so only a deadline on the whole call ends it."""

    seconds: float
    interval: float = 0.2


class Drop(NamedTuple):
    """Close the connection without any answer."""


Step = Union[Say, Fail, Raw, Hang, Trickle, Drop]


class Logged(NamedTuple):
    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


_OPENAI_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    502: ("server_error", None),
    503: ("server_error", None),
}
_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


class FakeProvider:
    """The server; ``url`` is ``http://127.0.0.1:<port>``."""

    def __init__(self, tls: tuple[Path, Path] | None = None) -> None:
        """``tls``: (certificate, key) files to serve HTTPS instead of HTTP."""
        self.requests: list[Logged] = []
        self.default: Step = Fail(500, message="the fake provider has no scripted reply left")
        #: What ``GET /v1/models`` lists.
        self.model_ids: list[str] = ["test-model", "other-model"]
        self._queue: list[Step] = []
        self._lock = threading.Lock()
        self._counter = 0
        handler = _handler(self)
        self._server = _Server(("127.0.0.1", 0), handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        if tls is not None:
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(tls[0]), str(tls[1]))
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
            self.url = f"https://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def openai_base(self) -> str:
        return self.url + "/v1"

    @property
    def anthropic_base(self) -> str:
        return self.url

    def script(self, *steps: Step) -> None:
        with self._lock:
            self._queue.extend(steps)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def next_step(self) -> Step:
        with self._lock:
            return self._queue.pop(0) if self._queue else self.default

    def next_id(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def posts(self) -> list[Logged]:
        return [r for r in self.requests if r.method == "POST"]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a timeout test) is expected; anything else is loud."""
        import sys

        error = sys.exc_info()[1]
        if not isinstance(error, (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def _handler(fake: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # the base's name
            pass

        def do_GET(self) -> None:
            self._log(b"")
            if self.path.split("?", 1)[0] != "/v1/models":
                self._json(404, {"error": {"message": "not found", "type": "not_found"}})
                return
            step = fake.next_step() if fake.pending else Say()
            if isinstance(step, Fail):
                self._fail("anthropic-version" in self.headers, step)
            elif "anthropic-version" in self.headers:
                ids = fake.model_ids
                data = [
                    {
                        "type": "model",
                        "id": i,
                        "display_name": i,
                        "created_at": "2026-11-01T00:00:00Z",
                    }
                    for i in ids
                ]
                first, last = (ids[0], ids[-1]) if ids else (None, None)
                self._json(
                    200, {"data": data, "has_more": False, "first_id": first, "last_id": last}
                )
            else:
                data = [
                    {"id": i, "object": "model", "created": 1764547200, "owned_by": "fake"}
                    for i in fake.model_ids
                ]
                self._json(200, {"object": "list", "data": data})

        def do_HEAD(self) -> None:
            self._log(b"")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            self._log(body)
            path = self.path.split("?", 1)[0]
            if path not in (OPENAI_PATH, ANTHROPIC_PATH):
                self._json(404, {"error": {"message": f"unknown path {path}", "type": "nf"}})
                return
            try:
                request = json.loads(body.decode("utf-8"))
            except ValueError:
                request = {}
            self._answer(path == ANTHROPIC_PATH, request, fake.next_step(), len(body))

        def _log(self, body: bytes) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            fake.requests.append(Logged(self.command, self.path, headers, body))

        def _answer(self, anthropic: bool, request: Any, step: Step, size: int) -> None:
            if isinstance(step, Hang):
                time.sleep(step.seconds)
                if step.then is None:
                    self.close_connection = True
                    return
                step = step.then
            if isinstance(step, Drop):
                self.close_connection = True
                return
            if isinstance(step, Trickle):
                self._trickle(step)
                return
            if isinstance(step, Raw):
                self._send(step.status, step.body, step.content_type, step.headers)
                return
            if isinstance(step, Fail):
                self._fail(anthropic, step)
                return
            model = str(request.get("model", "")) if isinstance(request, dict) else ""
            tokens_in = step.tokens_in if step.tokens_in is not None else max(1, size // 4)
            out_size = len(step.text) + len(json.dumps([list(c) for c in step.tool_calls]))
            tokens_out = step.tokens_out if step.tokens_out is not None else out_size // 4 + 1
            n = fake.next_id()
            if not anthropic:
                self._json(200, _openai_reply(step, model, n, tokens_in, tokens_out))
            elif isinstance(request, dict) and request.get("stream"):
                self._stream(_anthropic_reply(step, model, n, tokens_in, tokens_out))
            else:
                self._json(200, _anthropic_reply(step, model, n, tokens_in, tokens_out))

        def _trickle(self, step: Trickle) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(10**6))
            self.end_headers()
            end = time.monotonic() + step.seconds
            try:
                while time.monotonic() < end:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(step.interval)
            except OSError:
                pass  # the client gave up
            self.close_connection = True

        def _fail(self, anthropic: bool, step: Fail) -> None:
            headers = {}
            if step.retry_after is not None:
                headers["retry-after"] = step.retry_after
            if anthropic:
                kind = _ANTHROPIC_ERRORS.get(step.status, "api_error")
                message = step.message or kind.replace("_", " ")
                body: dict[str, Any] = {
                    "type": "error",
                    "error": {"type": kind, "message": message},
                    "request_id": "req_fake",
                }
                headers["request-id"] = "req_fake"
            else:
                kind, code = _OPENAI_ERRORS.get(step.status, ("server_error", None))
                message = step.message or f"fake error {step.status}"
                body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
                headers["x-request-id"] = "req_fake"
            self._json(step.status, body, headers)

        def _stream(self, message: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for event, data in _anthropic_events(message):
                chunk = f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()
                self.wfile.write(chunk)
            self.wfile.flush()

        def _json(self, status: int, data: Any, headers: Mapping[str, str] | None = None) -> None:
            self._send(status, json.dumps(data).encode("utf-8"), "application/json", headers)

        def _send(
            self,
            status: int,
            body: bytes,
            content_type: str,
            headers: Mapping[str, str] | None = None,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

    return Handler


def _openai_reply(step: Say, model: str, n: int, tokens_in: int, tokens_out: int) -> Any:
    calls = [
        {
            "id": f"call_fake{n}x{i}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(dict(arguments))},
        }
        for i, (name, arguments) in enumerate(step.tool_calls)
    ]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if (calls or step.refusal) and not step.text else step.text,
        "refusal": step.refusal or None,
        "annotations": [],
    }
    if calls:
        message["tool_calls"] = calls
    finish = step.stop or ("tool_calls" if calls else "stop")
    return {
        "id": f"chatcmpl-fake{n}",
        "object": "chat.completion",
        "created": 1764547200 + n,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
        },
        "service_tier": "default",
        "system_fingerprint": "fp_fake",
    }


def _anthropic_reply(step: Say, model: str, n: int, tokens_in: int, tokens_out: int) -> Any:
    content: list[dict[str, Any]] = []
    if step.text:
        content.append({"type": "text", "text": step.text})
    for i, (name, arguments) in enumerate(step.tool_calls):
        content.append(
            {"type": "tool_use", "id": f"toolu_fake{n}x{i}", "name": name, "input": arguments}
        )
    stop = {"length": "max_tokens", "content_filter": "refusal"}.get(step.stop or "", step.stop)
    if step.refusal:
        stop = "refusal"
    stop = stop or ("tool_use" if step.tool_calls else "end_turn")
    return {
        "id": f"msg_fake{n}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": tokens_in,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": tokens_out,
            "service_tier": "standard",
        },
    }


def _anthropic_events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The Messages API's server-sent events for one complete message."""
    start = dict(message, content=[], stop_reason=None)
    start["usage"] = dict(message["usage"], output_tokens=1)
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            empty = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": empty}  # fmt: skip
        yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                      "delta": delta}  # fmt: skip
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def memory_json(
    fake: FakeProvider,
    *,
    api: str = "openai",
    model: str = "fake/test-model",
    key_env: str = "",
    **settings: Any,
) -> dict[str, Any]:
    """A memory.json dictionary whose provider ``fake`` is this server.

    Retries pause 10 ms so fault tests stay fast; ``settings`` are merged on top
    (e.g. ``layout="files"``, ``dailyTokenCap=100``).
    """
    base = fake.anthropic_base if api == "anthropic" else fake.openai_base
    provider = {"baseUrl": base, "api": api, "apiKeyEnv": key_env, "retryBackoffMs": 10}
    data: dict[str, Any] = {"providers": {"fake": provider}, "defaults": {"model": model}}
    for key, value in settings.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return data


def write_memory_json(home: Path, data: Mapping[str, Any]) -> Path:
    """Write the user's ``~/.pi/agent/memory.json`` under a test's HOME."""
    path = home / ".pi" / "agent" / "memory.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path
