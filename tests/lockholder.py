"""A real process holding a store's lock until the test lets it go."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, cast

from tests.conftest import REPO

# Holds the lock of argv[1] for op argv[2] until its stdin is closed.
HOLD = """
import sys
from pathlib import Path
from pi_memory.fs.lock import StoreLock
with StoreLock(Path(sys.argv[1]), sys.argv[2]):
    print("held", flush=True)
    sys.stdin.read()
print("released", flush=True)
"""


class Holder:
    """A real process holding the store lock."""

    def __init__(self, directory: Path, op: str = "add") -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(directory), op],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.stdout.readline() == b"held\n"
        self.pid = self.proc.pid

    @property
    def stdout(self) -> IO[bytes]:
        return cast("IO[bytes]", self.proc.stdout)

    def release(self) -> None:
        cast("IO[bytes]", self.proc.stdin).close()
        assert self.stdout.readline() == b"released\n"
        self.proc.wait()
        self.stdout.close()

    def kill(self, *, reap: bool = True) -> None:
        self.proc.send_signal(signal.SIGKILL if os.name == "posix" else signal.SIGTERM)
        if reap:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
