"""Running git for ``sync``: a timeout on every call, never a prompt for credentials.

A remote that asks for a password, an SSH key's passphrase or a host key
confirmation fails at once (``GIT_TERMINAL_PROMPT=0``, SSH in batch mode)
instead of waiting for a person who is not there; a remote that does not
answer fails after the timeout. The environment a person's shell gave git
(``GIT_DIR``, ``GIT_INDEX_FILE``…) never reaches these calls: they work on the
layer's own repository.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from pi_memory.errors import PiMemoryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["NETWORK_SECONDS", "Git", "GitFailed"]

#: How long a fetch or a push may take; a local call gets a tenth of it.
NETWORK_SECONDS: Final = 60
LOCAL_SECONDS: Final = 30
#: What a person's environment may set that would point git at another repository.
_REPOSITORY_VARIABLES: Final = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


class GitFailed(PiMemoryError):
    """A git call that failed, with git's own last line."""


def git_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a git call that must never prompt or wander to another repository."""
    out = {k: v for k, v in env.items() if k not in _REPOSITORY_VARIABLES}
    out["GIT_TERMINAL_PROMPT"] = "0"
    out["GCM_INTERACTIVE"] = "never"
    out["LC_ALL"] = "C"
    out.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    out.pop("GIT_ASKPASS", None)
    out.pop("SSH_ASKPASS", None)
    return out


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


class Git:
    """git run in one directory, with one environment."""

    def __init__(self, directory: Path, env: Mapping[str, str] | None = None) -> None:
        self.directory = directory
        self.env = git_environment(os.environ if env is None else env)

    def run(
        self,
        *args: str,
        network: bool = False,
        check: bool = True,
        extra: Mapping[str, str] | None = None,
        stdin: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``git ARGS``; :class:`GitFailed` when it fails (``check``) or takes too long."""
        timeout = NETWORK_SECONDS if network else LOCAL_SECONDS
        env = {**self.env, **(extra or {})}
        try:
            done = subprocess.run(
                ["git", *args],
                cwd=self.directory,
                env=env,
                input=stdin if stdin is not None else "",
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="surrogateescape",
                timeout=timeout,
                check=False,
            )
        except FileNotFoundError as exc:
            raise GitFailed("sync needs git, and git is not installed (not on PATH)") from exc
        except subprocess.TimeoutExpired as exc:
            raise GitFailed(f"git {args[0]} did not finish within {timeout} s") from exc
        if check and done.returncode != 0:
            why = _last_line(done.stderr) or _last_line(done.stdout) or f"exit {done.returncode}"
            raise GitFailed(f"git {args[0]} failed: {why}")
        return done

    def out(self, *args: str, extra: Mapping[str, str] | None = None) -> str:
        """The trimmed output of a local call that must succeed."""
        return self.run(*args, extra=extra).stdout.strip()

    def ok(self, *args: str) -> bool:
        """Whether a local call succeeds (a question to git, such as ``merge-base``)."""
        return self.run(*args, check=False).returncode == 0
