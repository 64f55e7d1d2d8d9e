"""``python -m pi_memory mcp``: the memory tools over MCP (JSON-RPC 2.0, a message a line).

A thin adapter: ``tools/call`` runs the same tools (:mod:`pi_memory.agent_tools`) as
``python -m pi_memory tool NAME``. Clients send requests concurrently and
notifications without ids, so each request runs on a worker thread and its
answer is written whole, one line at a time, under a lock; a notification is
never answered. stdout carries the protocol and nothing else: whatever else
the process (or a child it starts) prints goes to stderr, and errors go to the
log file. No message a client sends stops the server: the end of its input does,
or a signal, which ends the input (:meth:`Server.end_on`).
"""

from __future__ import annotations

import os
import sys
from _thread import allocate_lock

from pi_memory import __version__

TYPE_CHECKING = False  # typing is not needed to answer a client's first requests
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from concurrent.futures import ThreadPoolExecutor
    from types import FrameType, ModuleType
    from typing import IO, Any, Final

#: Newest first; a client asking for another version gets the newest (the spec's negotiation).
HELP: Final = """\
Serve the memory tools (memory_search and memory_write, or memory in the files
layout) to an agent that speaks the Model Context Protocol, over stdin and
stdout. The agent starts it; nobody runs it by hand. To add it to Claude Code,
Codex CLI or Gemini CLI: python -m pi_memory install HOST
It serves until the agent closes its input or sends SIGINT or SIGTERM, and
finishes every tool call it read before it exits; problems go to the log file.

What each tool does and the arguments it takes: python -m pi_memory tool --help"""

PROTOCOL_VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SERVER_NAME: Final = "pi_memory"
WORKERS: Final = 4
#: The one request answered on a worker thread; every other is quick (an unknown method is
#: an error at once) and answered on the reading thread, as a client's start waits for it.
WORKER_METHOD: Final = "tools/call"

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603

INSTRUCTIONS: Final = (
    "Persistent memory shared across sessions and agents. Search it before guessing at a "
    "project convention, command or past decision; write a memory when you learn something "
    "a future session would otherwise have to rediscover."
)


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def negotiate(requested: object) -> str:
    """The client's version when this server speaks it, else the newest it does."""
    if isinstance(requested, str) and requested in PROTOCOL_VERSIONS:
        return requested
    return PROTOCOL_VERSIONS[0]


def list_tools() -> dict[str, Any]:
    """The tools this directory's layout offers: as the last hook here noted them while
    nothing they depend on changed (no configuration, store or layout is loaded then),
    the note's JSON text put in the answer as it is, neither read nor written again."""
    from pi_memory.hosts.quick_hook import Encoded, noted_tools

    noted = noted_tools()
    if noted is not None:
        return {"tools": Encoded(noted)}
    from pi_memory.agent_tools.registry import offered_tools

    return {"tools": offered_tools()}


def call_tool(params: Mapping[str, Any]) -> dict[str, Any]:
    from pi_memory.agent_tools.registry import TOOLS
    from pi_memory.agent_tools.registry import call_tool as run

    name = params.get("name")
    if not isinstance(name, str) or name not in TOOLS:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name!r}; tools: {', '.join(TOOLS)}")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise RpcError(INVALID_PARAMS, "tools/call arguments must be a JSON object")
    ok, text = run(name, arguments)
    if ok:
        from pi_memory.hosts.after_change import after_change

        after_change()  # the next session start here reads one note
    return {"content": [{"type": "text", "text": text}], "isError": not ok}


def _initialize(params: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "protocolVersion": negotiate(params.get("protocolVersion")),
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": SERVER_NAME, "version": __version__},
        "instructions": INSTRUCTIONS,
    }


def _result(method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return _initialize(params)
    if method == "ping":
        return {}
    if method == "tools/list":
        return list_tools()
    if method == "tools/call":
        return call_tool(params)
    raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")


def _error(ident: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _valid_id(ident: object) -> bool:
    return ident is None or (isinstance(ident, (str, int)) and not isinstance(ident, bool))


def answer(message: object) -> dict[str, Any] | None:
    """The response to one JSON-RPC message; ``None`` for a notification or a client's response."""
    if not isinstance(message, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: expected a JSON object")
    ident = message.get("id")
    method = message.get("method")
    if "id" not in message:
        return None  # a notification: initialized, cancelled, … — never answered
    if not _valid_id(ident):
        return _error(None, INVALID_REQUEST, "Invalid Request: id must be a string or a number")
    if method is None and ("result" in message or "error" in message):
        return None  # a response to a request this server never sends
    if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
        return _error(
            ident, INVALID_REQUEST, 'Invalid Request: needs "jsonrpc": "2.0" and a method'
        )
    params = message.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return _error(ident, INVALID_PARAMS, "params must be a JSON object")
    try:
        return {"jsonrpc": "2.0", "id": ident, "result": _result(method, params)}
    except RpcError as exc:
        return _error(ident, exc.code, exc.message)
    except Exception as exc:
        from pi_memory.error_handler import log_exception

        path = log_exception(f"mcp {method}", exc)
        where = f" (details in {path})" if path else ""
        return _error(ident, INTERNAL_ERROR, f"internal error: {type(exc).__name__}{where}")


class Server:
    """Reads messages, answers each on a worker thread, writes one line per answer."""

    def __init__(
        self,
        out: IO[bytes],
        workers: int = WORKERS,
        *,
        before_work: Callable[[], None] | None = None,
    ) -> None:
        self._out = out
        self._write_lock = allocate_lock()  # threading's Lock, without importing threading
        self._cancelled: set[object] = set()
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        #: Called on the reading thread before the first request goes to a worker.
        self._before_work = before_work
        #: The signal that ended the input (0: none came).
        self.ended_by = 0
        self._input_fd = -1
        #: The reading thread works out an answer it may drop (:meth:`_answer_here`).
        self._abandonable = False

    def serve(self, lines: Iterable[bytes]) -> None:
        """Answer ``lines`` until they end, or until a signal :meth:`end_on` set ends them;
        every tool call read is answered before it returns."""
        fileno = getattr(lines, "fileno", None)
        try:
            self._input_fd = fileno() if fileno is not None else -1
        except (OSError, ValueError):  # not a file: a signal ends the reading at its next line
            self._input_fd = -1
        if self.ended_by:
            self._end_input()  # the signal came before there was an input to end
        try:
            for raw in lines:
                if self.ended_by:
                    break  # a line read before the signal, or the part of one it cut off
                if raw.strip():
                    self._receive(raw)
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)  # every tool call read is answered before exit

    def end_on(self, *names: str) -> None:
        """From now on each signal named ends the input, as the client's closing it does
        (where the signal has its default action: an ignored SIGINT, a ``nohup``, an
        embedding program's handler are kept). The handler ends the input first, and raises
        only where an answer is dropped whole (:meth:`_answer_here`): an exception raised
        wherever a signal lands can be swallowed by a finaliser (the import system's module
        locks have some: the server then read on, holding its host's exit) or stop the
        making of the worker pool halfway (a lock left held, a thread never joined)."""
        signal = _signal_module()
        for name in names:
            signum = getattr(signal, name, None)
            handler = signal.getsignal(signum) if signum is not None else None
            if signum is not None and handler in (signal.SIG_DFL, signal.default_int_handler):
                signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """The input's descriptor becomes ``/dev/null``: a wait for a line, interrupted by
        the signal and retried once this returns, reads the end of the input at once;
        the reading thread busy elsewhere stops at its next line."""
        del frame
        if not self.ended_by:
            self.ended_by = signum
            self._end_input()
            if self._abandonable:
                _quiet_interrupts()
                raise KeyboardInterrupt  # a finaliser may swallow it: the input is ended

    def _end_input(self) -> None:
        if self._input_fd < 0:
            return
        try:
            null = os.open(os.devnull, os.O_RDONLY)
            try:
                os.dup2(null, self._input_fd)
            finally:
                os.close(null)
        except OSError:
            raise KeyboardInterrupt from None  # no end of input to give: ^C's way, then

    def _submit(self, message: object) -> None:
        """Answer ``message`` on a worker; the pool is made for the first such request
        (``concurrent.futures`` imports ``logging``: a client's start waits for the
        answers to ``initialize`` and ``tools/list``, which need no worker)."""
        if self._pool is None:
            if self._before_work is not None:
                self._before_work()
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="mcp")
        self._pool.submit(self._run, message)

    def _receive(self, raw: bytes) -> None:
        from pi_memory.json_input import loads

        try:
            message = loads(raw.decode("utf-8"))
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            self._send(_error(None, PARSE_ERROR, f"Parse error: {exc}"))
            return
        if isinstance(message, dict) and "id" not in message:
            self._notify(message)
            return
        if isinstance(message, dict) and message.get("method") != WORKER_METHOD:
            # No worker pool (nor its imports) before the first tool call: Claude Code's
            # start probes with a method this server does not have (server/discover).
            self._answer_here(message)
            return
        self._submit(message)

    def _answer_here(self, message: Mapping[str, Any]) -> None:
        """Answer ``message`` on the reading thread. A signal that lands while the answer
        is worked out (nothing is held then, nothing written) ends the server at once,
        not once it is sent: its client is going."""
        self._abandonable = True
        try:
            reply = answer(message)
        finally:
            self._abandonable = False
        if reply is not None and reply.get("id") not in self._cancelled:
            self._send(reply)

    def _notify(self, message: Mapping[str, Any]) -> None:
        params = message.get("params")
        if message.get("method") == "notifications/cancelled" and isinstance(params, dict):
            ident = params.get("requestId")
            if isinstance(ident, (str, int)):
                self._cancelled.add(ident)

    def _run(self, message: object) -> None:
        """Answer ``message`` (a tool call, a batch) on a worker."""
        try:
            if isinstance(message, list):  # a batch (protocol 2025-03-26)
                if not message:
                    self._send(_error(None, INVALID_REQUEST, "Invalid Request: empty batch"))
                    return
                replies = [reply for reply in map(answer, message) if reply is not None]
                if replies:
                    self._send(replies)
                return
            reply = answer(message)
            if reply is not None and reply.get("id") not in self._cancelled:
                self._send(reply)
        except BaseException as exc:  # a worker must never die silently with a request unanswered
            from pi_memory.error_handler import log_exception

            log_exception("mcp worker", exc)

    def _send(self, payload: object) -> None:
        line = _dumps(payload).encode("ascii") + b"\n"  # ASCII: no pipe encoding can break it
        with self._write_lock:
            try:
                self._out.write(line)
                self._out.flush()
            except (OSError, ValueError):  # the client went away; nothing left to tell it
                pass


def _quiet_interrupts() -> None:
    """From now on a :class:`KeyboardInterrupt` swallowed by a finaliser (which Python
    reports as "Exception ignored") is not printed: the signal that raised it ended the
    input already, and the server ends at its next line. Other reports are printed."""
    previous = sys.unraisablehook

    def report(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)

    sys.unraisablehook = report


def _signal_module() -> ModuleType:
    """``_signal`` (built in, loaded at the interpreter's start), as ``signal``: importing
    ``signal`` itself would cost a client's start ``enum``."""
    if TYPE_CHECKING:
        import signal
    else:
        import _signal as signal
    return signal


def _dumps(payload: object) -> str:
    """``json.dumps(payload)``: without importing ``json`` for the plain values every
    answer is made of (:func:`pi_memory.hosts.quick_hook.dumps`)."""
    from pi_memory.hosts.quick_hook import dumps

    try:
        return dumps(payload, ascii_only=True)
    except ValueError:
        import json

        return json.dumps(payload, default=_decoded)


def _decoded(value: object) -> object:
    """What ``json`` writes for an :class:`~pi_memory.hosts.quick_hook.Encoded` value: the
    value its text holds."""
    from pi_memory.hosts.quick_hook import Encoded
    from pi_memory.json_input import parse

    if isinstance(value, Encoded):
        return parse(value.text)
    raise TypeError(f"not JSON: {type(value).__name__}")


def protocol_stdout() -> IO[bytes]:
    """A private handle on the real stdout; fd 1 itself (and children's) now goes to stderr."""
    sys.stdout.flush()
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(fd, "wb")


def run_mcp(args: list[str]) -> int:
    from pi_memory.errors import UsageError

    usage = "usage: python -m pi_memory mcp  (MCP over stdio; takes no arguments)"
    if args in (["-h"], ["--help"]):
        from pi_memory.output import write_line

        write_line(usage + "\n\n" + HELP)
        return 0
    if args:
        raise UsageError(usage)
    return serve()


def serve() -> int:
    """Serve stdin and stdout until the client closes its input: ``mcp`` as a client starts
    it, straight from ``pi_memory/__main__.py`` (the command table and a person's error
    handling are not loaded before the client's first answers). A signal ends it with 128
    plus its number, anything unexpected is logged and ends it with 1.

    SIGINT ends the reading from the start, SIGTERM and SIGHUP from the first tool call
    on (the first request that may take a lock); either way every tool call read is
    finished (its lock released) before the server exits (:meth:`Server.end_on`). Before
    the first tool call SIGTERM and SIGHUP keep their default action: the process holds
    nothing."""

    def at_first_tool_call() -> None:
        server.end_on("SIGTERM", "SIGHUP")

    server = Server(protocol_stdout(), before_work=at_first_tool_call)
    server.end_on("SIGINT")
    try:
        server.serve(sys.stdin.buffer)
    except KeyboardInterrupt:  # ^C where the input could not be ended
        return 128 + (server.ended_by or _signal_module().SIGINT)
    except Exception as exc:
        from pi_memory.error_handler import log_exception

        log_exception("mcp", exc)
        return 1
    return 128 + server.ended_by if server.ended_by else 0
