"""The viewer's state, shared by every request: the token, the project, and the store.

The store is opened once and kept while nothing on disk changes: each request
compares the layers' change tokens (file identities, and each directory's own
identity, which every atomic write changes), and opens it again when they
differ: a write by a hook or a session shows on the next page. What is costly
to work out (the health of 100,000 memories) is remembered for the same span.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeVar

from pi_memory.viewer.security import CsrfTokens

if TYPE_CHECKING:
    from pi_memory.open_store import Opened
    from pi_memory.store import Store

T = TypeVar("T")


class App:
    def __init__(self, project: Path, token: str, hosts: frozenset[str]) -> None:
        self.project = project
        self.token = token
        self.hosts = hosts
        self.csrf = CsrfTokens()
        #: Held while a page reads or changes the store: one page at a time.
        self.busy = threading.RLock()
        self._opened: Opened | None = None
        self._generation: tuple[object, ...] = ()
        self._memo: dict[str, object] = {}

    def opened(self) -> Opened:
        """The store of the project, opened again when a layer changed on disk."""
        from pi_memory.open_store import open_store

        with self.busy:
            if self._opened is not None and self._now() == self._generation:
                return self._opened
            self._opened = open_store(self.project, warn=False)
            self._memo = {}
            self._generation = self._now()
            return self._opened

    def store(self) -> Store:
        return self.opened().store

    def changed(self) -> None:
        """Forget what was read: this process just wrote."""
        with self.busy:
            self._opened = None

    def memo(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()``, remembered until the store changes on disk."""
        with self.busy:
            self.opened()
            if name not in self._memo:
                self._memo[name] = compute()
            return self._memo[name]  # type: ignore[return-value]

    def _now(self) -> tuple[object, ...]:
        from pi_memory.entry import LAYERS

        if self._opened is None:
            return ()
        store = self._opened.store
        marks: list[object] = []
        for layer in LAYERS:
            directory = store.directory(layer)
            try:
                st = directory.stat()
                marks.append((st.st_ino, st.st_mtime_ns))
            except OSError:
                marks.append(None)
            marks.append(store.layer(layer).change_token() if directory.is_dir() else None)
        return tuple(marks)
