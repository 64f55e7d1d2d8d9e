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

from pi_memory.viewer.security import CsrfTokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, TypeVar

    from pi_memory.open_store import Opened
    from pi_memory.store import Store

if TYPE_CHECKING:
    T = TypeVar("T")
#: Answers remembered per state of the store (searches, pages of them, the health).
MEMO_LIMIT = 256


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
        #: What :meth:`later` is working out now.
        self._running: set[str] = set()

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
                if len(self._memo) >= MEMO_LIMIT:
                    self._memo.clear()  # a person paging far: start again, never grow
                self._memo[name] = compute()
            return self._memo[name]  # type: ignore[return-value]

    def later(self, name: str, compute: Callable[[], T]) -> T | None:
        """``compute()`` in a thread of its own, remembered until the store changes on
        disk; None until it is done. ``compute`` must open what it reads itself.
        A failure is raised to the page that asks next."""
        with self.busy:
            self.opened()
            if name in self._memo:
                found = self._memo[name]
                if isinstance(found, Exception):
                    del self._memo[name]
                    raise found
                return found  # type: ignore[return-value]
            if name not in self._running:
                self._running.add(name)
                worker = threading.Thread(
                    target=self._work, args=(name, compute, self._generation), daemon=True
                )
                worker.start()
            return None

    def _work(self, name: str, compute: Callable[[], object], generation: object) -> None:
        try:
            value: object = compute()
        except Exception as exc:  # said on the page that asks next
            value = exc
        with self.busy:
            self._running.discard(name)
            if generation == self._generation:
                self._memo[name] = value

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
