"""``chat``: one model call for one job, whichever provider serves the task's model.

In order: the task's model is resolved strictly (its own ``model``, else
``defaults.model``, nothing else); every outgoing text is redacted; a
background job is refused once the day's tokens reach the cap; the call is
dispatched on the provider's ``api``; the ledger gets one record whatever
happened; an unusable reply (cut by the token limit, refused, empty,
malformed) raises :class:`ModelUnavailable` and is never parsed further.

The API key is read from the environment variable the provider names and
from nowhere else; it never appears in a ledger record or an error message.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence

from pi_memory.model.errors import (
    BudgetExhausted,
    ModelNotConfigured,
    ModelUnavailable,
    ReplyCut,
)
from pi_memory.model.target import Target
from pi_memory.model.types import Message, Reply, ToolSpec
from pi_memory.model.wire import Ask

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Final

    from pi_memory.config.schema import Config
    from pi_memory.model.ledger import LedgerLine
    from pi_memory.model.wire import Parsed

#: Seconds a job waits for its model, retries included, unless the caller says otherwise.
JOB_TIMEOUTS: Final[Mapping[str, float]] = {
    "surface": 8.0,
    "doctor": 20.0,
    "extract": 120.0,
    "handoff": 120.0,
    "review": 120.0,
    "compact": 180.0,
    "rebuild": 180.0,
    "dream": 600.0,
}
DEFAULT_TIMEOUT: Final = 120.0

#: A parsed reply's problem → the ledger's outcome.
_OUTCOMES: Final = {"": "ok", "cut": "cut", "refused": "refused"}


def model_name(config: Config, task: str) -> str | None:
    """The task's own ``model`` (pi-memory's three tasks), else ``defaults.model``."""
    from pi_memory.config.schema import TASKS

    if task in TASKS:
        from pi_memory.config.models import task_model

        return task_model(config, task)
    return config.defaults.model


def resolve(config: Config, task: str, env: Mapping[str, str]) -> Target:
    """The model ``task`` runs with, or ModelNotConfigured in pi-memory's words."""
    name = model_name(config, task)
    if not name:
        from pi_memory.config.schema import TASKS

        where = f'"{task}.model" or "defaults.model"' if task in TASKS else '"defaults.model"'
        raise ModelNotConfigured(f"no model for {task} — set {where} in memory.json")
    target = target_for(config, name, env)
    if target is None:
        raise ModelNotConfigured(
            f'model "{name}" for {task} is not resolvable (unknown id or missing credentials)'
        )
    return target


def target_for(config: Config, name: str, env: Mapping[str, str]) -> Target | None:
    """``provider/id`` on a declared provider whose key variable (if any) is set, else None."""
    provider_name, _, model_id = name.partition("/")
    provider = config.providers.get(provider_name)
    key = env.get(provider.api_key_env, "") if provider and provider.api_key_env else ""
    if provider is None or not model_id or (provider.api_key_env and not key):
        return None
    return Target(name, provider_name, provider, model_id, key)


def think_level(config: Config, task: str) -> str:
    levels = {
        "dream": config.dream.think_level,
        "extractMemories": config.extract_memories.think_level,
        "autoSurfacing": config.auto_surfacing.think_level,
    }
    return levels.get(task, "off")


def chat(
    config: Config,
    task: str,
    messages: Sequence[Message],
    *,
    system: str = "",
    tools: Sequence[ToolSpec] = (),
    job: str,
    background: bool,
    timeout: float | None = None,
    max_tokens: int | None = None,
    env: Mapping[str, str] | None = None,
) -> Reply:
    """Ask the task's model once (retries included) and return a usable reply.

    Raises ModelNotConfigured, BudgetExhausted (background jobs only) or
    ModelUnavailable ("the model never answered", ReplyCut for a cut reply).
    """
    env = os.environ if env is None else env
    return call(
        config,
        resolve(config, task, env),
        messages,
        system=system,
        tools=tools,
        job=job,
        background=background,
        timeout=timeout,
        max_tokens=max_tokens,
        think=think_level(config, task),
        env=env,
    )


def call(
    config: Config,
    target: Target,
    messages: Sequence[Message],
    *,
    system: str = "",
    tools: Sequence[ToolSpec] = (),
    job: str,
    background: bool,
    timeout: float | None = None,
    max_tokens: int | None = None,
    think: str = "off",
    env: Mapping[str, str] | None = None,
) -> Reply:
    """:func:`chat` for an already resolved model (``doctor`` pings each provider so)."""
    from pi_memory.model import ledger

    env = os.environ if env is None else env
    system, clean, redactions = _redacted(system, messages, config.redact_patterns)
    directory = ledger.directory(config)
    started = ledger.now_local()
    if background and config.daily_token_cap > 0:
        spent = ledger.spend(directory, started).tokens_today()
        if spent >= config.daily_token_cap:
            _record(
                directory,
                ledger.LedgerLine(ledger.stamp(started), job, target.name, outcome=ledger.OVER_CAP),
            )
            raise BudgetExhausted(
                f"today's model tokens ({spent:,}) reached dailyTokenCap "
                f"({config.daily_token_cap:,}); background {job} waits for tomorrow"
            )
    seconds = timeout if timeout is not None else JOB_TIMEOUTS.get(job, DEFAULT_TIMEOUT)
    limit = max_tokens if max_tokens is not None else config.llm_max_tokens
    clock = time.monotonic()
    parsed: Parsed | None = None
    try:
        ask = Ask(target.model_id, system, clean, tools, limit, think)
        parsed = _dispatch(target, ask, clock + seconds, env)
    except ModelUnavailable as err:
        _remember(target.name, err.detail)
        raise
    finally:
        outcome = _OUTCOMES.get(parsed.problem, ledger.FAILED) if parsed else ledger.FAILED
        _record(
            directory,
            ledger.LedgerLine(
                ledger.stamp(started),
                job,
                target.name,
                parsed.tokens_in if parsed else 0,
                parsed.tokens_out if parsed else 0,
                int((time.monotonic() - clock) * 1000),
                outcome,
                redactions,
            ),
        )
    _remember(target.name, "" if parsed.problem in ("", "cut") else parsed.detail or parsed.problem)
    if parsed.problem == "cut":
        raise ReplyCut(f"{target.name} stopped at the {limit}-token limit (the reply is cut)")
    if parsed.problem:
        raise ModelUnavailable(f"{target.name}: {parsed.detail}")
    return Reply(
        parsed.text,
        parsed.tool_calls,
        parsed.stop,
        parsed.tokens_in,
        parsed.tokens_out,
        target.name,
    )


def _redacted(
    system: str, messages: Sequence[Message], extra: Mapping[str, str]
) -> tuple[str, list[Message], int]:
    """Every outgoing text redacted, and how many secrets were."""
    from pi_memory.model.redact import redact

    redactions = 0
    if system:
        done = redact(system, extra)
        system, redactions = done.text, done.hits
    clean: list[Message] = []
    for message in messages:
        done = redact(message.content, extra)
        redactions += done.hits
        clean.append(message._replace(content=done.text))
    return system, clean, redactions


def _remember(model: str, failure: str) -> None:
    """Start or lengthen the model's back-off after a failure; end it after an answer
    (a reply cut by the token limit is an answer: the model is up)."""
    from pi_memory.model import backoff

    if failure:
        backoff.failed(model, failure)
    else:
        backoff.answered(model)


def _record(directory: Path, spent: LedgerLine) -> None:
    from pi_memory.model import ledger

    try:
        ledger.record(directory, spent)
    except OSError:
        pass  # a ledger that cannot be written never fails the call; doctor reports it


def _dispatch(target: Target, ask: Ask, deadline: float, env: Mapping[str, str]) -> Parsed:
    api = target.provider.api
    if api.endswith("-cli"):
        from pi_memory.model import cli_provider

        return cli_provider.run(target, ask, deadline, env)
    return _http(target, ask, deadline)


def _http(target: Target, ask: Ask, deadline: float) -> Parsed:
    import json

    from pi_memory.model import anthropic_wire, openai_wire, transport
    from pi_memory.model.wire import malformed

    wire = anthropic_wire if target.provider.api == "anthropic" else openai_wire
    body = wire.request_body(ask)
    provider = target.provider
    policy = transport.Policy(
        retries=provider.max_retries,
        backoff=provider.retry_backoff_ms / 1000,
        allow_insecure_http=provider.allow_insecure_http,
    )
    headers = {"User-Agent": _user_agent(), **wire.headers(target.key)}
    for _ in range(3):  # at most two optional fields dropped after a 400 that names them
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            response = transport.post_json(
                wire.endpoint(provider.base_url), headers, payload, deadline=deadline, policy=policy
            )
        except ModelUnavailable as err:
            raise ModelUnavailable(f"{target.name}: {_scrub(err.detail, target.key)}") from None
        try:
            data = json.loads(response.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            data = None
        if 200 <= response.status < 300:
            break
        said = wire.error_message(data)
        relaxed = wire.relax(body, said) if response.status == 400 else None
        if relaxed is None:
            said = _scrub(said, target.key) or "no error message"
            raise ModelUnavailable(f"{target.name}: HTTP {response.status} ({said})")
        body = relaxed
    if data is None:
        return malformed("the reply is not valid JSON")
    parsed: Parsed = wire.parse_reply(data)
    return parsed


def list_models(target: Target, timeout: float) -> int:
    """How many models the provider lists (``GET …/models``): reachability and key, no tokens."""
    import json

    from pi_memory.model import anthropic_wire, openai_wire, transport

    wire = anthropic_wire if target.provider.api == "anthropic" else openai_wire
    url = wire.endpoint(target.provider.base_url).rsplit("/", 2)[0]
    url += "/v1/models" if wire is anthropic_wire else "/models"
    policy = transport.Policy(retries=0, allow_insecure_http=target.provider.allow_insecure_http)
    headers = {"User-Agent": _user_agent(), **wire.headers(target.key)}
    try:
        response = transport.post_json(
            url, headers, None, deadline=time.monotonic() + timeout, policy=policy
        )
    except ModelUnavailable as err:
        raise ModelUnavailable(
            f"{target.provider_name}: {_scrub(err.detail, target.key)}"
        ) from None
    try:
        data = json.loads(response.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if not 200 <= response.status < 300:
        said = _scrub(wire.error_message(data), target.key) or "no error message"
        raise ModelUnavailable(f"{target.provider_name}: HTTP {response.status} ({said})")
    listed = data.get("data") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        raise ModelUnavailable(f"{target.provider_name}: the model list is malformed")
    return len(listed)


def _scrub(text: str, key: str) -> str:
    """A provider's words, safe to show: no key (whole or echoed in part), one short line."""
    from pi_memory.model.redact import redact

    if key:
        text = text.replace(key, "[REDACTED:api-key]")
    text = redact(text).text
    text = " ".join(text.split())
    return text[:300]


def _user_agent() -> str:
    from pi_memory import __version__

    return f"pi_memory/{__version__}"
