"""The scorer's corpus as a hook keeps it beside the directory's note (a marshal file).

Head (the lowered text, where each memory starts, the keywords, the memories'
offsets) behind its length, then each memory: a prompt's hook reads the text
it searches at once and unmarshals only the memories it picks. Written by the
fast path (:mod:`pi_memory.hosts.fastpath`), read by it and by a prompt
answered without the package (:mod:`pi_memory.hosts.quick_hook`). A file that
cannot be read is a miss: the full hook builds it again.
"""

from __future__ import annotations

from _collections_abc import Sequence  # what collections.abc names, without collections

TYPE_CHECKING = False  # typing costs every prompt's hook milliseconds
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.surfacing import Corpus, Item

#: Its name beside the note's: the note's stem and this.
SUFFIX: Final = ".corpus"


class _Items(Sequence["Item"]):
    """The corpus's memories, each unmarshalled only when asked for."""

    def __init__(self, data: bytes, offsets: Sequence[int], base: int) -> None:
        self._data = data
        self._offsets = offsets
        self._base = base

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, index: int) -> Item:  # type: ignore[override]  # no slices here
        import marshal

        from pi_memory.surfacing import Item

        if not 0 <= index < len(self):
            raise IndexError(index)
        start = self._base + self._offsets[index]
        end = self._base + self._offsets[index + 1]
        return Item._make(marshal.loads(self._data[start:end]))  # noqa: S302 - our own cache


def load(path: str) -> Corpus | None:
    """The scorer's corpus: the text to search now, each memory only when picked."""
    import marshal

    from pi_memory.surfacing import Corpus

    try:
        with open(path, "rb") as handle:
            data = handle.read()
        size = int.from_bytes(data[:4], "little")
        blob, starts, keys, offsets = marshal.loads(data[4 : 4 + size])  # noqa: S302 - ours
        # read as pack wrote them (array("q")), without importing array: it imports
        # collections, which costs every prompt's hook a few milliseconds
        where, at = memoryview(starts).cast("q"), memoryview(offsets).cast("q")
        return Corpus(blob, where, keys, _Items(data, at, 4 + size))
    except Exception:  # any unreadable cache is a miss
        return None


def pack(corpus: Corpus) -> bytes:
    """Head (blob, starts, keys, item offsets) behind its length, then each item."""
    import marshal
    from array import array

    rows = [marshal.dumps(tuple(i)) for i in corpus.items]
    offsets = array("q", [0])
    for row in rows:
        offsets.append(offsets[-1] + len(row))
    starts = array("q", corpus.starts).tobytes()
    head = marshal.dumps((corpus.blob, starts, tuple(corpus.keys), offsets.tobytes()))
    return len(head).to_bytes(4, "little") + head + b"".join(rows)
