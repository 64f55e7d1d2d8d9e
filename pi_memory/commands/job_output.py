"""How a model job's outcome reaches a person: one summary line, the details, an exit code.

A job whose model never answered is an error (one line on stderr, exit 1)
and says the store is unchanged; "nothing worth storing" is a success.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.jobs.outcome import JobOutcome


def report(outcome: JobOutcome, *, as_json: bool) -> int:
    import json

    from pi_memory.output import error_line, write_line

    if as_json:
        write_line(json.dumps(outcome.as_json(), ensure_ascii=True))
        return 0 if outcome.ok else 1
    if not outcome.ok:
        error_line(f"{outcome.job}: {outcome.detail}")
        return 1
    head = f"{outcome.job}: {outcome.detail}"
    if outcome.status == "skipped":
        head = f"{outcome.job}: skipped — {outcome.detail}"
    write_line(head)
    for change in outcome.changes:
        write_line(f"  + {describe(change)}")
    for reason in outcome.rejected:
        write_line(f"  ! ignored {reason}")
    return 0


def describe(change: object) -> str:
    """One change as a line: what it is, where, and its text."""
    if not isinstance(change, dict):
        return str(change)
    if "line" in change:
        return str(change["line"])
    ident = f"[{change['id']}] " if change.get("id") else ""
    where = "/".join(str(change[k]) for k in ("layer", "file") if change.get(k))
    text = " ".join(str(change.get("body", "")).split())
    extra = ""
    if change.get("supersedes"):
        extra = " · supersedes " + ", ".join(str(s) for s in change["supersedes"])
    if change.get("deduped"):
        extra += " · already stored, confirmed again"
    return f"{ident}{where} #{change.get('keyword', '')}: {text}{extra}"
