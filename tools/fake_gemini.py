"""A fake Gemini API on 127.0.0.1 for the end-to-end check with the real Gemini CLI.

    python tools/fake_gemini.py --port 0 --log requests.jsonl    # prints "READY <port>"

It speaks what the Gemini CLI sends when ``GOOGLE_GEMINI_BASE_URL`` points at
it (``GEMINI_API_KEY`` set):

- ``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse``: server-sent
  events, each ``data: <GenerateContentResponse>`` (``candidates[].content.parts[].text``,
  ``finishReason``, ``usageMetadata``);
- ``POST /v1beta/models/MODEL:generateContent``: one GenerateContentResponse;
- ``POST /v1beta/models/MODEL:countTokens``: ``{"totalTokens": N}``.

The reply, first match wins: a side call that asks for JSON
(``responseJsonSchema``: the CLI's routing, next-speaker and loop checks) gets
an object built from the schema (the first enum value, ``next_speaker:
"user"``, false, the minimum or 1); a compression request (the system
instruction asks for a ``<state_snapshot>``) gets a snapshot; a scripted reply
(``POST /_script`` a list of ``{"match": "substring of the prompt", "text":
"..."}``, and/or ``"call": {"name", "args"}`` for a function call, optionally
``"prompt_tokens": N`` and ``"thoughts_tokens": N`` (``thoughtsTokenCount``:
what a thinking model spent); each used once); anything else ``FAKE_REPLY: <the
prompt's first 80 characters>``. The prompt is the last user turn without
the ``<session_context>`` and ``<hook_context>`` the CLI adds.
``usageMetadata.promptTokenCount`` is the body's size / 4 unless
``POST /_config {"prompt_tokens": N}`` set it (for the next reply only).
Every request is appended to ``--log`` as ``{t, method, path, headers, body}``;
``GET /_requests`` returns them. Anything else is a 404, logged all the same.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
from http.server import ThreadingHTTPServer
from typing import Any, ClassVar

from fake_server import RecordingHandler

LOCK = threading.Lock()
STATE: dict[str, Any] = {"script": [], "requests": [], "log": None, "prompt_tokens": None}
#: What the CLI (``<session_context>``) and hooks (``<hook_context>``) add to a user turn.
ADDED = re.compile(r"<(session_context|hook_context)>.*?</\1>", re.DOTALL)
SNAPSHOT = (
    "<state_snapshot>\n<overall_goal>FAKE_SUMMARY of the conversation so far.</overall_goal>\n"
    "</state_snapshot>"
)


def texts(content: Any) -> list[str]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [
        p["text"] for p in parts or () if isinstance(p, dict) and isinstance(p.get("text"), str)
    ]


def prompt_of(body: dict[str, Any]) -> str:
    """What the person typed last: the last user turn without the CLI's and hooks' context."""
    for content in reversed(body.get("contents") or []):
        if isinstance(content, dict) and content.get("role") == "user" and texts(content):
            return ADDED.sub("", "\n".join(texts(content))).strip()
    return ""


def from_schema(schema: Any, name: str = "") -> Any:
    """A plausible value for a JSON schema, as a model following it would answer."""
    if not isinstance(schema, dict):
        return None
    if name == "next_speaker":
        return "user"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    kind = (kind[0] if kind else "") if isinstance(kind, list) else str(kind or "")
    kind = kind.lower()
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {key: from_schema(value, key) for key, value in props.items()}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind == "integer":  # a score or a count: the smallest the CLI accepts
        return schema.get("minimum", 1)
    if kind == "number":
        return schema.get("minimum", 0)
    return f"fake {name}".strip()


def choose(body: dict[str, Any]) -> dict[str, Any]:
    """The reply's ``text`` or function ``call``, and its ``prompt_tokens`` if scripted."""
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema is not None or config.get("responseMimeType") == "application/json":
        return {"text": json.dumps(from_schema(schema) or {})}
    if "state_snapshot" in "".join(texts(body.get("systemInstruction"))):
        return {"text": SNAPSHOT}
    prompt = prompt_of(body)
    with LOCK:
        for i, entry in enumerate(STATE["script"]):
            if entry.get("match", "") in prompt:
                return dict(STATE["script"].pop(i))
    return {"text": "FAKE_REPLY: " + prompt[:80]}


def response(reply: dict[str, Any], body: dict[str, Any], raw: bytes) -> dict[str, Any]:
    with LOCK:
        tokens = reply.get("prompt_tokens", STATE["prompt_tokens"])
        STATE["prompt_tokens"] = None
    prompt = tokens if tokens is not None else len(raw) // 4
    call, text = reply.get("call"), reply.get("text")
    parts = [{"text": str(text)}] if text or not call else []
    parts += [{"functionCall": call}] if call else []
    out = max(1, len(json.dumps(parts)) // 4)
    thoughts = int(reply.get("thoughts_tokens", 0))
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": out}
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": {**usage, "totalTokenCount": prompt + out + thoughts},
        "modelVersion": str(body.get("model") or "fake"),
    }


class Handler(RecordingHandler):
    STATE = STATE
    LOCK = LOCK
    NOT_FOUND: ClassVar[dict[str, Any]] = {
        "error": {"code": 404, "message": "not here", "status": "NOT_FOUND"}
    }

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?")[0]
        if path == "/_script":
            with LOCK:
                STATE["script"].extend(body if isinstance(body, list) else [body])
            self._send(200, {"ok": True})
            return
        if path == "/_config":
            with LOCK:
                STATE["prompt_tokens"] = body.get("prompt_tokens")
            self._send(200, {"ok": True})
            return
        self._record(body)
        method = path.rsplit(":", 1)[-1] if path.startswith("/v1") and ":" in path else ""
        if method == "countTokens":
            self._send(200, {"totalTokens": len(raw) // 4})
        elif method == "generateContent":
            self._send(200, response(choose(body), body, raw))
        elif method == "streamGenerateContent":
            self._stream(response(choose(body), body, raw))
        else:
            self._send(404, self.NOT_FOUND)

    def _stream(self, whole: dict[str, Any]) -> None:
        """The reply as events: a text in two halves, the last with the finish and usage."""
        chunks = [whole]
        part = whole["candidates"][0]["content"]["parts"][0]
        if "text" in part and len(part["text"]) > 1:
            half = len(part["text"]) // 2
            head = {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}]}
            head["candidates"][0]["content"]["parts"][0]["text"] = part["text"][:half]
            tail = json.loads(json.dumps(whole))
            tail["candidates"][0]["content"]["parts"][0]["text"] = part["text"][half:]
            chunks = [head, tail]
        events = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
        self._send(200, events, "text/event-stream")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", default="")
    args = parser.parse_args()
    STATE["log"] = args.log or None
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"READY {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
