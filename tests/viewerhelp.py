"""The viewer as a person runs it: ``python -m pi_memory ui`` in its own process.

:func:`start` runs the real command, reads the URL from its first line and
returns a :class:`Viewer` to talk to it over HTTP on 127.0.0.1 with any headers
(a browser's, or an attacker's); the test ends the process it started.
"""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode, urlsplit

REPO = Path(__file__).resolve().parent.parent


class Answer(NamedTuple):
    status: int
    headers: Mapping[str, str]
    text: str


class Viewer(NamedTuple):
    url: str
    host: str
    port: int
    token: str
    project: Path
    #: Seconds to wait for an answer (a benchmark on a busy machine waits longer).
    timeout: float = 60

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        sent = {"Host": f"{self.host}:{self.port}", **(headers or {})}
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            connection.request(method, path, body=body, headers=sent)
            reply = connection.getresponse()
            data = reply.read()
            return Answer(reply.status, dict(reply.getheaders()), data.decode("utf-8", "replace"))
        finally:
            connection.close()

    def get(self, path: str, **params: str) -> Answer:
        return self.request("GET", f"{path}?{urlencode({**params, 't': self.token})}")

    def overview(self) -> Answer:
        """The overview once its health is worked out (it draws the counts until then,
        and asks the browser to load it again)."""
        import time

        deadline = time.monotonic() + 600
        while True:
            page = self.get("/")
            working = "Working out the health" in page.text
            assert working == ('http-equiv="refresh"' in page.text)
            if not working or time.monotonic() > deadline:
                return page
            time.sleep(0.2)

    def post(self, path: str, fields: Mapping[str, str], **headers: str) -> Answer:
        body = urlencode(fields).encode("utf-8")
        sent = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": f"http://{self.host}:{self.port}",
            **headers,
        }
        return self.request("POST", f"{path}?t={self.token}", body=body, headers=sent)


def form_fields(page: str, action: str) -> dict[str, str]:
    """The hidden fields of the first form of ``page`` that posts to ``action``."""
    start = r'<form method="post" action="' + re.escape(action) + r'\?[^"]*"'
    found = re.search(start + "(.*?)</form>", page, re.S)
    assert found is not None, f"no form posting to {action}"
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', found.group(1)))


@contextmanager
def start(project: Path, *extra: str, program: tuple[str, ...] = ()) -> Iterator[Viewer]:
    """Run ``ui --no-browser`` for ``project`` until the block ends (``program``: how
    pi_memory is started, by default ``python -m pi_memory`` from this checkout)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    process = subprocess.Popen(
        [
            *(program or (sys.executable, "-m", "pi_memory")),
            "ui",
            "--no-browser",
            "--project",
            str(project),
            *extra,
        ],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline().strip()
        parts = urlsplit(first)
        assert parts.scheme == "http" and parts.hostname and parts.port, (first, process.stderr)
        token = dict(p.split("=", 1) for p in parts.query.split("&"))["t"]
        yield Viewer(first, parts.hostname, parts.port, token, project)
    finally:
        process.terminate()
        process.communicate(timeout=30)  # closes both pipes
