"""A :class:`Config` rendered back in ``memory.json`` shape (``show --json``, round trips)."""

from __future__ import annotations

from pi_memory.config.schema import Config, Provider, SessionPersistence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _persistence_dict(value: SessionPersistence) -> dict[str, Any]:
    out: dict[str, Any] = {"enabled": value.enabled}
    if value.session_dir is not None:
        out["sessionDir"] = value.session_dir
    return out


def _task_extras(out: dict[str, Any], model: str | None, sp: SessionPersistence | None) -> None:
    if model is not None:
        out["model"] = model
    if sp is not None:
        out["sessionPersistence"] = _persistence_dict(sp)


def pi_memory_dict(config: Config) -> dict[str, Any]:
    """The configuration in pi-memory's ``memory.json`` shape (unset models omitted)."""
    defaults: dict[str, Any] = {}
    if config.defaults.model is not None:
        defaults["model"] = config.defaults.model
    defaults["sessionPersistence"] = _persistence_dict(config.defaults.session_persistence)
    dream: dict[str, Any] = {
        "nudgeAfterSessions": config.dream.nudge_after_sessions,
        "nudgeAfterHours": config.dream.nudge_after_hours,
        "thinkLevel": config.dream.think_level,
    }
    _task_extras(dream, config.dream.model, config.dream.session_persistence)
    surf = config.auto_surfacing
    surfacing: dict[str, Any] = {
        "enabled": surf.enabled,
        "thinkLevel": surf.think_level,
        "maxFiles": surf.max_files,
        "maxEntryBytes": surf.max_entry_bytes,
        "maxInjectionBytes": surf.max_injection_bytes,
    }
    _task_extras(surfacing, surf.model, surf.session_persistence)
    ext = config.extract_memories
    extract: dict[str, Any] = {
        "enabled": ext.enabled,
        "thinkLevel": ext.think_level,
        "maxContextTokens": ext.max_context_tokens,
        "maxToolResultChars": ext.max_tool_result_chars,
        "maxAssistantChars": ext.max_assistant_chars,
    }
    _task_extras(extract, ext.model, ext.session_persistence)
    return {
        "memoryDir": config.memory_dir,
        "memIndexMaxLines": config.mem_index_max_lines,
        "memIndexMaxBytes": config.mem_index_max_bytes,
        "memIndexInjectMaxLines": config.mem_index_inject_max_lines,
        "memIndexInjectMaxBytes": config.mem_index_inject_max_bytes,
        "lock": {"timeoutMs": config.lock.timeout_ms, "snapshotKeep": config.lock.snapshot_keep},
        "defaults": defaults,
        "dream": dream,
        "sessionSearch": {
            "maxSessions": config.session_search.max_sessions,
            "maxMatches": config.session_search.max_matches,
        },
        "autoSurfacing": surfacing,
        "extractMemories": extract,
    }


def config_dict(config: Config) -> dict[str, Any]:
    """Every setting, pi-memory's keys plus ours, in ``memory.json`` shape (for ``--json``)."""
    out = pi_memory_dict(config)
    out.update(
        {
            "layout": config.layout,
            "providers": {name: _provider_dict(p) for name, p in config.providers.items()},
            "trustedProjects": list(config.trusted_projects),
            "autoDir": config.auto_dir,
            "reviewTurns": config.review_turns,
            "consolidateEvery": config.consolidate_every,
            "indexBudget": config.index_budget,
            "llmMaxTokens": config.llm_max_tokens,
            "reviewMonths": config.review_months,
            "sessionDays": config.session_days,
            "dailyTokenCap": config.daily_token_cap,
            "jobSeconds": config.job_seconds,
            "notice": config.notice,
            "redactPatterns": dict(config.redact_patterns),
            "keepRemovedDays": config.keep_removed_days,
            "memoryMaxBytes": config.memory_max_bytes,
            "worktrees": config.worktrees,
        }
    )
    out["extractMemories"]["approval"] = config.extract_memories.approval
    return out


def _provider_dict(p: Provider) -> dict[str, Any]:
    return {
        "baseUrl": p.base_url,
        "api": p.api,
        "apiKeyEnv": p.api_key_env,
        "allowInsecureHttp": p.allow_insecure_http,
        "maxRetries": p.max_retries,
        "retryBackoffMs": p.retry_backoff_ms,
        "command": p.command,
    }
