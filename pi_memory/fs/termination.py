"""SIGTERM and SIGHUP end a run the way ^C does: by an exception, so the write lock is let go.

A host sends SIGTERM to a hook that ran past its time and to an MCP server
when its client quits; a closing terminal sends SIGHUP. Their default action
ends the process at once, and a process that held ``<dir>/.lock`` then left
it behind for a person to clear. Once a process takes the lock the first
time, each of them (where it still has its default action: a ``nohup`` is
kept) raises :class:`Terminated` instead, which unwinds like
``KeyboardInterrupt``: every ``with StoreLock`` on the way releases its file.

The few instructions that create or remove the lock file run
:class:`uninterrupted`: a signal that arrives there is raised when they end,
so the file and the record of who holds it never disagree.

A signal that arrives while a finaliser runs (an object's ``__del__``, a
weakref callback) raises there, where Python prints "Exception ignored" and
goes on as if nothing had happened. The process's unraisable hook takes such
a :class:`Terminated` back: nothing is printed, and a one-shot timer (SIGALRM,
a millisecond later) raises it again once the finaliser has returned; should
the timer land in the hook itself, or in another finaliser, it is put off again.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing costs the MCP server's start milliseconds
if TYPE_CHECKING:
    from types import FrameType, ModuleType, TracebackType


class Terminated(KeyboardInterrupt):
    """The process was told to end by ``signum``; it ends as soon as its locks are released."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The shell's convention for a process ended by a signal."""
        return 128 + self.signum


def _on_main_thread() -> bool:
    """Whether this is the main thread, where signals are handled. A process that never
    imported ``threading`` started no thread with it: it runs on its main thread alone
    (and a command does not pay the import, a few milliseconds, to learn that)."""
    threading = sys.modules.get("threading")
    return threading is None or threading.current_thread() is threading.main_thread()


def _signal_module() -> ModuleType:
    """``signal``'s functions and numbers as ``_signal`` (built into the interpreter, loaded
    at its start) has them: ``signal`` itself imports ``enum`` to wrap the same numbers,
    a few milliseconds of every MCP server's start and every write's."""
    if TYPE_CHECKING:
        import signal
    else:
        import _signal as signal
    return signal


_installed = False
_held_back = 0
_pending: int | None = None


def end_by_exception() -> None:
    """From now on SIGTERM and SIGHUP raise :class:`Terminated` (main thread only; idempotent)."""
    global _installed  # noqa: PLW0603 -- a process installs its handlers once
    if _installed or not _on_main_thread():
        return
    import sys

    signal = _signal_module()

    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _raise)
    if hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) == signal.SIG_DFL:
        signal.signal(signal.SIGALRM, _raise_put_off)
        previous = sys.unraisablehook

        def unraisable(report: sys.UnraisableHookArgs) -> None:
            if isinstance(report.exc_value, Terminated):
                _put_off(report.exc_value.signum)
            else:
                previous(report)

        sys.unraisablehook = unraisable
    _installed = True


_put_off_signum: int | None = None


def _put_off(signum: int) -> None:
    """Raise :class:`Terminated` for ``signum`` a moment from now, outside the finaliser."""
    global _put_off_signum  # noqa: PLW0603 -- one signal waits for the timer
    _put_off_signum = signum
    signal = _signal_module()
    signal.setitimer(signal.ITIMER_REAL, 0.001)


def _raise_put_off(alarm: int, frame: FrameType | None) -> None:
    del alarm
    signum = _put_off_signum
    if signum is None:
        return
    if frame is not None and frame.f_code.co_name in ("unraisable", "_put_off"):
        _put_off(signum)  # still in the hook: a moment later again
        return
    _raise(signum, frame)


def _raise(signum: int, frame: FrameType | None) -> None:
    global _pending  # noqa: PLW0603 -- the signal held back for the end of the block
    del frame
    if _held_back:
        _pending = signum
        return
    raise Terminated(signum)


class uninterrupted:
    """Hold :class:`Terminated` back until the block ends; in the main thread, where
    signals are handled (another thread's block needs no holding back)."""

    __slots__ = ("_main",)

    def __enter__(self) -> None:
        global _held_back  # noqa: PLW0603
        self._main = _on_main_thread()
        if self._main:
            _held_back += 1

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _held_back, _pending  # noqa: PLW0603
        if not self._main:
            return
        _held_back -= 1
        if not _held_back and _pending is not None:
            signum, _pending = _pending, None
            raise Terminated(signum)
