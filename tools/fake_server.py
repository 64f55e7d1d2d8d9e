"""What the project's fake model servers share: a request log, JSON replies, the test routes.

``tools/fake_responses.py`` (Codex's Responses API) and ``tools/fake_gemini.py``
(the Gemini API) each subclass :class:`RecordingHandler` with their own
``STATE`` and ``LOCK`` and answer the provider's routes; this module keeps
the parts that do not depend on the wire format: every request logged (in
memory, and as JSON lines when a log file is given), ``GET /_requests``
answering the log, JSON replies with a length, and a quiet stderr.
Loopback only; run by the end-to-end checks as scripts, so imported by name.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar


class RecordingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    #: The server's state: ``requests`` (the log), ``log`` (a file path or None), and
    #: whatever the subclass keeps; guarded by ``LOCK``.
    STATE: ClassVar[dict[str, Any]]
    LOCK: ClassVar[threading.Lock]
    #: The body of a 404 in the provider's own error shape.
    NOT_FOUND: ClassVar[dict[str, Any]] = {"error": {"message": "not here"}}

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request log is the record."""

    def _record(self, body: Any) -> None:
        entry = {
            "t": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body,
        }
        with self.LOCK:
            self.STATE["requests"].append(entry)
            if self.STATE["log"]:
                with open(self.STATE["log"], "a", encoding="utf-8") as log:
                    log.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def _send(self, code: int, payload: Any, kind: str = "application/json") -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/_requests":
            with self.LOCK:
                self._send(200, list(self.STATE["requests"]))
            return
        self._record(None)
        self._send(404, self.NOT_FOUND)
