"""Headless Chromium driven over the DevTools protocol, with the standard library only.

:func:`chromium` starts the browser (``--remote-debugging-port=0``: it picks a
free port and writes it to ``DevToolsActivePort``) in a profile of its own and
yields a :class:`Page`: navigate, evaluate JavaScript in the page, wait for a
load, type, take a screenshot. The WebSocket is a minimal client (RFC 6455:
masked text frames out; text, continuation, ping and close frames in).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import urlopen

#: The names Chromium's executable has on Debian and elsewhere.
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    return next((found for name in NAMES if (found := shutil.which(name))), None)


class WebSocket:
    def __init__(self, url: str, timeout: float = 60) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("the browser closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(head.decode("latin-1"))

    def send(self, text: str) -> None:
        data = text.encode()
        mask = os.urandom(4)
        size = len(data)
        if size < 126:
            header = struct.pack("!BB", 0x81, 0x80 | size)
        elif size < 1 << 16:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, size)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, size)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(header + mask + masked)

    def _exactly(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the browser closed the connection")
            data += chunk
        return data

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._exactly(2)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                size = struct.unpack("!H", self._exactly(2))[0]
            elif size == 127:
                size = struct.unpack("!Q", self._exactly(8))[0]
            payload = self._exactly(size)
            if opcode == 0x8:
                raise ConnectionError("the browser closed the connection")
            if opcode == 0x9:  # ping: answer pong
                self.sock.sendall(
                    struct.pack("!BB", 0x8A, 0x80 | len(payload)) + b"\0" * 4 + payload
                )
                continue
            message += payload
            if first & 0x80:
                return message.decode()

    def close(self) -> None:
        self.sock.close()


class Page:
    """One browser tab."""

    def __init__(self, socket_url: str) -> None:
        self.ws = WebSocket(socket_url)
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=1280,
            height=860,
            deviceScaleFactor=1,
            mobile=False,
        )

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        wanted = self.next_id
        self.ws.send(json.dumps({"id": wanted, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.receive())
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self.events.append(message)

    def wait_for(self, event: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i, message in enumerate(self.events):
                if message["method"] == event:
                    del self.events[: i + 1]
                    return message
            message = json.loads(self.ws.receive())
            if "method" in message:
                self.events.append(message)
        raise TimeoutError(f"no {event} within {timeout} s")

    def loads(self, action: str) -> None:
        """Run ``action`` (JavaScript that navigates: a click, a submit) and wait for the load."""
        self.events.clear()
        self.evaluate(action)
        self.wait_for("Page.loadEventFired")

    def open(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def prefer_dark(self) -> None:
        """Make the page see ``prefers-color-scheme: dark``."""
        features = [{"name": "prefers-color-scheme", "value": "dark"}]
        self.call("Emulation.setEmulatedMedia", features=features)

    def type_text(self, text: str) -> None:
        """Type into the focused element, as a keyboard would."""
        self.call("Input.insertText", text=text)

    def screenshot(self, path: Path) -> Path:
        metrics = self.call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": 1280, "height": min(metrics["height"], 2400), "scale": 1}
        data = self.call(
            "Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True
        )["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        self.ws.close()


@contextmanager
def chromium(executable: str) -> Iterator[Page]:
    """A headless Chromium with a fresh profile, and its first tab."""
    profile = Path(tempfile.mkdtemp(prefix="pi_memory-chromium-"))
    argv = [
        executable,
        "--headless=new",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--remote-debugging-port=0",
        "--remote-allow-origins=*",
        f"--user-data-dir={profile}",
        "--window-size=1280,860",
        "about:blank",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.insert(1, "--no-sandbox")  # root cannot use Chromium's sandbox
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    page = None
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("Chromium did not start its DevTools server")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as reply:
            targets = json.load(reply)
        tab = next(t for t in targets if t.get("type") == "page")
        page = Page(tab["webSocketDebuggerUrl"])
        yield page
    finally:
        if page is not None:
            page.close()
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)
