"""Which parts of a case's input its adapter read: an input a harness ignores is a case
it cannot tell from another, so every key of every case must be read (or named here)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

#: Keys a case may give that no adapter reads, and why: words for a person, or a field
#: the design's behaviour does not look at.
NOT_READ: dict[str, str] = {
    "fn": "the behaviour's name: the harness dispatches on it",
    "note": "a note for a person",
    "note_git": "a note for a person: how git came to hold the remotes given",
    "buildSideQueryTask:entries[].name": "its manifest line is [type] file — description",
}


def unread(given: dict[str, Any], reads: Reads) -> list[str]:
    """The key paths of ``given`` nothing read, but those :data:`NOT_READ` names (a key
    anywhere, or ``fn:path`` for one behaviour's)."""
    fn = dict.get(given, "fn")
    return sorted(
        path
        for path in every_path(given) - reads.paths
        if path.rsplit(".", 1)[-1] not in NOT_READ and f"{fn}:{path}" not in NOT_READ
    )


class Reads:
    """The key paths read so far (``ops[].name``: a key of an element of ``ops``)."""

    def __init__(self) -> None:
        self.paths: set[str] = set()

    def wrap(self, value: Any, path: str) -> Any:
        if isinstance(value, dict):
            return TrackedDict(value, path, self)
        if isinstance(value, list):
            return TrackedList(value, path, self)
        return value


def every_path(value: Any, path: str = "") -> set[str]:
    """Every key path of ``value``, as :class:`Reads` spells them."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            here = f"{path}.{key}" if path else str(key)
            found.add(here)
            found |= every_path(inner, here)
    elif isinstance(value, list):
        for inner in value:
            found |= every_path(inner, f"{path}[]")
    return found


class TrackedDict(dict):  # type: ignore[type-arg]
    """A case's mapping that records each key read through it."""

    def __init__(self, data: dict[str, Any], path: str, reads: Reads) -> None:
        super().__init__(data)
        self._path, self._reads = path, reads

    def _key(self, key: object) -> str:
        return f"{self._path}.{key}" if self._path else str(key)

    def __getitem__(self, key: str) -> Any:
        self._reads.paths.add(self._key(key))
        return self._reads.wrap(super().__getitem__(key), self._key(key))

    def get(self, key: str, default: Any = None) -> Any:
        self._reads.paths.add(self._key(key))
        if dict.__contains__(self, key):
            return self._reads.wrap(super().__getitem__(key), self._key(key))
        return default

    def keys_plain(self) -> list[str]:
        return list(super().keys())

    def __contains__(self, key: object) -> bool:
        self._reads.paths.add(self._key(key))
        return super().__contains__(key)

    def _all(self) -> None:
        for key in dict.__iter__(self):
            self._reads.paths.add(self._key(key))

    def __iter__(self) -> Iterator[str]:
        self._all()
        return iter(list(super().keys()))

    def keys(self) -> Any:
        self._all()
        return super().keys()

    def items(self) -> Any:
        return [(key, self[key]) for key in self.keys_plain()]

    def values(self) -> Any:
        return [self[key] for key in self.keys_plain()]


class TrackedList(list):  # type: ignore[type-arg]
    def __init__(self, data: list[Any], path: str, reads: Reads) -> None:
        super().__init__(data)
        self._path, self._reads = f"{path}[]", reads

    def __getitem__(self, index: Any) -> Any:
        found = super().__getitem__(index)
        if isinstance(index, slice):
            return [self._reads.wrap(v, self._path) for v in found]
        return self._reads.wrap(found, self._path)

    def __iter__(self) -> Iterator[Any]:
        return (self._reads.wrap(v, self._path) for v in list.__iter__(self))
