"""The MCP server driven by a client over real pipes: handshake, tools, errors, concurrency."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from pi_memory.hosts.mcp import PROTOCOL_VERSIONS, answer, negotiate
from tests.conftest import REPO
from tests.mcpclient import McpClient


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def client(project: Path):  # type: ignore[no-untyped-def]
    c = McpClient(project)
    yield c
    if c.proc.poll() is None:
        c.close()


def use_files_layout(home: Path) -> None:
    config = home / ".pi" / "agent" / "memory.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"layout": "files", "memoryDir": str(home / "mem")}))


def test_version_negotiation() -> None:
    assert negotiate("2024-11-05") == "2024-11-05"
    assert negotiate("2025-06-18") == "2025-06-18"
    assert negotiate("1999-01-01") == PROTOCOL_VERSIONS[0]
    assert negotiate(None) == PROTOCOL_VERSIONS[0]


def test_handshake_answers_the_client_version_or_the_newest(client: McpClient) -> None:
    result = client.initialize("2024-11-05")["result"]
    assert result["protocolVersion"] == "2024-11-05"
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "pi_memory"
    newer = client.request("initialize", {"protocolVersion": "2099-01-01", "capabilities": {}})
    assert newer["result"]["protocolVersion"] == PROTOCOL_VERSIONS[0]
    assert client.request("ping")["result"] == {}


def test_categories_tools_write_lands_on_disk_and_is_found(
    client: McpClient, project: Path
) -> None:
    client.initialize()
    tools = client.request("tools/list")["result"]["tools"]
    assert [t["name"] for t in tools] == ["memory_search", "memory_write", "session_search"]
    for tool in tools:
        assert tool["description"]
        assert tool["inputSchema"]["type"] == "object"
    write = next(t for t in tools if t["name"] == "memory_write")
    assert write["inputSchema"]["required"] == ["body", "keyword"]

    ok, text = client.call("memory_write", body="Deploy with rsync --delete.", keyword="deploy")
    assert ok and text.startswith("Saved [") and "keyword: deploy" in text
    stored = (project / ".pi/agent/memory-auto/CONVENTIONS.md").read_text("utf-8")
    assert "Deploy with rsync --delete." in stored
    ok, text = client.call("memory_search", query="rsync")
    assert ok and "Deploy with rsync --delete." in text


def test_files_layout_offers_the_memory_tool(project: Path, hermetic_home: Path) -> None:
    use_files_layout(hermetic_home)
    c = McpClient(project)
    try:
        c.initialize()
        names = [t["name"] for t in c.request("tools/list")["result"]["tools"]]
        assert names == ["memory", "session_search"]
        ok, text = c.call(
            "memory", action="add", name="Test command", content="Run pytest -q.", type="project"
        )
        assert (ok, text) == (True, 'Saved "Test command" (Test-command.md).')
        assert list((hermetic_home / "mem").rglob("Test-command.md"))
        ok, text = c.call("memory", action="search", query="pytest")
        assert ok and "Test command" in text
    finally:
        c.close()


def test_tool_failures_are_tool_errors(client: McpClient) -> None:
    client.initialize()
    ok, text = client.call("memory_write", keyword="deploy")
    assert (ok, text) == (False, '"body" is required')
    ok, text = client.call("memory_search", query="x", page=0)
    assert not ok and "page" in text
    ok, text = client.call("memory", action="list")
    assert not ok and 'belongs to the "files" layout' in text
    ok, text = client.call("memory_write", body="Unclosed `code span", keyword="k")
    assert not ok and text


def test_protocol_errors_are_json_rpc_errors(client: McpClient) -> None:
    client.initialize()
    unknown = client.request("tools/call", {"name": "rm_rf", "arguments": {}})
    assert unknown["error"]["code"] == -32602
    bad_args = client.request("tools/call", {"name": "memory_search", "arguments": [1]})
    assert bad_args["error"]["code"] == -32602
    assert client.request("resources/list")["error"]["code"] == -32601
    client.send_raw(b"{not json\n")
    assert client.receive()["error"]["code"] == -32700
    client.send_raw(b'\xff\xfe{"bad utf-8"}\n')
    assert client.receive()["error"]["code"] == -32700
    client.send_raw(b'{"jsonrpc": "2.0", "id": 7}\n')
    assert client.receive() == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": -32600,
            "message": 'Invalid Request: needs "jsonrpc": "2.0" and a method',
        },
    }
    client.send_raw(b'{"jsonrpc": "2.0", "id": 8, "method": "ping", "params": [1]}\n')
    assert client.receive()["error"]["code"] == -32602
    client.send_raw(b"[]\n")
    assert client.receive()["error"]["code"] == -32600
    # The server is still there after all of it.
    assert client.request("ping")["result"] == {}


def test_concurrent_requests_each_answered_once_on_its_own_line(
    client: McpClient, project: Path
) -> None:
    client.initialize()
    sent = set()
    burst = b""
    for n in range(24):
        sent.add(f"r{n}")
        if n % 2:
            call = {"name": "memory_search", "arguments": {"query": "fact"}}
        else:
            call = {"name": "memory_write", "arguments": {"body": f"Fact {n}.", "keyword": f"k{n}"}}
        burst += (
            json.dumps(
                {"jsonrpc": "2.0", "id": f"r{n}", "method": "tools/call", "params": call}
            ).encode()
            + b"\n"
        )
        # Notifications in between are never answered.
        burst += b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}\n'
    client.send_raw(burst)
    replies = [client.receive() for _ in sent]
    assert {r["id"] for r in replies} == sent
    assert all(r["result"]["isError"] is False for r in replies)
    code, rest, err = client.close()
    assert (code, rest) == (0, [])
    assert err == b""
    stored = (project / ".pi/agent/memory-auto/CONVENTIONS.md").read_text("utf-8")
    assert all(f"Fact {n}." in stored for n in range(0, 24, 2))


def test_a_batch_gets_one_array_without_the_notifications(client: McpClient) -> None:
    client.send_raw(
        json.dumps(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "nope"},
            ]
        ).encode()
        + b"\n"
    )
    reply = client.receive()
    assert [r["id"] for r in reply] == [1, 2]
    assert reply[0]["result"] == {} and reply[1]["error"]["code"] == -32601


def test_a_bad_setting_falls_back_on_stderr_and_stdout_stays_protocol(
    project: Path, hermetic_home: Path
) -> None:
    config = hermetic_home / ".pi" / "agent" / "memory.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"layout": 3}')  # a malformed file would count as {} (pi-memory)
    c = McpClient(project)
    c.initialize()
    tools = c.request("tools/list")["result"]["tools"]
    assert tools[0]["name"] == "memory_search"
    ok, _text = c.call("memory_search", query="x")
    assert ok  # one rule for a bad setting: its default, a warning, and the work goes on
    code, rest, err = c.close()
    assert (code, rest) == (0, [])
    assert b'pi_memory: warning: memory.json: "layout" must be one of' in err


def test_a_cancelled_request_is_not_answered_when_cancelled_first() -> None:
    # In process: the reply to a request cancelled before it ran is dropped.
    import io

    from pi_memory.hosts.mcp import Server

    out = io.BytesIO()
    server = Server(out, workers=1)
    server.serve(
        [
            b'{"jsonrpc": "2.0", "method": "notifications/cancelled",'
            b' "params": {"requestId": 5}}\n',
            b'{"jsonrpc": "2.0", "id": 5, "method": "ping"}\n',
            b'{"jsonrpc": "2.0", "id": 6, "method": "ping"}\n',
        ]
    )
    assert out.getvalue() == b'{"jsonrpc": "2.0", "id": 6, "result": {}}\n'


def test_answer_ignores_notifications_and_client_responses() -> None:
    assert answer({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert answer({"jsonrpc": "2.0", "id": 3, "result": {}}) is None
    assert answer({"jsonrpc": "2.0", "id": True, "method": "ping"}) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Invalid Request: id must be a string or a number"},
    }


def test_only_the_protocol_reaches_stdout(tmp_path: Path) -> None:
    # Stray prints, and children writing to fd 1, land on stderr once the server owns stdout.
    code = (
        "import os\n"
        "from pi_memory.hosts.mcp import protocol_stdout\n"
        "out = protocol_stdout()\n"
        "print('stray print', flush=True)\n"
        "os.system('echo from a child')\n"
        "out.write(b'{}\\n')\n"
        "out.flush()\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, check=True
    )
    assert proc.stdout == b"{}\n"
    assert proc.stderr.splitlines() == [b"stray print", b"from a child"]


#: One line of about 2 KB nested 1,000 deep: deeper than the JSON reader goes.
DEEP: Final = "[" * 1000 + "]" * 1000


@pytest.mark.parametrize(
    "line",
    [
        DEEP,
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_search", '
        f'"arguments": {{"query": {DEEP}}}}}}}',
    ],
    ids=["a batch", "in the arguments"],
)
def test_deeply_nested_json_is_a_parse_error_and_the_server_goes_on(
    client: McpClient, line: str
) -> None:
    client.initialize()
    client.send_raw(line.encode() + b"\n")
    reply = client.receive()
    assert reply["id"] is None and reply["error"]["code"] == -32700
    assert "nested too deeply" in reply["error"]["message"]
    assert client.request("ping")["result"] == {}
    code, rest, err = client.close()
    assert (code, rest) == (0, [])
    assert b"Traceback" not in err


def test_a_client_start_is_answered_without_the_worker_pool(project: Path) -> None:
    # Claude Code probes with a method this server does not have before it initializes: the
    # probe, the handshake and the tool list are answered in order, before any worker exists.
    messages = [
        {"jsonrpc": "2.0", "id": "probe", "method": "server/discover", "params": {}},
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi_memory", "mcp"],
        input="".join(json.dumps(m) + "\n" for m in messages), cwd=project, env=env,
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == ["probe", 1, 2]
    assert replies[0]["error"]["code"] == -32601
    assert replies[1]["result"]["serverInfo"]["name"] == "pi_memory"
    assert {t["name"] for t in replies[2]["result"]["tools"]} >= {"memory_search"}
    assert "concurrent.futures" not in done.stderr


def test_an_answer_json_cannot_write_alone_holds_encoded_text_as_its_value() -> None:
    from pi_memory.hosts.mcp import _dumps
    from pi_memory.hosts.quick_hook import Encoded

    answer = {"tools": Encoded('[{"name": "é"}]'), "n": float("nan")}
    assert _dumps(answer) == json.dumps({"tools": [{"name": "é"}], "n": float("nan")})
    with pytest.raises(TypeError, match="not JSON"):
        _dumps({"odd": {1, 2}})


@pytest.mark.skipif(os.name != "posix", reason="SIGTERM and SIGINT as a host sends them")
def test_a_signal_ends_the_server_as_a_host_expects_before_and_after_its_first_tool_call(
    project: Path,
) -> None:
    """Before any tool call nothing is held: SIGTERM has its default action, and the client's
    start did not wait for the handlers. After one it ends the server as ^C does (128 plus
    its number, every request read answered), and SIGINT, which Claude Code sends, is 130
    either way."""
    import signal
    import time

    for signum, call, code in (
        (signal.SIGTERM, False, -signal.SIGTERM),
        (signal.SIGINT, False, 130),
        (signal.SIGTERM, True, 128 + signal.SIGTERM),
        (signal.SIGINT, True, 130),
    ):
        c = McpClient(project)
        c.initialize()
        if call:
            assert c.call("memory_search", query="anything")[0]
        assert c.request("ping")["result"] == {}
        time.sleep(0.2)  # back in its read, as a server is when its client quits
        c.proc.send_signal(signum)
        assert c.proc.wait(timeout=30) == code, (signum, call)
        c.close()


class _InterruptedPipe(io.BytesIO):
    """The server's stdout as it is when ^C, or a host's SIGINT, comes while an answer is
    written: the signal's KeyboardInterrupt is raised inside the write."""

    def write(self, data: object) -> int:
        raise KeyboardInterrupt


def test_an_interrupt_while_the_reading_thread_answers_ends_the_server() -> None:
    """The reading thread answers every request but a tool call itself, and a signal is
    raised there: the interrupt ends ``serve`` (130), it is not taken for a failed answer
    and logged while the server reads on and waits for a client that has gone."""
    from pi_memory.hosts.mcp import Server

    read_on: list[str] = []

    def lines() -> Iterator[bytes]:
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n'
        read_on.append("the next line")

    with pytest.raises(KeyboardInterrupt):
        Server(_InterruptedPipe()).serve(lines())
    assert read_on == []


_PING = b'{"jsonrpc": "2.0", "id": %d, "method": "ping"}\n'


def _interrupt_here() -> None:
    """SIGINT to this thread, its handler run in the caller's frame: ``os.kill`` may hand
    the signal to another thread of the process (the test runner's), which a loaded
    machine may not run before the caller is done."""
    import signal

    signal.raise_signal(signal.SIGINT)
    for _ in range(1000):  # the handler runs at the loop's check for pending signals
        pass


class _SignalledFromFinaliser:
    """An object whose finaliser is where the signal lands, as it lands in the import
    system's module-lock finalisers while the reading thread imports what an answer needs
    (Python prints an exception raised there as "Exception ignored" and goes on)."""

    def __del__(self) -> None:
        _interrupt_here()


@pytest.fixture
def sigint_restored() -> Iterator[None]:
    import signal

    # A fresh interpreter's ^C: the server takes over SIGINT only from its default
    # (Server.end_on).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.skipif(os.name != "posix", reason="a real SIGINT to this process")
@pytest.mark.usefixtures("sigint_restored")
def test_a_signal_that_lands_in_a_finaliser_still_ends_the_server() -> None:
    """The server's SIGINT raises nothing: it ends the input, and the reading stops at its
    next line. Raised as ^C's KeyboardInterrupt where it landed, a finaliser swallowed it
    and the server read on, holding its host's exit."""
    import signal

    from pi_memory.hosts.mcp import Server

    read: list[int] = []

    def lines() -> Iterator[bytes]:
        for n in range(1, 50):
            read.append(n)
            yield _PING % n
            _SignalledFromFinaliser()  # made and dropped: its finaliser runs at once

    out = io.BytesIO()
    server = Server(out)
    server.end_on("SIGINT")
    server.serve(lines())
    assert server.ended_by == signal.SIGINT
    assert read == [1, 2]  # the line after the signal is not answered
    assert [json.loads(line)["id"] for line in out.getvalue().splitlines()] == [1]


@pytest.mark.skipif(os.name != "posix", reason="a real SIGINT to this process")
@pytest.mark.usefixtures("sigint_restored")
def test_a_signal_while_the_server_makes_its_workers_ends_it_once_the_call_is_answered() -> None:
    """A signal that lands while the first tool call makes the worker pool (imports, a
    thread started, locks taken) lets it be made and the call handed to a worker, which
    finishes it before ``serve`` returns; nothing read after it is answered."""
    import signal

    from pi_memory.hosts.mcp import Server

    def lines() -> Iterator[bytes]:
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}\n'
        yield _PING % 2

    out = io.BytesIO()
    server = Server(out, before_work=_interrupt_here)
    server.end_on("SIGINT")
    server.serve(lines())
    assert server.ended_by == signal.SIGINT
    (reply,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert reply["id"] == 1 and reply["error"]["code"] == -32602  # an unknown tool


@pytest.mark.skipif(os.name != "posix", reason="a real SIGINT to this process")
@pytest.mark.usefixtures("sigint_restored")
def test_a_signal_ends_the_wait_for_a_line_at_once() -> None:
    """The server waits for its next line on a pipe whose writer stays open, as a host's
    does: the signal turns the input into ``/dev/null``, whose end the read retried after
    the handler finds; a line that came before is answered first."""
    import signal
    import threading
    import time

    from pi_memory.hosts.mcp import Server

    read_end, write_end = os.pipe()
    os.write(write_end, _PING % 1)
    out = io.BytesIO()
    server = Server(out)
    server.end_on("SIGINT")
    signal_soon = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    closed: list[int] = []

    def close_writer() -> None:
        os.close(write_end)
        closed.append(write_end)

    close_late = threading.Timer(20, close_writer)  # without the signal, a test fails, not hangs
    with os.fdopen(read_end, "rb") as lines:
        started = time.monotonic()
        signal_soon.start()
        close_late.start()
        server.serve(lines)
        took = time.monotonic() - started
        assert lines.raw.read() == b""  # type: ignore[attr-defined]
    close_late.cancel()
    close_late.join()
    signal_soon.join()
    if not closed:
        os.close(write_end)
    assert took < 10
    assert server.ended_by == signal.SIGINT
    assert [json.loads(line)["id"] for line in out.getvalue().splitlines()] == [1]


@pytest.mark.skipif(os.name != "posix", reason="POSIX signal dispositions")
def test_the_server_keeps_a_signal_its_starter_ignored() -> None:
    """``nohup``, or a shell's background job's SIGINT: ignored signals stay ignored."""
    import signal

    from pi_memory.hosts.mcp import Server

    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        Server(io.BytesIO()).end_on("SIGHUP")
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="a FIFO where the note is read")
@pytest.mark.usefixtures("sigint_restored")
def test_a_signal_while_the_reading_thread_works_out_an_answer_ends_the_server_at_once(
    tmp_path: Path, hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tools/list`` reads the directory's note; here the note is a FIFO nobody writes, so
    the answer waits in that read when SIGINT comes. Nothing is held while an answer is
    worked out on the reading thread: the server ends there, without the answer (its
    client is going), rather than once it is worked out and sent."""
    import signal
    import threading
    import time

    from pi_memory.hosts.mcp import Server
    from pi_memory.hosts.quick_hook import note_stem

    monkeypatch.chdir(tmp_path)
    notes = hermetic_home / ".cache/pi_memory/hooks"
    notes.mkdir(parents=True)
    fifo = notes / f"{note_stem(os.getcwd())}.json"
    os.mkfifo(fifo)

    def write_nothing() -> None:
        os.close(os.open(fifo, os.O_WRONLY))  # the read ends: a test fails, not hangs

    out = io.BytesIO()
    server = Server(out)
    server.end_on("SIGINT")
    signal_soon = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    unblock_late = threading.Timer(20, write_nothing)
    lines = [b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n', _PING % 2]
    started = time.monotonic()
    signal_soon.start()
    unblock_late.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            server.serve(lines)
    finally:
        unblock_late.cancel()
        signal_soon.join()
    assert time.monotonic() - started < 10
    assert server.ended_by == signal.SIGINT
    assert out.getvalue() == b""


def test_an_interrupt_a_finaliser_swallows_is_not_printed_once_the_input_is_ended() -> None:
    """The interrupt that drops an answer may land in a finaliser, which swallows it: the
    input is ended already, and no traceback goes to the host's log; another exception
    a finaliser swallows is still printed."""
    code = (
        "from pi_memory.hosts.mcp import _quiet_interrupts\n"
        "class Interrupted:\n"
        "    def __del__(self):\n"
        "        raise KeyboardInterrupt\n"
        "class Broken:\n"
        "    def __del__(self):\n"
        "        raise ValueError('still shown')\n"
        "_quiet_interrupts()\n"
        "Interrupted()\n"
        "Broken()\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60,
        check=True,
    )  # fmt: skip
    assert "KeyboardInterrupt" not in done.stderr
    assert "ValueError: still shown" in done.stderr
