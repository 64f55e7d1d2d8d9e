"""Retry a filesystem call through the short, transient failures of a busy machine.

Antivirus scanners, indexers and editors hold files open for a moment; a burst
of writers can run a process out of descriptors. Those failures pass on their
own, so the call is tried again on a short ladder. Anything else is raised at
once, as it is: a missing file or a full disk does not get better by waiting.
"""

from __future__ import annotations

import errno
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Final, TypeVar

if TYPE_CHECKING:
    T = TypeVar("T")

#: Transient everywhere.
TRANSIENT_CODES: Final = frozenset({"EBUSY", "EMFILE", "ENFILE", "ENOTEMPTY"})
#: Transient on Windows only, where a file another program holds open refuses a
#: rename or a delete with a permission error; on POSIX these are real refusals.
WIN32_TRANSIENT_CODES: Final = frozenset({"EPERM", "EACCES"})

#: Delay before retry n is ``min(300, 20 * 2**n)`` milliseconds: 20, 40, 80, 160, 300, 300.
RETRY_DELAYS_MS: Final = tuple(min(300, 20 * 2**attempt) for attempt in range(6))


def is_transient_code(code: str, platform: str = sys.platform) -> bool:
    """Whether an errno name such as ``"EBUSY"`` is worth another try on ``platform``."""
    if code in TRANSIENT_CODES:
        return True
    return platform == "win32" and code in WIN32_TRANSIENT_CODES


def is_transient(error: BaseException, platform: str = sys.platform) -> bool:
    """Whether ``error`` is an OS error with a transient code (an error without a code is not)."""
    if not isinstance(error, OSError) or error.errno is None:
        return False
    code = errno.errorcode.get(error.errno)
    return code is not None and is_transient_code(code, platform)


def retry(
    fn: Callable[..., T],
    *args: object,
    platform: str = sys.platform,
    sleep: Callable[[float], object] = time.sleep,
) -> T:
    """Call ``fn(*args)``; on a transient error wait and call again, up to six times.

    The last error, or the first one that is not transient, is raised unchanged.
    """
    for delay_ms in RETRY_DELAYS_MS:
        try:
            return fn(*args)
        except OSError as error:
            if not is_transient(error, platform):
                raise
        sleep(delay_ms / 1000)
    return fn(*args)
