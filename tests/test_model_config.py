"""memory.json's model settings: providers of every kind, the daily cap, extra secret patterns."""

from __future__ import annotations

from typing import Any

from pi_memory.config.parse import parse_config
from pi_memory.config.schema import Provider


def parse(raw: dict[str, Any]) -> Any:
    return parse_config(raw, cwd="/w", home="/h")


def test_provider_options_and_cli_providers() -> None:
    loaded = parse(
        {
            "providers": {
                "lan": {
                    "baseUrl": "http://192.0.2.7:8000/v1",
                    "allowInsecureHttp": True,
                    "maxRetries": 1,
                    "retryBackoffMs": 250,
                },
                "cc": {"api": "claude-cli"},
                "codex": {"api": "codex-cli", "command": "/opt/codex/bin/codex"},
            }
        }
    )
    assert loaded.errors == ()
    providers = loaded.config.providers
    assert providers["lan"] == Provider("http://192.0.2.7:8000/v1", "openai", "", True, 1, 250, "")
    assert providers["cc"] == Provider("", "claude-cli")
    assert providers["codex"].command == "/opt/codex/bin/codex"


def test_bad_provider_options_are_one_line_each() -> None:
    loaded = parse(
        {
            "providers": {
                "a": {"baseUrl": "https://x", "allowInsecureHttp": "yes"},
                "b": {"api": "grpc-cli"},
                "c": {"api": "openai"},
            }
        }
    )
    assert loaded.errors == (
        "\"providers.a.allowInsecureHttp\" must be true or false, got 'yes'; using False",
        '"providers.b" "api" must be openai | anthropic | claude-cli | codex-cli | gemini-cli,'
        " got 'grpc-cli'; ignored",
        '"providers.c" needs a "baseUrl" string; ignored',
    )


def test_the_daily_cap() -> None:
    assert parse({}).config.daily_token_cap == 2_000_000
    assert parse({"dailyTokenCap": 0}).config.daily_token_cap == 0
    loaded = parse({"dailyTokenCap": -5})
    assert loaded.config.daily_token_cap == 0
    assert loaded.warnings == ('"dailyTokenCap" -5 is out of range; using 0',)
    assert parse({"dailyTokenCap": "lots"}).errors


def test_extra_secret_patterns() -> None:
    loaded = parse(
        {
            "redactPatterns": {
                "acme-ticket": "ACME-[0-9]{6}",
                "Bad Label": "x",
                "broken": "([a-z",
                "empty": "",
            }
        }
    )
    assert dict(loaded.config.redact_patterns) == {"acme-ticket": "ACME-[0-9]{6}"}
    assert len(loaded.errors) == 3
    assert any(
        '"redactPatterns.broken" is not a valid regular expression' in e for e in loaded.errors
    )
