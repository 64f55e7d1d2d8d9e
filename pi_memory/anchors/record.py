"""The anchors file beside a layer's memories: ``anchors.jsonl``, one memory a line.

Neither reference design reads it (their readers look at ``.md`` files only),
so both layouts stay as their designs fix them. A line::

    {"id": "20261011-a1b2", "at": "2026-10-11 09:30:00", "via": "git",
     "commit": "<sha>", "paths": [["src/deploy.py", "<blob id>"]],
     "names": [["deploy_all", "src/deploy.py", "<blob id>"]]}

Lines are sorted by id, so two branches that each anchor a memory merge
line by line; should one id come twice (a union merge), the later ``at`` wins.
A damaged line is skipped. Written atomically, under the layer's write lock.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # read lazily: a hook asks only for the file's name
    from typing import Final

    from pi_memory.anchors.project import Found

FILE: Final = "anchors.jsonl"


class Anchor(NamedTuple):
    id: str
    #: When it was anchored (the store's time format).
    at: str
    found: Found


def path(directory: Path) -> Path:
    return directory / FILE


def parse(text: str) -> dict[str, Anchor]:
    """The anchors of ``text`` by memory id; lines that are not one are skipped."""
    anchors: dict[str, Anchor] = {}
    for line in text.splitlines():
        anchor = _anchor(line)
        if anchor is not None:
            held = anchors.get(anchor.id)
            if held is None or held.at <= anchor.at:
                anchors[anchor.id] = anchor
    return anchors


def _anchor(line: str) -> Anchor | None:
    from pi_memory.anchors.project import Found

    try:
        data = json.loads(line)
        found = Found(
            str(data["via"]),
            str(data.get("commit", "")),
            tuple((str(p), str(b)) for p, b in data.get("paths", ())),
            tuple((str(n), str(p), str(b)) for n, p, b in data.get("names", ())),
        )
        return Anchor(str(data["id"]), str(data.get("at", "")), found)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def render(anchors: Mapping[str, Anchor]) -> str:
    lines = []
    for key in sorted(anchors):
        anchor = anchors[key]
        data = {
            "id": anchor.id,
            "at": anchor.at,
            "via": anchor.found.via,
            "commit": anchor.found.commit,
            "paths": [list(p) for p in anchor.found.paths],
            "names": [list(n) for n in anchor.found.names],
        }
        lines.append(json.dumps(data, ensure_ascii=False, separators=(", ", ": ")))
    return "".join(line + "\n" for line in lines)


def read(directory: Path) -> dict[str, Anchor]:
    """The layer's anchors (none when the file is missing or unreadable)."""
    try:
        text = path(directory).read_text("utf-8", "replace")
    except OSError:
        return {}
    return parse(text)


def store(directory: Path, changes: Mapping[str, Anchor | None]) -> None:
    """Set (or, for ``None``, drop) the anchors of the given ids. Call under the layer's
    write lock; the file is replaced atomically."""
    from pi_memory.fs.atomic import atomic_write_text

    anchors = read(directory)
    before = dict(anchors)
    for key, anchor in changes.items():
        if anchor is None:
            anchors.pop(key, None)
        else:
            anchors[key] = anchor
    if anchors == before and path(directory).exists():
        return
    if not anchors and not path(directory).exists():
        return
    atomic_write_text(path(directory), render(anchors))


def ids(anchors: Iterable[Anchor]) -> list[str]:
    return [anchor.id for anchor in anchors]
