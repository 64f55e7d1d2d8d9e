"""What background work is waiting or gave up, across every session (for ``doctor``)."""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.doctor import JobState
    from pi_memory.jobs.records import JobRecord


def job_states(now: float) -> list[JobState]:
    """Every pending and every set-aside job record, oldest first."""
    from pi_memory.jobs import records

    found = []
    for key in records.sessions_with_records():
        for record in records.pending(key):
            found.append(_state(record, now, False, records.record_path(record)))
        for path, record in records.set_aside(key):
            found.append(_state(record, now, True, path))
    return sorted(found, key=lambda s: (-s.age, s.session, s.name))


def _state(record: JobRecord, now: float, failed: bool, path: Path) -> JobState:
    from pi_memory.doctor import JobState

    age = max(0.0, now - record.created) if record.created else 0.0
    return JobState(record.session, record.name, age, record.attempts, record.error, failed, path)
