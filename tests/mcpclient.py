"""A minimal MCP client for the tests: a real ``python -m pi_memory mcp`` process over pipes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def default_signals() -> None:
    """In the server's process before it starts: SIGINT and SIGQUIT back to their default,
    as a host's spawn leaves them (Node resets every signal in its children). A test run
    started in a shell's background inherits them ignored, and Python sets no ^C handler
    where SIGINT is ignored, so the server would outlive the SIGINT a host sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


class McpClient:
    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = str(REPO)
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pi_memory", "mcp"],
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # Runs nothing that takes a lock: signal is imported already, here.
            preexec_fn=default_signals if os.name == "posix" else None,  # noqa: PLW1509
        )
        self.lines: Queue[bytes] = Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(
        self, method: str, params: dict[str, Any] | None = None, ident: object = "auto"
    ) -> Any:
        """Send a request (or a notification with ``ident=None``); returns the id used."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if ident == "auto":
            self._next_id += 1
            ident = self._next_id
        if ident is not None:
            message["id"] = ident
        if params is not None:
            message["params"] = params
        self.send_raw(json.dumps(message).encode() + b"\n")
        return ident

    def receive(self, timeout: float = 30) -> Any:
        return json.loads(self.lines.get(timeout=timeout))

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        ident = self.send(method, params)
        reply = self.receive()
        assert reply["id"] == ident
        return reply

    def call(self, tool: str, /, **arguments: Any) -> tuple[bool, str]:
        reply = self.request("tools/call", {"name": tool, "arguments": arguments})
        result = reply["result"]
        assert [c["type"] for c in result["content"]] == ["text"]
        return not result["isError"], result["content"][0]["text"]

    def initialize(self, version: str = "2025-06-18") -> Any:
        reply = self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}},
        )
        self.send("notifications/initialized", ident=None)
        return reply

    def close(self) -> tuple[int, list[bytes], bytes]:
        """End the input; the exit code, any lines still unread, and stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        self._reader.join(timeout=10)
        rest = []
        try:
            while True:
                rest.append(self.lines.get_nowait())
        except Empty:
            pass
        err = self.proc.stderr.read()
        self.proc.stderr.close()
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return code, rest, err
