"""The model client against a real HTTP server on 127.0.0.1 speaking both wire formats."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pi_memory.config.parse import parse_config
from pi_memory.config.schema import Config
from pi_memory.model import ledger
from pi_memory.model.client import chat, list_models, target_for
from pi_memory.model.errors import (
    NEVER_ANSWERED,
    BudgetExhausted,
    ModelNotConfigured,
    ModelUnavailable,
    ReplyCut,
)
from pi_memory.model.types import Message, ToolCall, ToolSpec
from tests.conftest import DATA
from tests.fake_provider import Drop, Fail, FakeProvider, Hang, Raw, Say, memory_json

GOLDEN = DATA / "model"
APIS = ("openai", "anthropic")
MEMORY_TOOL = ToolSpec(
    "memory",
    "Read or change the memory store.",
    {
        "type": "object",
        "properties": {"action": {"type": "string", "enum": ["add", "list"]}},
        "required": ["action"],
    },
)


def config(fake: FakeProvider, home: Path, api: str = "openai", **settings: Any) -> Config:
    loaded = parse_config(memory_json(fake, api=api, **settings), cwd=str(home), home=str(home))
    assert loaded.errors == ()
    return loaded.config


def ask(cfg: Config, *messages: Message, **kwargs: Any) -> Any:
    kwargs.setdefault("job", "extract")
    kwargs.setdefault("background", False)
    kwargs.setdefault("env", {})
    return chat(cfg, "extractMemories", list(messages) or [Message("user", "hi")], **kwargs)


def ledger_lines(cfg: Config) -> list[dict[str, Any]]:
    directory = ledger.directory(cfg)
    path = ledger.path_for(directory, ledger.now_local())
    return [json.loads(line) for line in path.read_text().splitlines()]


def golden(name: str, body: bytes) -> None:
    """The request body, byte for byte, as reviewed by hand in tests/data/model/."""
    expected = (GOLDEN / name).read_bytes().rstrip(b"\n")
    assert body == expected


# -- requests and replies ------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
def test_a_plain_reply_and_the_request_body(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api, extractMemories={"thinkLevel": "off"})
    fake_provider.script(Say("Nothing worth storing.", tokens_in=42, tokens_out=7))
    reply = ask(cfg, Message("user", "We use pytest -q."), system="You review sessions.")
    assert reply.text == "Nothing worth storing."
    assert reply.tool_calls == ()
    assert (reply.stop, reply.tokens_in, reply.tokens_out) == ("end", 42, 7)
    assert reply.model == "fake/test-model"
    (request,) = fake_provider.posts()
    golden(f"{api}_plain.json", request.body)
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("pi_memory/")
    (line,) = ledger_lines(cfg)
    assert {k: line[k] for k in ("job", "model", "in", "out", "outcome")} == {
        "job": "extract",
        "model": "fake/test-model",
        "in": 42,
        "out": 7,
        "outcome": "ok",
    }


@pytest.mark.parametrize("api", APIS)
def test_tool_calls_round_trip(api: str, fake_provider: FakeProvider, hermetic_home: Path) -> None:
    cfg = config(fake_provider, hermetic_home, api, extractMemories={"thinkLevel": "off"})
    fake_provider.script(
        Say("Looking first.", tool_calls=[("memory", {"action": "list"})]),
        Say("Done."),
    )
    first = ask(cfg, Message("user", "remember: tabs"), tools=[MEMORY_TOOL])
    assert first.stop == "tool_use"
    (call,) = first.tool_calls
    assert (call.name, dict(call.arguments)) == ("memory", {"action": "list"})
    assert call.id
    history = [
        Message("user", "remember: tabs"),
        Message("assistant", first.text, first.tool_calls),
        Message("tool", "- [20261201-ab12] tabs over spaces", tool_call_id=call.id),
    ]
    second = ask(cfg, *history, tools=[MEMORY_TOOL])
    assert second.text == "Done."
    golden(f"{api}_tools.json", fake_provider.posts()[1].body)


@pytest.mark.parametrize("api", APIS)
def test_think_level_is_mapped_per_provider(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api, extractMemories={"thinkLevel": "high"})
    fake_provider.script(Say("ok"))
    ask(cfg, max_tokens=40000)
    body = fake_provider.posts()[0].json
    if api == "openai":
        assert body["reasoning_effort"] == "high"
    else:
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 16384}
        assert body["max_tokens"] == 40000


@pytest.mark.parametrize(
    "case",
    [
        (
            "openai",
            "Unrecognized request argument supplied: reasoning_effort",
            "reasoning_effort",
            "",
        ),
        (
            "openai",
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            "max_tokens",
            "max_completion_tokens",
        ),
        ("anthropic", "thinking: this model does not support extended thinking", "thinking", ""),
    ],
)
def test_an_optional_field_a_server_refuses_is_dropped_once(
    case: tuple[str, str, str, str], fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    api, complaint, dropped, added = case
    cfg = config(fake_provider, hermetic_home, api, extractMemories={"thinkLevel": "high"})
    fake_provider.script(Fail(400, message=complaint), Say("ok"))
    assert ask(cfg).text == "ok"
    first, second = (r.json for r in fake_provider.posts())
    assert dropped in first and dropped not in second
    if added:
        assert second[added] == first[dropped]
    fake_provider.script(Fail(400, message="messages: roles must alternate"))
    with pytest.raises(ModelUnavailable, match=r"HTTP 400 \(.*roles must alternate\)"):
        ask(cfg)


def test_max_tokens_comes_from_the_environment_knob(
    fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    data = memory_json(fake_provider, api="anthropic")
    env = {"PI_MEMORY_AUTO_LLM_MAX_TOKENS": "3000"}
    cfg = parse_config(data, cwd=str(hermetic_home), home=str(hermetic_home), env=env).config
    fake_provider.script(Say("ok"))
    ask(cfg)
    body = fake_provider.posts()[0].json
    assert body["max_tokens"] == 3000
    # Thinking may take at most half of max_tokens, so the answer keeps room.
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1500}


@pytest.mark.parametrize("api", APIS)
def test_the_key_comes_from_the_named_variable_only(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api, key_env="FAKE_KEY")
    with pytest.raises(ModelNotConfigured, match="not resolvable"):
        ask(cfg, env={"OPENAI_API_KEY": "sk-elsewhere"})
    fake_provider.script(Say("ok"))
    ask(cfg, env={"FAKE_KEY": "k-123"})
    headers = fake_provider.posts()[0].headers
    if api == "openai":
        assert headers["authorization"] == "Bearer k-123"
    else:
        assert headers["x-api-key"] == "k-123"
        assert headers["anthropic-version"] == "2023-06-01"
    assert "k-123" not in json.dumps(ledger_lines(cfg))


def test_an_unconfigured_model_uses_the_seed_wording(hermetic_home: Path) -> None:
    cfg = parse_config({}, cwd=str(hermetic_home), home=str(hermetic_home)).config
    with pytest.raises(ModelNotConfigured) as err:
        chat(cfg, "dream", [Message("user", "x")], job="dream", background=False, env={})
    assert str(err.value) == (
        'no model for dream — set "dream.model" or "defaults.model" in memory.json'
    )
    cfg = cfg._replace(defaults=cfg.defaults._replace(model="nowhere/x"))
    with pytest.raises(ModelNotConfigured) as err:
        chat(cfg, "dream", [Message("user", "x")], job="dream", background=False, env={})
    assert str(err.value) == (
        'model "nowhere/x" for dream is not resolvable (unknown id or missing credentials)'
    )


def test_a_task_model_never_falls_back_to_another_task(
    fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    data = memory_json(fake_provider, dream={"model": "fake/dreamer"})
    data["defaults"] = {}
    cfg = parse_config(data, cwd=str(hermetic_home), home=str(hermetic_home)).config
    with pytest.raises(ModelNotConfigured, match="no model for extractMemories"):
        ask(cfg)
    fake_provider.script(Say("ok"))
    reply = chat(cfg, "dream", [Message("user", "x")], job="dream", background=False, env={})
    assert reply.model == "fake/dreamer"
    assert fake_provider.posts()[0].json["model"] == "dreamer"


@pytest.mark.parametrize("api", APIS)
def test_the_model_list_is_read_without_spending_tokens(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api, key_env="FAKE_KEY")
    target = target_for(cfg, "fake/any", {"FAKE_KEY": "k-1"})
    assert target is not None
    assert list_models(target, timeout=5) == 2
    (request,) = fake_provider.requests
    assert (request.method, request.path) == ("GET", "/v1/models")
    fake_provider.script(Fail(401, message="invalid x-api-key k-1"))
    with pytest.raises(ModelUnavailable, match=r"HTTP 401") as err:
        list_models(target, timeout=5)
    assert "k-1" not in str(err.value)


# -- faults --------------------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
def test_a_server_error_is_retried(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api)
    fake_provider.script(Fail(500), Fail(529 if api == "anthropic" else 503), Say("ok"))
    assert ask(cfg).text == "ok"
    assert len(fake_provider.posts()) == 3
    assert [line["outcome"] for line in ledger_lines(cfg)] == ["ok"]


@pytest.mark.parametrize("api", APIS)
def test_a_429_storm_gives_up_after_the_retries(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api)
    fake_provider.default = Fail(429, retry_after="0")
    with pytest.raises(ModelUnavailable) as err:
        ask(cfg)
    assert str(err.value) == f"{NEVER_ANSWERED}: fake/test-model: HTTP 429 (tried 4 times)"
    assert len(fake_provider.posts()) == 4
    assert [line["outcome"] for line in ledger_lines(cfg)] == ["failed"]


def test_retry_after_is_honoured(fake_provider: FakeProvider, hermetic_home: Path) -> None:
    cfg = config(fake_provider, hermetic_home, "anthropic")
    fake_provider.script(Fail(429, retry_after="1"), Say("ok"))
    start = time.monotonic()
    assert ask(cfg).text == "ok"
    assert time.monotonic() - start >= 1.0


def test_a_retry_after_beyond_the_deadline_is_not_waited_for(
    fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, "openai")
    # Minutes apart, so a loaded machine cannot blur "not waited for" into "waited".
    fake_provider.script(Fail(429, retry_after="600"))
    start = time.monotonic()
    with pytest.raises(ModelUnavailable, match="retrying would pass the job's deadline"):
        ask(cfg, timeout=300)
    assert time.monotonic() - start < 60
    assert len(fake_provider.posts()) == 1


@pytest.mark.parametrize("api", APIS)
def test_a_client_error_is_not_retried_and_the_key_never_shows(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api, key_env="FAKE_KEY")
    key = "sk-proj-Abc123Def456Ghi789Jkl012Mno345"
    fake_provider.script(Fail(401, message=f"Incorrect API key provided: {key}."))
    with pytest.raises(ModelUnavailable) as err:
        ask(cfg, env={"FAKE_KEY": key})
    assert key not in str(err.value)
    assert "HTTP 401" in str(err.value)
    assert len(fake_provider.posts()) == 1


@pytest.mark.parametrize("api", APIS)
def test_a_timeout_is_the_model_never_answering(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api)
    fake_provider.script(Hang(120, Say("too late")))
    start = time.monotonic()
    with pytest.raises(ModelUnavailable, match=NEVER_ANSWERED):
        ask(cfg, timeout=0.25)
    assert time.monotonic() - start < 60  # far from the model's 120 s, however loaded


def test_a_dropped_connection_is_retried(fake_provider: FakeProvider, hermetic_home: Path) -> None:
    cfg = config(fake_provider, hermetic_home, "openai")
    fake_provider.script(Drop(), Say("ok"))
    assert ask(cfg).text == "ok"


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    "case",
    [
        (Raw(b'{"choices": [{"message": '), ModelUnavailable, "failed"),
        (
            Raw(b"<html>502 Bad Gateway</html>", content_type="text/html"),
            ModelUnavailable,
            "failed",
        ),
        (Say("half a sent", stop="length", tokens_out=50), ReplyCut, "cut"),
        (Say(""), ModelUnavailable, "failed"),
        (Say(refusal="I can't help with that."), ModelUnavailable, "refused"),
    ],
    ids=["malformed-json", "html", "length", "empty", "refusal"],
)
def test_an_unusable_reply_is_never_parsed(
    api: str,
    case: tuple[Any, type[Exception], str],
    fake_provider: FakeProvider,
    hermetic_home: Path,
) -> None:
    step, error, outcome = case
    cfg = config(fake_provider, hermetic_home, api)
    fake_provider.script(step)
    with pytest.raises(error) as err:
        ask(cfg)
    assert str(err.value).startswith(NEVER_ANSWERED)
    assert len(fake_provider.posts()) == 1
    (line,) = ledger_lines(cfg)
    assert line["outcome"] == outcome
    if outcome == "cut":
        assert line["out"] == 50  # a cut reply still cost its tokens


def test_inline_thinking_of_a_local_model_is_not_the_answer(
    fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, "openai")
    fake_provider.script(
        Say("<think>\nThe user wants NONE.\n</think>\n\nNONE"),
        Say("<think>still thinking when the tokens ran out"),
    )
    assert ask(cfg).text == "NONE"
    with pytest.raises(ModelUnavailable, match="the reply was empty"):
        ask(cfg)


def test_an_error_inside_a_200_is_the_providers_word(
    fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, "openai")
    body = b'{"error": {"message": "Upstream error from provider", "code": 502}}'
    fake_provider.script(Raw(body))
    with pytest.raises(ModelUnavailable) as err:
        ask(cfg)
    assert str(err.value) == (
        f"{NEVER_ANSWERED}: fake/test-model: the provider said: Upstream error from provider"
    )


def test_a_redirect_is_not_followed(fake_provider: FakeProvider, hermetic_home: Path) -> None:
    cfg = config(fake_provider, hermetic_home, "anthropic", key_env="FAKE_KEY")
    elsewhere = {"Location": fake_provider.url + "/elsewhere/v1/messages"}
    fake_provider.script(Raw(b"", status=302, headers=elsewhere), Say("followed"))
    with pytest.raises(ModelUnavailable, match=r"HTTP 302"):
        ask(cfg, env={"FAKE_KEY": "k-9"})
    assert len(fake_provider.requests) == 1  # the key went to one place only


def test_plain_http_is_only_for_loopback(hermetic_home: Path) -> None:
    data = {
        "providers": {"lan": {"baseUrl": "http://192.0.2.10:11434/v1", "api": "openai"}},
        "defaults": {"model": "lan/qwen3"},
    }
    cfg = parse_config(data, cwd=str(hermetic_home), home=str(hermetic_home)).config
    with pytest.raises(
        ModelUnavailable, match=r'refusing plain http:// to 192\.0\.2\.10.*"allowInsec'
    ):
        ask(cfg)


def test_https_verifies_the_certificate(hermetic_home: Path) -> None:
    fake = FakeProvider(tls=(GOLDEN / "selfsigned.crt", GOLDEN / "selfsigned.key"))
    try:
        cfg = config(fake, hermetic_home, "openai")
        assert cfg.providers["fake"].base_url.startswith("https://127.0.0.1:")
        with pytest.raises(ModelUnavailable, match=r"TLS failed .*certificate verify failed"):
            ask(cfg)
        assert fake.posts() == []  # refused before a byte of the request (or its key) left
    finally:
        fake.close()


# -- budget and redaction ------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
def test_the_golden_body_of_a_conversation_with_secrets(
    api: str, fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, api, extractMemories={"thinkLevel": "off"})
    fake_provider.script(Say("ok"))
    call = ToolCall("call_1", "memory", {"action": "list"})
    ask(
        cfg,
        Message("user", "ship it with DATABASE_URL=postgres://app:Zq9x2kLmPw@db/main"),
        Message("assistant", "", (call,)),
        Message("tool", "stored: token ghp_" + "k3Y" * 12, tool_call_id="call_1"),
        Message("user", "<private>my home address</private> and we use pytest"),
        system="export OPENAI_API_KEY=sk-proj-" + "Ab1" * 16,
        tools=[MEMORY_TOOL],
    )
    golden(f"{api}_redacted.json", fake_provider.posts()[0].body)


def test_the_daily_cap_stops_background_jobs_only(
    fake_provider: FakeProvider, hermetic_home: Path
) -> None:
    cfg = config(fake_provider, hermetic_home, "openai", dailyTokenCap=100)
    fake_provider.script(Say("first", tokens_in=90, tokens_out=20), Say("explicit"))
    ask(cfg, background=True)
    with pytest.raises(BudgetExhausted, match=r"today's model tokens \(110\) reached"):
        ask(cfg, background=True)
    assert ask(cfg, background=False).text == "explicit"
    assert len(fake_provider.posts()) == 2
    outcomes = [line["outcome"] for line in ledger_lines(cfg)]
    assert outcomes == ["ok", "over-cap", "ok"]


def test_secrets_never_leave(fake_provider: FakeProvider, hermetic_home: Path) -> None:
    cfg = config(fake_provider, hermetic_home, "anthropic", redactPatterns={"acme": r"ACME-\d{6}"})
    fake_provider.script(Say("ok"))
    secret = "AKIA" + "Q3EGRV7ZX2K5W4PT"
    ask(
        cfg,
        Message("user", f"deploy with {secret} and ACME-123456 <private>my salary</private>"),
        system="token = 'ghp_" + "x1" * 18 + "'",
    )
    body = fake_provider.posts()[0].body.decode()
    assert secret not in body and "ACME-123456" not in body and "salary" not in body
    assert "[REDACTED:aws-key]" in body and "[REDACTED:acme]" in body
    assert "[REDACTED:private]" in body and "[REDACTED:github-token]" in body
    assert ledger_lines(cfg)[0]["redacted"] == 4
