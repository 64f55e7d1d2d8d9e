"""Find past conversations by content, across Claude Code, Codex, Gemini CLI and pi.

Where each host keeps its sessions:

- claude-code: ``~/.claude/projects/<project>/<session id>.jsonl``
- codex: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``
- gemini: ``~/.gemini/tmp/<project>/chats/session-<time>-<id>.json`` (``.jsonl`` since 0.61)
- pi: ``~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl``

Sessions are visited newest first (by modification time; listing and a
``stat`` cost no reading). A file is read line by line, only until it has
shown every query word; only then is it parsed with its host's reader, so
that what matched is the conversation and not metadata or our own injected
index. The search stops at ``limit`` matching sessions, after ``max_scan``
files, or at the deadline, and says which.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from pi_memory.named_tuple import NamedTuple
from pi_memory.transcripts import Turn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

SNIPPET_RADIUS: Final = 70
#: Records read from the top of a file to find its session id and directory.
_HEAD_RECORDS: Final = 40
_SPACE_RE: Final = re.compile(r"\s+")


class SessionFile(NamedTuple):
    host: str
    path: Path
    mtime: float


class SessionHit(NamedTuple):
    host: str
    session_id: str
    #: Local time of the session's last change, ``YYYY-MM-DD HH:MM``.
    date: str
    #: The directory the session ran in (``""`` when the host does not record it).
    project: str
    snippet: str
    path: str


class SearchResult(NamedTuple):
    query: str
    hits: tuple[SessionHit, ...]
    scanned: int
    #: ``""`` when every session was looked at, else why the search stopped early.
    stopped: str


def query_words(query: str) -> list[str]:
    return [w for w in query.lower().split() if w]


def session_files(hosts: Sequence[str], env: Mapping[str, str], home: Path) -> list[SessionFile]:
    """Every session file of ``hosts``, newest first."""
    from pi_memory.hosts.registry import host as record

    found = []
    for host in map(record, hosts):
        root = host.config_dir(env, home)
        for path in (p for pattern in host.sessions for p in root.glob(pattern)):
            try:
                found.append(SessionFile(host.name, path, path.stat().st_mtime))
            except OSError:
                continue
    found.sort(key=lambda f: f.mtime, reverse=True)
    return found


def holds_all(path: Path, words: Sequence[str]) -> bool:
    """Whether the file's text holds every word (case aside), read line by line."""
    missing = {w.encode("utf-8") for w in words}
    try:
        with path.open("rb") as stream:
            for line in stream:
                low = line.lower()
                missing = {w for w in missing if w not in low}
                if not missing:
                    return True
    except OSError:
        return False
    return not missing


def _head(text: str) -> Iterator[dict[str, object]]:
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        try:
            document = json.loads(stripped)
        except ValueError:
            document = None
        if isinstance(document, dict):
            yield document
            return
    for count, line in enumerate(text.splitlines()):
        if count >= _HEAD_RECORDS:
            return
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record


def describe(host: str, path: Path, text: str) -> tuple[str, str]:
    """The session id and the directory it ran in, from the file's first records."""
    from pi_memory.hosts.registry import host as record

    reader = record(host).transcript()
    session_id, project = "", ""
    for found in map(reader.header, _head(text)):
        session_id, project = session_id or found[0], project or found[1]
        if session_id and project:
            break
    return session_id or path.stem, project or reader.project_beside(path)


def snippet(text: str, words: Sequence[str], radius: int = SNIPPET_RADIUS) -> str:
    flat = _SPACE_RE.sub(" ", text).strip()
    at = flat.lower().find(words[0]) if words else 0
    at = max(at, 0)
    start, end = max(0, at - radius), min(len(flat), at + len(words[0] if words else "") + radius)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def matching_turn(turns: Sequence[Turn], words: Sequence[str]) -> Turn | None:
    """The latest message that holds every word."""
    for turn in reversed(turns):
        text = (turn.text + " " + " ".join(turn.tool_calls)).lower()
        if all(w in text for w in words):
            return turn
    return None


def search_sessions(
    query: str,
    *,
    hosts: Sequence[str] = (),
    project: str = "",
    limit: int = 10,
    max_scan: int = 500,
    budget_s: float = 5.0,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> SearchResult:
    from pi_memory.naming.home import home_dir
    from pi_memory.transcripts import TranscriptError
    from pi_memory.transcripts.read import read_transcript

    environ = os.environ if env is None else env
    words = query_words(query)
    if not words:
        return SearchResult(query, (), 0, "")
    deadline = time.monotonic() + budget_s
    hits: list[SessionHit] = []
    scanned = 0
    stopped = ""
    want_project = project.lower()
    from pi_memory.hosts.registry import NAMES

    for file in session_files(hosts or NAMES, environ, home or home_dir(environ)):
        if len(hits) >= limit:
            stopped = f"the first {limit} matching sessions"
            break
        if scanned >= max_scan:
            stopped = f"{max_scan} sessions looked at"
            break
        if time.monotonic() > deadline:
            stopped = f"the {budget_s:g} s time limit"
            break
        scanned += 1
        if not holds_all(file.path, words):
            continue
        try:
            text = file.path.read_bytes().decode("utf-8", errors="replace")
            session_id, cwd = describe(file.host, file.path, text)
            if want_project and want_project not in cwd.lower():
                continue
            _fmt, turns = read_transcript(file.path, file.host)
        except (OSError, TranscriptError):
            continue
        turn = matching_turn(turns, words)
        if turn is None:
            continue
        body = (
            turn.text if all(w in turn.text.lower() for w in words) else " ".join(turn.tool_calls)
        )
        hits.append(
            SessionHit(
                host=file.host,
                session_id=session_id,
                date=time.strftime("%Y-%m-%d %H:%M", time.localtime(file.mtime)),
                project=cwd,
                snippet=snippet(body, words),
                path=str(file.path),
            )
        )
    return SearchResult(query, tuple(hits), scanned, stopped)


def render_sessions(result: SearchResult) -> str:
    """The text a person or a model reads."""
    count = len(result.hits)
    verb = "session mentions" if count == 1 else "sessions mention"
    head = f'{count} past {verb} "{result.query}"'
    head += f" (newest first; {result.scanned} looked at"
    head += f", stopped at {result.stopped})" if result.stopped else ")"
    lines = [head]
    for hit in result.hits:
        lines += [
            "",
            f"{hit.date}  {hit.host}  {hit.session_id}  {hit.project or '-'}",
            f"  {hit.snippet}",
        ]
    return "\n".join(lines) + "\n"


def sessions_json(result: SearchResult) -> dict[str, object]:
    return {
        "query": result.query,
        "scanned": result.scanned,
        "stopped": result.stopped,
        "results": [hit._asdict() for hit in result.hits],
    }
