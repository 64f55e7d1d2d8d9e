"""The recall log (``usage.json``): how often each keyword actually found something.

A search credits a keyword only when a returned memory carries it *and* the
query mentioned it, only on page 1 (a deeper page re-reads hits that were
already credited), and never for a fallback or a ``recent`` listing (nothing
was matched). Crediting every keyword of every hit would re-measure ``count``;
crediting keywords the query never mentioned would credit noise.

This module is the pure part: the text codec and the crediting rules. The
store does the read-modify-write under its lock. The log is derived state: a
missing or damaged file reads as "no data" and costs ranking bias only.

The file is one JSON object, ``{"<canonical key>": <recalls>, ...}``.

The use verdicts (below) are this module's second record: per memory, how
often the agent used or ignored it and how often the user had to say it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pi_memory.keywords import canonical_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Final

    from pi_memory.retrieval import Hit, SearchResult

#: Recalls per keyword: one noisy session cannot dominate the table.
MAX_RECALLS: Final = 10
#: Keys per file; beyond it the least-recalled keys go first.
MAX_KEYS: Final = 5000
#: A query token shorter than this is not "mentioning" a longer keyword.
_MIN_PARTIAL: Final = 2


def parse_recalls(text: str) -> dict[str, int]:
    """The counts in a ``usage.json`` text; whatever is unusable is left out.

    Not JSON, or not an object: ``{}``. Inside the object, a key that has no
    canonical form or a value that is not a non-negative integer is skipped;
    counts above the cap are clamped; spellings of one keyword are merged.
    """
    # json is imported when used: the session-start path imports this module.
    import json

    try:
        data = json.loads(text.lstrip("\ufeff"))
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    counts: dict[str, int] = {}
    for raw_key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            continue
        key = canonical_key(str(raw_key))
        if key:
            counts[key] = min(MAX_RECALLS, counts.get(key, 0) + value)
    return _trim(counts, frozenset())


def render_recalls(counts: Mapping[str, int]) -> str:
    """``usage.json`` text: sorted keys, so equal counts are equal bytes."""
    import json

    return json.dumps(dict(counts), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _query_forms(query: str | Sequence[str]) -> list[str]:
    if isinstance(query, str):
        from pi_memory.tokens import tokenize

        forms = [canonical_key(query), *(canonical_key(token) for token in tokenize(query))]
    else:
        forms = [canonical_key(token) for token in query]
    return [form for form in forms if form]


def mentions(forms: Sequence[str], key: str) -> bool:
    """Did a query (as canonical forms) mention keyword ``key``?

    Equal, or a substring either way: ``deploy`` mentions ``deploy-script``
    and ``rsync delete`` mentions ``rsync``. A one-character token is too
    weak to mention a longer keyword.
    """
    for form in forms:
        if form == key or key in form:
            return True
        if len(form) >= _MIN_PARTIAL and form in key:
            return True
    return False


def credited_keywords(
    query: str | Sequence[str],
    hits: Iterable[Hit],
    mode: str,
    page: int,
    fallback: bool,
) -> set[str]:
    """The canonical keys a search earns: hits' keywords that the query mentioned.

    ``query`` is the query text (or its tokens); ``hits`` are the returned
    page. Superseded hits earn nothing: their keyword has left the index.
    """
    if page != 1 or fallback or mode == "recent":
        return set()
    forms = _query_forms(query)
    credited: set[str] = set()
    for hit in hits:
        entry = hit.entry
        key = canonical_key(entry.keyword)
        if entry.live and key and key not in credited and mentions(forms, key):
            credited.add(key)
    return credited


def credits_for(result: SearchResult) -> set[str]:
    """:func:`credited_keywords` for a finished search."""
    return credited_keywords(result.query, result.hits, result.mode, result.page, result.fallback)


def apply_credits(counts: Mapping[str, int], keywords: Iterable[str]) -> dict[str, int]:
    """New counts with one recall added per keyword, capped per key and per file.

    When the file is over :data:`MAX_KEYS`, the lowest counts go first; among
    equal counts a key credited just now stays (or a full log could never
    learn a new keyword), and then the alphabetically last goes first.
    """
    updated = dict(counts)
    fresh: set[str] = set()
    for keyword in keywords:
        key = canonical_key(keyword)
        if key and key not in fresh:
            fresh.add(key)
            updated[key] = min(MAX_RECALLS, updated.get(key, 0) + 1)
    return _trim(updated, frozenset(fresh))


def _trim(counts: dict[str, int], fresh: frozenset[str]) -> dict[str, int]:
    if len(counts) <= MAX_KEYS:
        return counts
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0] not in fresh, item[0]))
    return dict(ranked[:MAX_KEYS])


# -- use verdicts: what the agent did with the memories it was given ----------------------
#
# The background review judges each session's transcript (:mod:`pi_memory.memory_use`):
# which surfaced memories the agent used and which it ignored, and which memories the
# user had to say again. Each reviewed session keeps its verdicts in one small file of
# the cache (``memory-use/<session>.json``, rewritten whole by that session's next
# review, so a verdict is never counted twice and two sessions never write one file);
# ``show`` adds them up. Derived state like the recall log: a missing or damaged file
# costs a candidate line, nothing else. Prompt hooks never read or write it.

#: The cache directory's folder of use verdicts.
USE_DIRECTORY: Final = "memory-use"
#: Verdicts a memory gets in a session.
SURFACED: Final = "surfaced"
USED: Final = "used"
REPEATED: Final = "repeated"
VERDICTS: Final = (SURFACED, USED, REPEATED)
#: Sessions whose verdicts are kept; beyond it the oldest files go first.
MAX_USE_SESSIONS: Final = 500
#: A memory surfaced in this many sessions and never used is a candidate to retire.
RETIRE_AFTER: Final = 3
#: A memory used in this many sessions is a candidate to promote (one repetition is enough).
PROMOTE_AFTER: Final = 3


class Use:
    """One memory's verdicts over the sessions judged: in how many it was surfaced, used,
    and said again by the user. A plain class: the session start imports this module,
    and building a named tuple's class would cost it time."""

    __slots__ = ("repeated", "surfaced", "used")

    def __init__(self, surfaced: int = 0, used: int = 0, repeated: int = 0) -> None:
        self.surfaced = surfaced
        self.used = used
        self.repeated = repeated

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Use) and self.as_tuple() == other.as_tuple()

    def __hash__(self) -> int:
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        return f"Use(surfaced={self.surfaced}, used={self.used}, repeated={self.repeated})"

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.surfaced, self.used, self.repeated)

    @property
    def ignored(self) -> int:
        return max(0, self.surfaced - self.used)


def render_session_use(verdicts: Mapping[str, Iterable[str]]) -> str:
    """One session's file, ``{"<id>": ["surfaced", "used"], …}``: sorted, equal is equal."""
    import json

    data = {
        key: [v for v in VERDICTS if v in set(flags)] for key, flags in sorted(verdicts.items())
    }
    return json.dumps({k: v for k, v in data.items() if v}, sort_keys=True) + "\n"


def parse_session_use(text: str) -> dict[str, frozenset[str]]:
    """One session's verdicts; whatever is unusable is left out."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    found: dict[str, frozenset[str]] = {}
    for key, flags in data.items():
        if isinstance(flags, list):
            kept = frozenset(f for f in flags if f in VERDICTS)
            if kept:
                found[str(key)] = kept
    return found


def tally(sessions: Iterable[Mapping[str, frozenset[str]]]) -> dict[str, Use]:
    """Each memory's verdicts summed over ``sessions``."""
    totals: dict[str, list[int]] = {}
    for verdicts in sessions:
        for key, flags in verdicts.items():
            row = totals.setdefault(key, [0, 0, 0])
            for at, verdict in enumerate(VERDICTS):
                row[at] += verdict in flags
    return {key: Use(*row) for key, row in totals.items()}


def to_retire(uses: Mapping[str, Use], ids: Iterable[str]) -> list[tuple[str, Use]]:
    """Memories among ``ids`` surfaced in :data:`RETIRE_AFTER` sessions or more and never
    used nor repeated, the most often surfaced first."""
    found = [
        (key, uses[key])
        for key in ids
        if key in uses
        and uses[key].surfaced >= RETIRE_AFTER
        and not uses[key].used
        and not uses[key].repeated
    ]
    return sorted(found, key=lambda pair: (-pair[1].surfaced, pair[0]))


def to_promote(uses: Mapping[str, Use], ids: Iterable[str]) -> list[tuple[str, Use]]:
    """Memories among ``ids`` the user had to say again, or the agent used in
    :data:`PROMOTE_AFTER` sessions or more; repeated ones first."""
    found = [
        (key, uses[key])
        for key in ids
        if key in uses and (uses[key].repeated or uses[key].used >= PROMOTE_AFTER)
    ]
    return sorted(found, key=lambda pair: (-pair[1].repeated, -pair[1].used, pair[0]))


def _use_dir(cache: Path) -> Path:
    return cache / USE_DIRECTORY


def save_session_use(cache: Path, session_id: str, verdicts: Mapping[str, Iterable[str]]) -> None:
    """Replace the session's verdicts (atomically); the oldest files past the cap go."""
    import zlib

    from pi_memory.fs.atomic import atomic_write_text

    directory = _use_dir(cache)
    directory.mkdir(parents=True, exist_ok=True)
    raw = session_id.encode("utf-8", "surrogatepass")
    name = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.json"
    atomic_write_text(directory / name, render_session_use(verdicts), durable=False)
    files = sorted(directory.glob("*.json"), key=_mtime)
    for old in files[: max(0, len(files) - MAX_USE_SESSIONS)]:
        old.unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def load_uses(cache: Path) -> dict[str, Use]:
    """Every kept session's verdicts, summed; an unreadable file counts as none."""
    sessions = []
    for path in sorted(_use_dir(cache).glob("*.json")):
        try:
            sessions.append(parse_session_use(path.read_text("utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return tally(sessions)
