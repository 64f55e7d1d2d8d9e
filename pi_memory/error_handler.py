"""Turn any failure into one line for a person, and the details into the log file."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from pi_memory.errors import PiMemoryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

LOG_FILE: Final = "pi_memory.log"
LOG_KEEP_BYTES: Final = 256 * 1024


class Exit(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def log_path() -> Path:
    """The log file lives in the user layer directory, which never needs configuration."""
    from pi_memory.naming.layer_dirs import categories_user_dir

    return categories_user_dir(os.environ) / LOG_FILE


def log_exception(context: str, exc: BaseException) -> Path | None:
    """Append ``exc`` with its traceback to the log; never raises."""
    import time
    import traceback

    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > LOG_KEEP_BYTES:
            path.replace(path.with_name(LOG_FILE + ".1"))
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        with path.open("a", encoding="utf-8", errors="backslashreplace") as log:
            log.write(f"--- {stamp} pid {os.getpid()} {context}\n{text}")
    except Exception:
        return None
    return path


def log_line(context: str, message: str) -> None:
    """Append one line to the log (an expected failure: no traceback); never raises."""
    import time

    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        line = " ".join(message.split())
        with path.open("a", encoding="utf-8", errors="backslashreplace") as log:
            log.write(f"--- {stamp} pid {os.getpid()} {context}: {line}\n")
    except Exception:
        return


@contextlib.contextmanager
def error_handler(context: str) -> Iterator[None]:
    """Map exceptions to exit codes: 1 for a known failure, 130 for ^C (128 + the
    signal for SIGTERM and SIGHUP), 3 for a bug."""
    from pi_memory.output import error_line

    try:
        yield
    except PiMemoryError as exc:
        error_line(f"pi_memory: {exc}")
        raise Exit(1) from None
    except BrokenPipeError:
        # The reader went away (``show | head``): nothing left to say to it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise Exit(141) from None
    except KeyboardInterrupt as exc:
        from pi_memory.fs.termination import Terminated

        if isinstance(exc, Terminated):  # SIGTERM or SIGHUP, after the lock was let go
            raise Exit(exc.exit_code) from None
        error_line("pi_memory: interrupted")
        raise Exit(130) from None
    except (OSError, ValueError) as exc:
        path = log_exception(context, exc)
        where = f" (details in {path})" if path else ""
        error_line(f"pi_memory: {_describe(exc)}{where}")
        raise Exit(1) from None
    except Exception as exc:
        path = log_exception(context, exc)
        where = f"; details in {path}" if path else ""
        error_line(f"pi_memory: internal error: {type(exc).__name__}: {exc}{where}")
        raise Exit(3) from None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        name = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror}{name}"
    return str(exc) or type(exc).__name__
