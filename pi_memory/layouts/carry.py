"""What the two layouts share: the type <-> category table and the fields a memory carries.

A memory moved from one layout to the other keeps everything the engine
knows. The ``files`` layout keeps a category row's category and legacy
``tags`` text in frontmatter keys; the ``categories`` layout keeps a memory
file's name and fields in row header fields. This module owns the rules both
sides apply, so neither layout imports the other.

Type ↔ category (used by ``import``; a ``category`` key, when present, wins)
---------------------------------------------------------------------------
=============  ==========================================================
``user``       ``USER.md``
``reference``  ``TOOLING.md``
``feedback``   ``LESSONS.md`` (user layer) / ``CONVENTIONS.md`` (project layer)
``project``    ``DECISIONS.md``
=============  ==========================================================

``FAILURES.md`` becomes ``feedback`` and keeps ``category: FAILURES.md``; so
does any category file that is not the default for its type in its layer.
"""

from __future__ import annotations

import functools
import re

from pi_memory.entry import CATEGORY_FILES, PROJECT, USER, Entry, parse_time
from pi_memory.text import JS_SPACE, iso_timestamp, js_trim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

ENTRY_TYPES: Final = ("user", "feedback", "project", "reference")
DEFAULT_TYPE: Final = "feedback"
DESCRIPTION_MAX: Final = 200
#: ``Entry.extra`` keys for row fields that have no ``Entry`` field of their own:
#: the memory's file name in the files layout (the row's ``file``) and a stored
#: ``tags`` text that is not the keyword (a legacy 1-3 keyword row). A frontmatter
#: key cannot start with ``:``, so these never meet an unknown key, which a row
#: carries as ``x-<key>``.
FILE_NAME_KEY: Final = ":file"
RAW_TAGS_KEY: Final = ":tags"
#: The frontmatter key holding a category row's stored ``tags`` text when it is not
#: the keyword (a legacy 1-3 keyword row), so a copy back writes the row as it was.
LEGACY_TAGS: Final = "legacy-tags"


@functools.lru_cache(maxsize=1)
def _description_res() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A line's leading Markdown marker, and a sentence's end: compiled when a description
    is first derived (a few milliseconds, which a search never needs)."""
    space = "[" + re.escape(JS_SPACE) + "]"
    marker = rf"\A{space}*(#{{1,6}}{space}+|[-*+]{space}+|[0-9]+[.)]{space}+)"
    return re.compile(marker), re.compile("[。！？!?.]")


_DEFAULT_CATEGORY: Final = {
    "user": {USER: "USER.md", PROJECT: "USER.md"},
    "reference": {USER: "TOOLING.md", PROJECT: "TOOLING.md"},
    "feedback": {USER: "LESSONS.md", PROJECT: "CONVENTIONS.md"},
    "project": {USER: "DECISIONS.md", PROJECT: "DECISIONS.md"},
}
_CATEGORY_TYPE: Final = {
    "USER.md": "user",
    "TOOLING.md": "reference",
    "LESSONS.md": "feedback",
    "CONVENTIONS.md": "feedback",
    "DECISIONS.md": "project",
    "FAILURES.md": "feedback",
}


def derive_description(body: str, max_chars: int | None = None) -> str:
    """The first sentence of the first non-blank line, Markdown markers stripped.

    Longer than ``max_chars`` (default 200, counted in UTF-16 units as upstream)
    it is cut to ``max_chars - 1`` and ends with ``…``.
    """
    limit = DESCRIPTION_MAX if max_chars is None else max_chars
    first = next((line for line in body.split("\n") if js_trim(line)), "")
    marker, sentence_end = _description_res()
    cleaned = js_trim(marker.sub("", first, count=1))
    stop = sentence_end.search(cleaned)
    sentence = js_trim(cleaned if stop is None else cleaned[: stop.end()])
    if _utf16_len(sentence) <= limit:
        return sentence
    return _utf16_prefix(sentence, limit - 1) + "…"


def _utf16_len(text: str) -> int:
    return sum(2 if ord(char) > 0xFFFF else 1 for char in text)


def _utf16_prefix(text: str, units: int) -> str:
    """The first ``units`` UTF-16 units; a split astral character becomes U+FFFD, as in Node."""
    out: list[str] = []
    used = 0
    for char in text:
        width = 2 if ord(char) > 0xFFFF else 1
        if used + width > units:
            if used < units:
                out.append("\ufffd")
            break
        out.append(char)
        used += width
    return "".join(out)


def default_category(kind: str, layer: str) -> str:
    """The categories-layout file a memory of type ``kind`` goes to in ``layer``."""
    return _DEFAULT_CATEGORY.get(kind, _DEFAULT_CATEGORY[DEFAULT_TYPE])[layer]


def type_for_category(category: str) -> str:
    """The type of a memory from category file ``category``; ``""`` for any other file."""
    return _CATEGORY_TYPE.get(category, "")


def home_category(kind: str, layer: str) -> str:
    """The category file of ``layer`` a memory of type ``kind`` goes to.

    The table maps ``project`` to ``DECISIONS.md`` and ``user``/``reference``
    to ``USER.md``/``TOOLING.md``, files only one layer has; in the other
    layer such a memory goes where a ``feedback`` one goes (its row keeps its type).
    """
    category = default_category(kind, layer)
    if category in CATEGORY_FILES[layer]:
        return category
    return default_category(DEFAULT_TYPE, layer)


def category_of(entry: Entry) -> str:
    """Where ``entry`` goes in the categories layout: its ``category`` key, else its type's file."""
    stored = dict(entry.extra).get("category", "")
    return stored or home_category(entry.type or DEFAULT_TYPE, entry.layer)


def derived_name(entry: Entry) -> str:
    """The name of a memory that comes without one: its body's first sentence, else its keyword."""
    sentence = derive_description(js_trim(entry.body), 80).rstrip("。！？!?.")
    return (sentence or entry.keyword or entry.id).replace("](", "] (")


def category_entry(entry: Entry) -> Entry:
    """``entry`` as a category row holds it: in its category's file, with only what
    the files layout's ``append`` could not derive from the row set, so a copy back
    gives the same file.
    """
    from pi_memory.naming.entry_names import unique_entry_file_name

    extra = dict(entry.extra)
    wanted = extra.pop("category", "")
    raw_tags = extra.pop(LEGACY_TAGS, "")
    if wanted and wanted not in CATEGORY_FILES[entry.layer]:
        extra = {"category": wanted, **extra}  # kept, though this layer has no such file
        wanted = ""
    category = wanted or home_category(entry.type, entry.layer)
    name = entry.name or derived_name(entry)
    parsed = parse_time(entry.time)
    derived = {
        "name": derived_name(entry),
        "description": derive_description(entry.body) or name,
        "type": type_for_category(category) or DEFAULT_TYPE,
        "created": entry.time[:10] if entry.time else entry.modified[:10],
        "modified": iso_timestamp(parsed) if parsed is not None else "",
        FILE_NAME_KEY: unique_entry_file_name(name, (), case_insensitive=False),
    }
    actual = {
        "name": entry.name,
        "description": entry.description,
        "type": entry.type,
        "created": entry.created,
        "modified": entry.modified,
        FILE_NAME_KEY: entry.file,
    }
    kept = {key: "" if value == derived[key] else value for key, value in actual.items()}
    carried: list[tuple[str, str]] = []
    if raw_tags:
        as_row = entry._replace(extra=((RAW_TAGS_KEY, raw_tags),))
        if stored_tags(as_row) == raw_tags:
            carried.append((RAW_TAGS_KEY, raw_tags))
        else:
            extra[LEGACY_TAGS] = raw_tags  # a row could not hold it as its tags
    if kept[FILE_NAME_KEY]:
        carried.append((FILE_NAME_KEY, kept[FILE_NAME_KEY]))
    return entry._replace(
        file=category,
        name=kept["name"],
        description=kept["description"],
        type=kept["type"],
        created=kept["created"],
        modified=kept["modified"],
        extra=(*carried, *extra.items()),
    )


def stored_tags(entry: Entry) -> str:
    """The ``tags`` text of a new row: a carried legacy text only while it reads as the keyword."""
    raw = dict(entry.extra).get(RAW_TAGS_KEY, "")
    if not raw or "|" in raw or ">" in raw:
        return entry.keyword
    from pi_memory.keywords import coerce_keywords

    return raw if coerce_keywords(raw, entry.body)[0] == entry.keyword else entry.keyword
