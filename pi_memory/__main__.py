from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def _bytecode_cache() -> None:
    """Keep compiled bytecode even where the package directory is read-only (vendored).

    Python cannot write ``__pycache__`` there, so every hook would compile the
    package again. A ``pycache_prefix`` under the user's cache directory gives
    it somewhere to keep it; a read-only copy that ships its bytecode, or a
    user's own prefix, is left alone. Where bytecode is not written (``-B``,
    ``PYTHONDONTWRITEBYTECODE``) the prefix is still read: ``install`` compiled
    the package there (:func:`pi_memory.launcher.compile_package`). It must be set
    before the package's modules are imported.
    """
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    if sys.pycache_prefix or not os.path.isdir(here):
        return  # not a directory: a zipapp, which carries its own bytecode
    shipped = os.path.join(here, "__pycache__", f"cli.{sys.implementation.cache_tag}.pyc")
    if os.access(here, os.W_OK) or os.path.exists(shipped):
        return
    from pi_memory.fs.cache_home import cache_home

    sys.pycache_prefix = os.path.join(cache_home(), "pycache")


def _package_path() -> None:
    """``python /path/to/pi_memory ARGS`` (how installed hooks run it, needing no
    PYTHONPATH) puts the package directory itself on the path; the package is
    imported from the directory that holds it instead."""
    import os

    if not __package__:
        sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run() -> int:
    """A hook goes straight to its handler: the CLI's table and error handling are a
    person's, and every module a hook imports is paid on every agent event."""
    if sys.argv[1:2] in (["search"], ["write"]):
        import gc

        # A search or a write does its one thing and exits: nearly all it allocates is
        # live to the end or freed by its count, so the cycle collector only walks it
        # (about 5% of a search's CPU at 100,000 memories; about 30 ms of a write's
        # 250, most of it over the objects its imports make).
        gc.disable()
    if sys.argv[1:2] == ["hook"]:
        from pi_memory.hosts.hooks import run_hook

        return run_hook(sys.argv[2:])
    if sys.argv[1:] == ["mcp"]:
        try:
            from pi_memory.hosts.mcp import serve

            return serve()  # its first answers need neither the command table nor argparse
        except KeyboardInterrupt:  # ^C before the server set its own handler
            return 130
    if sys.argv[1:] == ["tool", "--list"]:
        from pi_memory.hosts.quick_hook import tool_list

        if tool_list():
            return 0  # as the last hook here worked it out, nothing it depends on changed
    from pi_memory.cli import main

    return main()


def _leave(code: int) -> NoReturn:
    """End a hook or the MCP server at once, without the interpreter's finalisation.

    A host waits for these processes (a hook's exit, the MCP server's after its
    SIGINT: Claude Code polls for it every 50 ms), and tearing down their modules
    and collecting their objects is 5-8 ms of CPU and 10-30 ms of the server's
    exit, work whose result nobody reads. What finalisation would still do that
    matters is done here: the output is flushed; the system closes the files
    (every write goes through a ``with`` or is flushed line by line); a detached
    worker does not depend on this exit. A process with a thread still running
    ends the usual way, which waits for it.
    """
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        # A worker still running (a tool call the server was told to end during): the
        # interpreter's exit joins it, so its write finishes and its lock is let go.
        raise SystemExit(code)
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the host went away: nothing left to tell it
            pass
    os._exit(code)


_package_path()
_bytecode_cache()
_code = _run()  # after the bytecode location is settled
if sys.argv[1:2] == ["hook"] or sys.argv[1:] == ["mcp"]:
    _leave(_code)
raise SystemExit(_code)
