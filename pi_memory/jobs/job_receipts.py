"""A background job's receipts (:mod:`pi_memory.receipts`): when it was handed to the worker,
and when it finished: what it wrote, the model tokens it spent, how long it took."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.jobs.outcome import JobOutcome
    from pi_memory.jobs.records import JobRecord


def scheduled(record: JobRecord) -> None:
    """The receipt of a job handed to the worker: a hook's, or a job's that starts another."""
    from pi_memory import env_names, receipts

    kind = receipts.JOB if os.environ.get(env_names.WORKER) else receipts.HOOK
    receipts.append(
        receipts.made(
            kind,
            receipts.SCHEDULE,
            host=record.host,
            session=record.session,
            layers=(record.layer,) if record.layer else (),
            note=record.kind,
        )
    )


def finished(
    record: JobRecord, started: float, spent: int, outcome: JobOutcome | None, failure: str = ""
) -> None:
    """The receipt of a job that ran (``outcome``), or failed (``failure``); ``started`` is
    a ``time.monotonic()`` reading, ``spent`` the model tokens it used."""
    from pi_memory import receipts

    ids: list[str] = list(outcome.written) if outcome is not None else []
    layers: list[str] = [record.layer] if record.layer else []
    if outcome is not None and outcome.layer and outcome.layer not in layers:
        layers.append(outcome.layer)
    for change in outcome.changes if outcome is not None else ():
        found, layer = change.get("id"), change.get("layer")
        if isinstance(found, str) and found and found not in ids:
            ids.append(found)
        if isinstance(layer, str) and layer and layer not in layers:
            layers.append(layer)
    if outcome is None:
        result, note = receipts.FAILED, failure
    else:
        result = receipts.OK if outcome.changes or outcome.written else receipts.NOTHING
        note = f"{outcome.status}: {outcome.detail}"
    receipts.append(
        receipts.made(
            receipts.JOB,
            record.kind,
            host=record.host,
            session=record.session,
            started=started,
            layers=tuple(layers),
            ids=tuple(ids),
            spent=spent,
            outcome=result,
            note=note,
        )
    )
