"""What a job reports: one record for the command line, hooks and the background worker."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.inbox import Staged

#: Something was written.
STORED: Final = "stored"
#: The model answered and nothing was worth storing or changing.
NOTHING: Final = "nothing"
#: What the model proposed waits in the inbox for a person (``extractMemories.approval``).
STAGED: Final = "staged"
#: The job did not ask the model (trivial session, already reviewed, a dream running …).
SKIPPED: Final = "skipped"
#: The model never answered (or answered unusably): the store is untouched.
FAILED: Final = "failed"


class JobOutcome(NamedTuple):
    job: str
    status: str
    #: One sentence: what was done, or why not.
    detail: str
    #: What was (or, in a dry run, would be) written, one mapping per change.
    changes: tuple[Mapping[str, Any], ...] = ()
    #: What the reply asked for and was refused, one reason each.
    rejected: tuple[str, ...] = ()
    dry_run: bool = False
    #: Job-specific counts (``rounds``, ``collapsed`` …).
    counts: Mapping[str, int] = {}
    #: Ids of the memories written, when the changes do not name them (an agent's run),
    #: and their layer: what the job's receipt lists (:mod:`pi_memory.jobs.job_receipts`).
    written: tuple[str, ...] = ()
    layer: str = ""

    @property
    def ok(self) -> bool:
        return self.status != FAILED

    def as_json(self) -> dict[str, Any]:
        return {
            "job": self.job,
            "ok": self.ok,
            "status": self.status,
            "detail": self.detail,
            "dryRun": self.dry_run,
            "changes": [dict(c) for c in self.changes],
            "rejected": list(self.rejected),
            **({"counts": dict(self.counts)} if self.counts else {}),
        }


def agent_outcome(
    job: str,
    done: Sequence[str],
    refused: Sequence[str],
    *,
    summary: str,
    rounds: int,
    dry_run: bool,
    nothing: str,
) -> JobOutcome:
    """What a headless agent's run did (or, dry, would do), one line per change."""
    changes = tuple({"line": line} for line in done)
    counts = {"rounds": rounds}
    if not done:
        return JobOutcome(job, NOTHING, nothing, (), tuple(refused), dry_run, counts)
    verb = "would make" if dry_run else "made"
    n = len(done)
    detail = f"{verb} {n} change{'s' if n != 1 else ''} · {summary or 'no summary'}"
    return JobOutcome(job, STORED, detail, changes, tuple(refused), dry_run, counts)


def staged_outcome(job: str, staged: Staged, rejected: Sequence[str]) -> JobOutcome:
    """What a review that staged its proposals reports."""
    changes = tuple(
        {"inbox": i.id, "layer": i.proposal.layer, "keyword": i.proposal.keyword}
        for i in staged.items
    )
    refused = (*rejected, *staged.skipped)
    if not changes:
        return JobOutcome(job, NOTHING, "nothing new worth proposing", (), refused)
    n = len(changes)
    detail = f"staged {n} {'proposal' if n == 1 else 'proposals'} in the inbox"
    return JobOutcome(job, STAGED, detail, changes, refused)
