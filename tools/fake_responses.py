"""A fake model server speaking the OpenAI Responses API, for Codex CLI offline.

    python tools/fake_responses.py --port 0 --log requests.jsonl

Binds to 127.0.0.1 only and prints ``READY <port>`` once listening. What it
answers:

- ``POST /v1/responses``: with ``"stream": true`` (what Codex sends) a
  ``text/event-stream`` of ``response.created``, ``response.in_progress``,
  ``response.output_item.added``, ``response.content_part.added``,
  ``response.output_text.delta``, ``response.output_text.done``,
  ``response.content_part.done``, ``response.output_item.done`` and
  ``response.completed`` (with ``usage``); without it, the finished response
  object as one JSON document.
- ``POST /_script``: queue replies, a JSON list of ``{"match": "substr",
  "text": "..."}``; the first unused entry whose ``match`` occurs in the
  request's last user message is used once.
- ``POST /_config``: ``{"input_tokens": N}`` makes ``usage`` report N input
  tokens (``null``: the body's length / 4).
- ``GET /_requests``: every request logged so far.
- anything else: 404, still logged, so a client's other calls show.

Without a scripted match the reply is ``FAKE_REPLY: <the last user message,
80 characters>``. Every request (``t``, ``method``, ``path``, ``headers``,
``body``) is appended to ``--log`` as one JSON line before it is answered.
Standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from fake_server import RecordingHandler

LOCK = threading.Lock()
STATE: dict[str, Any] = {"script": [], "requests": [], "log": None, "input_tokens": None}


def user_texts(body: dict[str, Any]) -> list[str]:
    """The text of each ``role: user`` message of a Responses request, in order."""
    items = body.get("input")
    if isinstance(items, str):
        return [items]
    texts = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            texts.append(content)
            continue
        parts = content if isinstance(content, list) else []
        texts.append("".join(p.get("text", "") for p in parts if isinstance(p, dict)))
    return texts


def choose(body: dict[str, Any]) -> str:
    texts = user_texts(body)
    last = texts[-1] if texts else ""
    with LOCK:
        for entry in STATE["script"]:
            if not entry.get("used") and str(entry.get("match", "")) in last:
                entry["used"] = True
                return str(entry.get("text", ""))
    return "FAKE_REPLY: " + " ".join(last.split())[:80]


def usage(raw: bytes, text: str) -> dict[str, Any]:
    configured = STATE["input_tokens"]
    inputs = int(configured) if configured is not None else len(raw) // 4
    outputs = max(1, len(text) // 4)
    return {
        "input_tokens": inputs,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": outputs,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": inputs + outputs,
    }


def events(body: dict[str, Any], raw: bytes, text: str) -> list[dict[str, Any]]:
    """The Responses stream for one assistant message holding ``text``."""
    stamp = int(time.time() * 1000)
    rid, mid = f"resp_fake_{stamp}", f"msg_fake_{stamp}"
    model = body.get("model", "fake-model")
    base = {"id": rid, "object": "response", "created_at": stamp // 1000, "model": model}
    part = {"type": "output_text", "text": text, "annotations": []}
    item = {"id": mid, "type": "message", "status": "completed", "role": "assistant"}
    done_item = dict(item, content=[part])
    where = {"item_id": mid, "output_index": 0, "content_index": 0}
    return [
        {"type": "response.created", "response": dict(base, status="in_progress", output=[])},
        {"type": "response.in_progress", "response": dict(base, status="in_progress", output=[])},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": dict(item, status="in_progress", content=[]),
        },
        {"type": "response.content_part.added", **where, "part": dict(part, text="")},
        {"type": "response.output_text.delta", **where, "delta": text},
        {"type": "response.output_text.done", **where, "text": text},
        {"type": "response.content_part.done", **where, "part": part},
        {"type": "response.output_item.done", "output_index": 0, "item": done_item},
        {
            "type": "response.completed",
            "response": dict(base, status="completed", output=[done_item], usage=usage(raw, text)),
        },
    ]


class Handler(RecordingHandler):
    STATE = STATE
    LOCK = LOCK
    NOT_FOUND: ClassVar[dict[str, Any]] = {"error": {"message": "no route", "type": "not_found"}}

    def _body(self) -> tuple[bytes, Any]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            raw = gzip.decompress(raw)
        try:
            return raw, json.loads(raw) if raw else None
        except ValueError:
            return raw, raw.decode("utf-8", "replace")

    def do_POST(self) -> None:
        raw, body = self._body()
        path = self.path.split("?")[0]
        if path == "/_script":
            with LOCK:
                STATE["script"] = [dict(e) for e in body]
            self._send(200, {"ok": True})
            return
        if path == "/_config":
            STATE["input_tokens"] = body.get("input_tokens")
            self._send(200, {"ok": True})
            return
        self._record(body)
        if not path.endswith("/responses") or not isinstance(body, dict):
            self._send(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return
        stream = events(body, raw, choose(body))
        if not body.get("stream"):
            self._send(200, stream[-1]["response"])
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in stream:
            self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, default=None)
    args = parser.parse_args(argv)
    STATE["log"] = args.log
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"READY {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
