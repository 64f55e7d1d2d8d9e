"""What each golden category file is expected to produce (shared by the test and the updater)."""

from __future__ import annotations

from pathlib import Path

from pi_memory.entry import Entry
from pi_memory.layouts.carry import RAW_TAGS_KEY
from pi_memory.layouts.categories.format import (
    append_row,
    decode,
    encode,
    parse_entries,
    remove_rows,
    repair_tags,
    update_rows,
)

CASES_DIR = Path(__file__).resolve().parent / "data" / "categories"

NEW_ENTRY = Entry(
    id="20261130-9f9f",
    time="2026-11-30 12:00:00",
    project="demo",
    src="user",
    keyword="appended",
    body="A row appended by the golden test.",
    layer="project",
    file="DECISIONS.md",
)


#: Fields a row carries only for a memory from the files layout.
CARRIED = ("name", "description", "type", "created", "modified", "extra")


def parse_json(entries: list[Entry]) -> list[dict[str, object]]:
    """Each entry as JSON; the carried fields only when a row has them.

    A legacy row's ``tags`` text kept in ``extra`` is pinned by its own test,
    so that rows without carried fields keep their JSON as it was.
    """
    out = []
    for e in entries:
        row = e._asdict()
        row["supersedes"] = list(e.supersedes)
        row["extra"] = [list(pair) for pair in e.extra if pair[0] != RAW_TAGS_KEY]
        for key in CARRIED:
            if not row[key]:
                del row[key]
        out.append(row)
    return out


def expected_outputs(source: Path) -> dict[str, object]:
    text = decode(source.read_bytes())
    entries = parse_entries(text, "project", "DECISIONS.md")
    out: dict[str, object] = {".json": parse_json(entries)}
    if entries:
        last = entries[-1]
        bumped = last._replace(seen=last.seen + 1, last="2026-11-30 12:00:00")
        out[".bumped.md"] = encode(update_rows(text, {last.id: bumped}, "project", "DECISIONS.md"))
        out[".removed.md"] = encode(remove_rows(text, {entries[0].id}, "project", "DECISIONS.md"))
    out[".appended.md"] = encode(append_row(text, NEW_ENTRY))
    out[".repaired.md"] = encode(repair_tags(text, "project", "DECISIONS.md")[0])
    return out
