"""One background job, by kind: the single place the worker meets the model jobs.

Transcript jobs (review, handoff, quit flush) read the session's transcript up
to the size it had when the job was recorded; the extraction itself (the
review gate's cursor, the model call, validation, the locked write) belongs to
the extraction job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_memory.jobs.records import JobRecord


def run_job(record: JobRecord) -> str:
    """Do the work of ``record``; raises when it was not done."""
    raise RuntimeError(f"no runner for {record.kind} jobs yet")
