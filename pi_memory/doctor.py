"""``doctor``: everything that can stop memory from working, each with what to do about it.

Checks the configuration, resolves every task's model, sends one tiny request
to each provider a task uses, reads both layers' locks and the ledger's spend.
The result is a plain record; ``pi_memory.commands.doctor`` prints it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from pi_memory.config.schema import Config, LoadedConfig, Provider
    from pi_memory.model.backoff import Backoff
    from pi_memory.model.ledger import Spend
    from pi_memory.model.target import Target
    from pi_memory.receipts import Receipt

#: The ping: short enough for any model, unmistakable in a provider's logs.
PING: Final = "Reply with the single word OK."
PING_TOKENS: Final = 64
#: The pi-memory-auto jobs have no model key of their own: they run with ``defaults.model``.
DEFAULT_JOBS: Final = "review, handoff, compact, rebuild"


class TaskModel(NamedTuple):
    task: str
    #: ``provider/id``, or ``""`` when none is configured.
    model: str
    #: ``ok`` | ``missing`` | ``unresolvable`` | ``off`` (the task is disabled).
    state: str


class ProviderCheck(NamedTuple):
    name: str
    api: str
    base_url: str
    #: The model the ping used (``""`` when none was sent).
    model: str
    #: ``answered`` | ``failed`` | ``unused`` | ``skipped``.
    outcome: str
    ms: int = 0
    detail: str = ""


class JobState(NamedTuple):
    """A background job still recorded: pending, or set aside after its failures."""

    session: str
    #: ``review-1234``, ``consolidate-project`` …
    name: str
    #: Seconds since the job was recorded (0 when the record does not say).
    age: float
    attempts: int
    #: The last attempt's error ("" when none failed yet).
    error: str
    #: Set aside after too many failures (``*.failed``): no worker runs it again.
    failed: bool
    path: Path


#: A pending job older than this is a problem: its worker died and no session started since.
STALE_JOB_SECONDS: Final = 3600.0


class Report(NamedTuple):
    sources: tuple[str, ...]
    layout: str
    models: tuple[TaskModel, ...]
    providers: tuple[ProviderCheck, ...]
    locks: Mapping[str, str]
    spend: Spend | None
    cap: int
    #: One line each: what is wrong — what to do.
    problems: tuple[str, ...]
    notes: tuple[str, ...]
    #: ``host (scope)`` → ``installed`` | ``not installed`` | ``outdated`` | why unknown.
    hooks: Mapping[str, str] = {}
    #: Every model in its prompt-time back-off (:mod:`pi_memory.model.backoff`).
    backoffs: tuple[Backoff, ...] = ()
    jobs: tuple[JobState, ...] = ()
    #: Host → when its hooks last ran (seconds since the epoch): its last receipt's time.
    hook_runs: Mapping[str, float] = {}
    #: Host → its last receipt (:mod:`pi_memory.receipts`).
    last_receipts: Mapping[str, Receipt] = {}
    #: Proposals waiting in the inbox (``extractMemories.approval: inbox``).
    inbox: int = 0


def diagnose(
    loaded: LoadedConfig,
    dirs: Mapping[str, Path] | None,
    env: Mapping[str, str],
    *,
    offline: bool = False,
) -> Report:
    """The whole check; ``dirs`` are the layers' directories (None when unusable)."""
    config = loaded.config
    problems: list[str] = [f"memory.json: {e} — fix it in {_where(loaded)}" for e in loaded.errors]
    notes: list[str] = list(loaded.warnings)
    models = _models(config, env, problems)
    providers = _providers(config, models, env, problems, notes=notes, offline=offline)
    locks = _locks(dirs, problems, notes) if dirs else {}
    spend = _spend(config, problems, notes)
    failed_now = {p.model for p in providers if p.outcome == "failed"}
    backoffs = _backoffs(problems, notes, failed_now)
    return Report(
        sources=loaded.sources,
        layout=config.layout,
        models=tuple(models),
        providers=tuple(providers),
        locks=locks,
        spend=spend,
        cap=config.daily_token_cap,
        problems=tuple(problems),
        notes=tuple(notes),
        backoffs=tuple(backoffs),
    )


def _where(loaded: LoadedConfig) -> str:
    return " or ".join(loaded.sources) or "~/.pi/agent/memory.json"


def _models(config: Config, env: Mapping[str, str], problems: list[str]) -> list[TaskModel]:
    from pi_memory.config.models import model_config_errors, required_models
    from pi_memory.config.schema import TASKS
    from pi_memory.model.client import model_name, target_for

    required = {req.task for req in required_models(config)}
    out: list[TaskModel] = []
    for task in (*TASKS, DEFAULT_JOBS):
        name = model_name(config, task if task in TASKS else "review") or ""
        if task in TASKS and task not in required:
            state = "off"
        elif not name:
            state = "missing"
        elif target_for(config, name, env) is None:
            state = "unresolvable"
        else:
            state = "ok"
        out.append(TaskModel(task, name, state))
    for error in model_config_errors(config, env):
        problems.append(f"{error}{_model_advice(config, error, env)}")
    return out


def _model_advice(config: Config, error: str, env: Mapping[str, str]) -> str:
    """What to do about pi-memory's "not resolvable" line (the "no model" line says it)."""
    if "is not resolvable" not in error:
        return ""
    name = error.split('"')[1]
    provider_name, _, model_id = name.partition("/")
    provider = config.providers.get(provider_name)
    if provider is None:
        return f' — declare "{provider_name}" in "providers" of memory.json'
    if not model_id:
        return ' — name the model as "provider/model-id"'
    if provider.api_key_env and not env.get(provider.api_key_env):
        return f" — set {provider.api_key_env} in the environment the agent runs in"
    return ""


def _providers(
    config: Config,
    models: list[TaskModel],
    env: Mapping[str, str],
    problems: list[str],
    *,
    notes: list[str],
    offline: bool,
) -> list[ProviderCheck]:
    from pi_memory.model.client import target_for

    out: list[ProviderCheck] = []
    for name, provider in sorted(config.providers.items()):
        used = [m.model for m in models if m.model.partition("/")[0] == name and m.state != "off"]
        base = ProviderCheck(name, provider.api, provider.base_url, used[0] if used else "", "")
        target = target_for(config, used[0], env) if used else None
        if not used:
            out.append(_listing(base, provider, env, offline, notes))
        elif target is None:
            out.append(base._replace(outcome="skipped", detail="its key is not set"))
        elif _missing_command(provider, env):
            command = _command(provider)
            out.append(base._replace(outcome="failed", detail=f"{command} is not installed"))
            problems.append(
                f"provider {name}: cannot find {command!r} — install it, or set "
                f'"providers.{name}.command" in memory.json to its full path'
            )
        elif offline:
            out.append(base._replace(outcome="skipped", detail="--offline"))
        else:
            check = _ping(config, target, base, env)
            out.append(check)
            if check.outcome == "failed":
                problems.append(f"provider {name}: {check.detail}{_ping_advice(check, provider)}")
    return out


def _command(provider: Provider) -> str:
    from pi_memory.model.cli_provider import default_command

    return provider.command or default_command(provider.api)


def _missing_command(provider: Provider, env: Mapping[str, str]) -> bool:
    """A CLI provider whose executable is neither a file nor on ``PATH``."""
    import shutil

    if not provider.api.endswith("-cli"):
        return False
    command = _command(provider)
    return not os.path.isfile(command) and shutil.which(command, path=env.get("PATH")) is None


def _listing(
    base: ProviderCheck,
    provider: Provider,
    env: Mapping[str, str],
    offline: bool,
    notes: list[str],
) -> ProviderCheck:
    """A provider no task uses gets ``GET …/models``: reachable, key accepted, no tokens."""
    from pi_memory.model.client import list_models
    from pi_memory.model.errors import ModelError
    from pi_memory.model.target import Target

    unused = base._replace(outcome="unused")
    key = env.get(provider.api_key_env, "") if provider.api_key_env else ""
    if provider.api.endswith("-cli"):
        return unused._replace(detail="no task uses it: not run")
    if provider.api_key_env and not key:
        return unused._replace(detail=f"no task uses it, and {provider.api_key_env} is not set")
    if offline:
        return unused._replace(detail="no task uses it; --offline")
    clock = time.monotonic()
    try:
        listed = list_models(Target("", base.name, provider, "", key), timeout=10)
    except ModelError as err:
        notes.append(f"provider {base.name} (no task uses it) did not list its models: {err}")
        return unused._replace(detail="no task uses it; it did not list its models")
    ms = int((time.monotonic() - clock) * 1000)
    return unused._replace(ms=ms, detail=f"no task uses it; it lists {listed} models ({ms} ms)")


def _ping(
    config: Config, target: Target, base: ProviderCheck, env: Mapping[str, str]
) -> ProviderCheck:
    from pi_memory.model.client import call
    from pi_memory.model.errors import ModelError, ReplyCut
    from pi_memory.model.types import Message

    clock = time.monotonic()
    try:
        call(
            config,
            target,
            [Message("user", PING)],
            job="doctor",
            background=False,
            max_tokens=PING_TOKENS,
            env=env,
        )
        detail = ""
    except ReplyCut:
        detail = f"the reply was cut at {PING_TOKENS} tokens, which is fine for a ping"
    except ModelError as err:
        ms = int((time.monotonic() - clock) * 1000)
        return base._replace(outcome="failed", ms=ms, detail=str(err))
    ms = int((time.monotonic() - clock) * 1000)
    return base._replace(outcome="answered", ms=ms, detail=detail)


def _ping_advice(check: ProviderCheck, provider: Provider) -> str:
    if "HTTP 401" in check.detail or "HTTP 403" in check.detail:
        return f" — check the key in {provider.api_key_env or 'the provider settings'}"
    if "HTTP 404" in check.detail:
        return f' — check "baseUrl" ({provider.base_url}) and the model id'
    if provider.api.endswith("-cli"):
        return " — check that the CLI runs and is logged in"
    return f" — check that the server at {provider.base_url} is up and reachable"


def _locks(dirs: Mapping[str, Path], problems: list[str], notes: list[str]) -> dict[str, str]:
    from pi_memory.fs.lock import (
        ABSENT,
        confirmed_abandoned,
        describe_status,
        lock_path,
        locked_message,
        read_lock_status,
    )

    out: dict[str, str] = {}
    for layer, directory in dirs.items():
        status = read_lock_status(directory)
        out[layer] = describe_status(status)
        if status.kind == ABSENT:
            continue
        holder = status if status.pid is not None else None
        if confirmed_abandoned(directory, status):
            message = locked_message(lock_path(directory), holder, abandoned=True)
            problems.append(f"{layer} layer: {message} {layer}")
        else:
            notes.append(f"{layer} layer: a write is in progress ({out[layer]})")
    return out


def _spend(config: Config, problems: list[str], notes: list[str]) -> Spend | None:
    from pi_memory.model import ledger

    directory = ledger.directory(config)
    if directory.exists() and not os.access(directory, os.W_OK):
        problems.append(
            f"the spend ledger in {directory} cannot be written — fix the directory's "
            "permissions (the daily cap cannot count what is not recorded)"
        )
    spend = ledger.spend(directory)
    cap = config.daily_token_cap
    today = spend.tokens_today()
    if cap and today >= cap:
        problems.append(
            f"background model jobs are stopped for today: {today:,} tokens reached "
            f'dailyTokenCap {cap:,} — raise "dailyTokenCap" in memory.json, or wait until tomorrow'
        )
    elif cap and today >= cap * 0.8:
        notes.append(f"today's model tokens ({today:,}) are past 80% of dailyTokenCap ({cap:,})")
    return spend


def _backoffs(problems: list[str], notes: list[str], failed_now: set[str]) -> list[Backoff]:
    """Models that failed: read after the pings, which end the back-off of one that answered
    (one whose ping just failed is already a problem: its back-off is a note)."""
    from pi_memory.model import backoff

    found = backoff.every()
    now = time.time()
    for b in found:
        said = f"{b.model} failed {b.failures} time{'s' if b.failures != 1 else ''} in a row"
        if b.waiting(now) and b.model not in failed_now:
            until = time.strftime("%H:%M", time.localtime(b.until))
            problems.append(
                f"{said}; prompts use the scorer alone until {until} (last error: {b.error})"
                " — check the provider, then run doctor again (an answer ends the back-off)"
            )
        elif b.waiting(now):
            until = time.strftime("%H:%M", time.localtime(b.until))
            notes.append(f"{said}; prompts use the scorer alone until {until}")
        else:
            notes.append(f"{said}; the next prompt asks it again (last error: {b.error})")
    return found


def job_problems(jobs: Sequence[JobState], problems: list[str]) -> None:
    """A job set aside, or pending for long, needs the person: one line each."""
    from pi_memory.error_handler import log_path

    for job in jobs:
        where = f"job {job.name} of session {job.session}"
        if job.failed:
            problems.append(
                f"{where} failed {job.attempts} times and was set aside (last error: "
                f"{job.error or 'not recorded'}) — fix the cause, then delete {job.path}"
            )
        elif job.age > STALE_JOB_SECONDS:
            problems.append(
                f"{where} has waited {ago(job.age)} — the next session start runs it; "
                f"if it keeps waiting, read the log ({log_path()})"
            )


def ago(seconds: float) -> str:
    """``40 s``, ``5 min``, ``3 h``, ``2 d``."""
    for size, unit in ((86_400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds)} s"
