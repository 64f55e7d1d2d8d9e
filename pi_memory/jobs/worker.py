"""The detached worker: background work without a daemon.

A hook records a job (:mod:`pi_memory.jobs.records`) and calls :func:`spawn`,
which starts ``python -m pi_memory worker SESSION`` in a new session (its own
process group: a host that kills the hook's group, or exits, does not take it
along), stdin closed, output to the session's ``worker.log``, and returns at
once. The worker claims the session, runs its pending jobs oldest first (each
takes the layer's write lock like any writer), deletes each record that
succeeded, and exits when none is left.

No process outlives its job: each job has a deadline (its model budget, or
``jobSeconds``), written beside the claim; its model calls get only the time
left, and a watchdog ends the worker :data:`~pi_memory.jobs.records.GRACE`
seconds past it even if a call hangs on. A worker started while another holds
the session waits for it (one waiter at a time) and takes its jobs over when it
releases them, dies, or is past its deadline: a later session with a working
model retries what a hanging one failed. Nothing is started at all unless a
model is configured.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pi_memory import env_names
from pi_memory.jobs import records
from pi_memory.session.dirs import sessions_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.config.schema import Config
    from pi_memory.jobs.outcome import JobOutcome
    from pi_memory.jobs.records import JobRecord
    from pi_memory.store import Store

#: Seconds a waiting worker looks again whether the claim came free.
POLL_SECONDS: Final = 0.5
#: A waiting worker gives up after this long (a holder on another host, say).
MAX_WAIT_SECONDS: Final = 900.0
LOG_FILE: Final = "worker.log"


def consolidate_when_due(
    store: Store, config: Config, cwd: Path, env: Mapping[str, str]
) -> list[str]:
    """pi-memory-auto's automatic round, checked after every rebuild of an index: each
    layer that came due is consolidated in the background (never without a model)."""
    from pi_memory.config.models import background_ready

    if not background_ready(config, env):
        return []
    return schedule_due_rounds(store, config.consolidate_every, cwd)


def schedule_due_rounds(store: Store, every: int, cwd: Path) -> list[str]:
    """A background round for each layer whose consolidation came due; their records
    share one claim, so two rounds never run at once. Returns the layers."""
    import time

    from pi_memory.jobs.consolidate import due_layers
    from pi_memory.jobs.records import CONSOLIDATE, JobRecord

    due = due_layers(store, every)
    for layer in due:
        job = JobRecord(
            kind=CONSOLIDATE, session=CONSOLIDATE, cwd=str(cwd), layer=layer, created=time.time()
        )
        schedule(job, cwd)
    return due


def schedule(record: JobRecord, cwd: Path) -> None:
    """Write the record (the same job twice is one record) and its receipt, then start a
    worker."""
    from pi_memory.jobs.job_receipts import scheduled

    records.write_record(record)
    scheduled(record)
    if not worker_alive(records.key_of(record)):
        spawn(records.key_of(record), cwd)


def check_anchors_when_due(directory: str, root: str, cwd: Path) -> bool:
    """Start the background check of the project memories' anchors when its verdicts
    may be out of date (a commit, a write since); needs no model. Never raises."""
    import time

    from pi_memory.anchors.cache import due
    from pi_memory.jobs.records import ANCHORS, JobRecord

    try:
        if not directory or not due(Path(directory), Path(root), time.time()):
            return False
        schedule(JobRecord(kind=ANCHORS, session=ANCHORS, cwd=str(cwd), created=time.time()), cwd)
    except OSError as exc:
        from pi_memory.error_handler import log_line

        log_line("anchors", f"the check was not started: {type(exc).__name__}: {exc}")
        return False
    return True


def worker_alive(key: str) -> bool:
    """A worker holds the session and is within its job's deadline."""
    from pi_memory.fs.lock import HELD, holder_alive, parse_record

    try:
        state = parse_record(records.claim_path(key).read_bytes())
    except OSError:
        return False
    return state.kind == HELD and holder_alive(state) is not False and not records.stuck(key)


def spawn(key: str, cwd: Path) -> None:
    """Start the worker for session directory ``key``, detached; never waits for it.

    POSIX: ``posix_spawn`` in a new session (``setsid``), stdin from /dev/null,
    output to the log; descriptors are close-on-exec by default, so the host's
    pipes are not held open. The worker is reparented to init when the hook exits.
    """
    directory = session_dir_for_key(key)
    directory.mkdir(parents=True, exist_ok=True)
    package_parent = str(Path(__file__).resolve().parent.parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    env[env_names.WORKER] = "1"
    argv = [sys.executable, "-m", "pi_memory", "worker", key]
    where = str(cwd) if Path(cwd).is_dir() else str(directory)
    log = str(directory / LOG_FILE)
    if sys.platform == "win32":
        _spawn_windows(argv, where, log, env)
        return
    # posix_spawn has no cwd argument: the worker's own cwd is set through -c.
    argv = [sys.executable, "-c", _ENTRY, where, key]
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    os.posix_spawn(
        sys.executable,
        argv,
        env,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, log, flags, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ],
        setsid=True,
    )


#: The worker's entry when spawned: change to the project directory, then run.
_ENTRY: Final = (
    "import os, sys; os.chdir(sys.argv[1]); from pi_memory.jobs.worker import run_worker; "
    "raise SystemExit(run_worker(sys.argv[2:]))"
)


def _spawn_windows(argv: list[str], cwd: str, log: str, env: dict[str, str]) -> None:
    import subprocess

    flags = 0x00000008 | 0x00000200 | 0x08000000  # detached, new group, no window
    with open(log, "ab") as out:
        subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            close_fds=True,
            env=env,
            creationflags=flags,
        )


def session_dir_for_key(key: str) -> Path:
    return sessions_root() / key


def run_worker(args: Sequence[str]) -> int:
    """``python -m pi_memory worker KEY``: run the session's jobs, then exit."""
    if len(args) != 1:
        return 2
    key = args[0]
    waiting = False
    try:
        # A job recorded just after the drain looked for the last time, but before the
        # claim was released, found the claim held and started no worker: look again.
        attempted: set[str] = set()
        while any(r.name not in attempted for r in records.pending(key)):
            if not records.claim(key):
                waiting = waiting or records.wait_turn(key)
                if not waiting or not _wait_for_claim(key):
                    return 0  # another worker has this session (or waits for it)
                continue
            try:
                _drain(key, attempted)
            finally:
                records.release(key)
    finally:
        if waiting:
            records.stop_waiting(key)
    return 0


def _wait_for_claim(key: str) -> bool:
    """Wait until the session's claim comes free, or its holder dies or passes its
    deadline; False when waiting is pointless (a holder on another host)."""
    import time

    from pi_memory.fs.lock import HELD, holder_alive, parse_record

    give_up = time.monotonic() + MAX_WAIT_SECONDS
    while time.monotonic() < give_up:
        try:
            state = parse_record(records.claim_path(key).read_bytes())
        except OSError:
            return True  # released
        if state.kind != HELD:
            return True  # unreadable: the claim decides
        alive = holder_alive(state)
        if alive is None:
            return False  # a holder on another host is never judged
        if not alive or records.stuck(key):
            return True
        time.sleep(POLL_SECONDS)
    return False


def _drain(key: str, attempted: set[str]) -> None:
    """Run each pending job once, each within its deadline (a failed one waits for the
    next worker)."""
    import time

    from pi_memory.error_handler import log_exception, log_line
    from pi_memory.errors import PiMemoryError
    from pi_memory.jobs.job_receipts import finished
    from pi_memory.jobs.run import job_seconds
    from pi_memory.model.ledger import spent_in_process
    from pi_memory.open_store import open_store

    while True:
        pending = [r for r in records.pending(key) if r.name not in attempted]
        if not pending:
            return
        record = pending[0]
        attempted.add(record.name)
        # Counted before it runs: a job that kills its worker every time still ends.
        records.write_record(record._replace(attempts=record.attempts + 1))
        started, spent = time.monotonic(), spent_in_process()
        try:
            config, store, _, _ = open_store(Path(record.cwd))
            seconds = job_seconds(record, config)
            deadline = time.time() + seconds
            records.set_deadline(key, deadline)
            with _Watchdog(deadline + records.GRACE):
                done = execute(record, store, config, seconds)
        except PiMemoryError as exc:  # expected (no answer, the daily cap): one line
            log_line("worker", f"job {record.name} of session {record.session} failed: {exc}")
            records.failed(record, str(exc))
            finished(record, started, spent_in_process() - spent, None, str(exc))
        except Exception as exc:
            log_exception(f"job {record.kind} of session {record.session}", exc)
            log_line("worker", f"job {record.name} failed: {type(exc).__name__}: {exc}")
            records.failed(record, f"{type(exc).__name__}: {exc}")
            finished(record, started, spent_in_process() - spent, None, type(exc).__name__)
        else:
            said = f"{done.job}: {done.status} — {done.detail}"
            log_line("worker", f"job {record.name} of session {record.session}: {said}")
            records.finish(record)
            finished(record, started, spent_in_process() - spent, done)


class _Watchdog:
    """Ends this process at ``end`` (wall-clock seconds, so a machine that slept does not
    stretch it), unless the block finished first."""

    def __init__(self, end: float) -> None:
        import threading

        self.end = end
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> None:
        self.thread.start()

    def __exit__(self, *exc: object) -> None:
        self.done.set()

    def _watch(self) -> None:
        import time

        while not self.done.wait(min(1.0, max(0.0, self.end - time.time()))):
            if time.time() >= self.end:
                from pi_memory.error_handler import log_line

                log_line("worker", "a job ran past its deadline: the worker ends")
                os._exit(3)


def execute(record: JobRecord, store: Store, config: Config, seconds: float) -> JobOutcome:
    """Run one job within ``seconds``; raises when its work was not done (the record
    stays for a retry)."""
    from pi_memory.jobs.run import run_job

    done = run_job(record, store, config, seconds)
    if record.kind not in (records.CONSOLIDATE, records.ANCHORS):
        _consolidate_after(record, store, config)
    return done


def _consolidate_after(record: JobRecord, store: Store, config: Config) -> None:
    """An extraction rebuilt the index: a layer it brought to the threshold is due now.
    The extraction's work is done whatever happens here, so a failure is only logged."""
    try:
        schedule_due_rounds(store, config.consolidate_every, Path(record.cwd))
    except Exception as exc:
        from pi_memory.error_handler import log_exception

        log_exception(f"job {record.name}: consolidation check", exc)
