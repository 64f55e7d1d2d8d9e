"""One merged ``memory.json`` dictionary (and the environment) into a :class:`Config`; pure.

Unknown keys (the removed top-level ``enabled``, the 1.x ``maxTopicBytes``) are
ignored, as pi-memory says.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType

from pi_memory.config import defaults as d
from pi_memory.config.env_overlay import ENV_KNOBS, KNOB_FIELDS, apply_env
from pi_memory.config.reader import Reader, resolve_path
from pi_memory.config.schema import (
    APIS,
    APPROVALS,
    CATEGORIES,
    CLI_APIS,
    LAYOUTS,
    NOTICES,
    SECTIONS,
    SHARED,
    TASKS,
    THINK_LEVELS,
    WORKTREE_MODES,
    AutoSurfacingConfig,
    Config,
    DefaultsConfig,
    DreamConfig,
    ExtractMemoriesConfig,
    LoadedConfig,
    LockConfig,
    Provider,
    SessionPersistence,
    SessionSearchConfig,
)
from pi_memory.config.trust import trusted_projects

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _persistence(
    reader: Reader, path: str, cwd: str, home: str, platform: str
) -> SessionPersistence | None:
    if not reader.section(path):
        return None
    return SessionPersistence(
        enabled=reader.boolean(f"{path}.enabled", False),
        session_dir=reader.directory(f"{path}.sessionDir", cwd, home, platform),
    )


def _providers(reader: Reader) -> dict[str, Provider]:
    providers: dict[str, Provider] = {}
    for name, spec in reader.section("providers").items():
        where = f'"providers.{name}"'
        if not isinstance(spec, Mapping):
            reader.errors.append(f"{where} must be an object; ignored")
            continue
        base_url, api, key_env = (
            spec.get("baseUrl", ""),
            spec.get("api", "openai"),
            spec.get("apiKeyEnv", ""),
        )
        if api not in APIS:
            allowed = " | ".join(APIS)
            reader.errors.append(f'{where} "api" must be {allowed}, got {api!r}; ignored')
        elif not isinstance(base_url, str) or (not base_url and api not in CLI_APIS):
            reader.errors.append(f'{where} needs a "baseUrl" string; ignored')
        elif not isinstance(key_env, str):
            reader.errors.append(f'{where} "apiKeyEnv" must be a string; ignored')
        else:
            path = f"providers.{name}"
            command = reader.text(f"{path}.command") or ""
            providers[str(name)] = Provider(
                base_url,
                str(api),
                key_env,
                allow_insecure_http=reader.boolean(f"{path}.allowInsecureHttp", False),
                max_retries=reader.integer(f"{path}.maxRetries", d.PROVIDER_MAX_RETRIES, 0, 10),
                retry_backoff_ms=reader.integer(
                    f"{path}.retryBackoffMs", d.PROVIDER_RETRY_BACKOFF_MS, 0, 60000
                ),
                command=command,
            )
    return providers


def _redact_patterns(reader: Reader) -> Mapping[str, str]:
    import re

    patterns: dict[str, str] = {}
    for label, regex in reader.section("redactPatterns").items():
        where = f'"redactPatterns.{label}"'
        if not isinstance(regex, str) or not regex:
            reader.errors.append(f"{where} must be a regular expression string; ignored")
            continue
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", str(label)):
            reader.errors.append(f"{where}: the name must be lowercase letters, digits, '-'")
            continue
        try:
            re.compile(regex)
        except re.error as err:
            reader.errors.append(f"{where} is not a valid regular expression ({err}); ignored")
            continue
        patterns[str(label)] = regex
    return MappingProxyType(patterns)


def parse_config(
    raw: Mapping[str, Any],
    *,
    cwd: str,
    home: str,
    platform: str = sys.platform,
    env: Mapping[str, str] | None = None,
) -> LoadedConfig:
    """Build a :class:`Config` from an already merged ``memory.json`` dictionary (pure).

    Values are read in a fixed order, so the error and warning lines come in it.
    """
    r = Reader(raw)
    for name in SECTIONS:
        r.section(name)  # reports a section that is not an object, once

    def persistence(section: str) -> SessionPersistence | None:
        return _persistence(r, f"{section}.sessionPersistence", cwd, home, platform)

    memory_dir = r.directory("memoryDir", cwd, home, platform) or d.MEMORY_DIR
    auto_dir = r.directory("autoDir", cwd, home, platform) or d.AUTO_DIR
    defaults_persistence = persistence("defaults")
    config = Config(
        memory_dir=resolve_path(memory_dir, cwd, home, platform),
        auto_dir=resolve_path(auto_dir, cwd, home, platform),
        layout=r.choice("layout", CATEGORIES, LAYOUTS),
        mem_index_max_lines=r.integer("memIndexMaxLines", d.MEM_INDEX_MAX_LINES),
        mem_index_max_bytes=r.integer("memIndexMaxBytes", d.MEM_INDEX_MAX_BYTES),
        mem_index_inject_max_lines=r.integer(
            "memIndexInjectMaxLines", d.MEM_INDEX_INJECT_MAX_LINES
        ),
        mem_index_inject_max_bytes=r.integer(
            "memIndexInjectMaxBytes", d.MEM_INDEX_INJECT_MAX_BYTES
        ),
        lock=LockConfig(
            timeout_ms=r.integer("lock.timeoutMs", d.LOCK_TIMEOUT_MS),
            snapshot_keep=r.integer("lock.snapshotKeep", d.SNAPSHOT_KEEP),
        ),
        defaults=DefaultsConfig(
            model=r.text("defaults.model"),
            session_persistence=defaults_persistence or SessionPersistence(),
        ),
        dream=_dream(r, persistence),
        session_search=SessionSearchConfig(
            max_sessions=r.integer("sessionSearch.maxSessions", d.SESSION_SEARCH_MAX_SESSIONS),
            max_matches=r.integer("sessionSearch.maxMatches", d.SESSION_SEARCH_MAX_MATCHES),
        ),
        auto_surfacing=_surfacing(r, persistence),
        extract_memories=_extraction(r, persistence),
        providers=_providers(r),
        trusted_projects=trusted_projects(r),
        models_configured=any(key in raw for key in TASKS) or r.get("defaults.model") is not None,
        daily_token_cap=r.integer("dailyTokenCap", d.DAILY_TOKEN_CAP),
        job_seconds=r.integer("jobSeconds", d.JOB_SECONDS, 0, 3600),
        notice=r.choice("notice", d.NOTICE, NOTICES),
        redact_patterns=_redact_patterns(r),
        keep_removed_days=r.integer("keepRemovedDays", d.KEEP_REMOVED_DAYS),
        memory_max_bytes=r.integer("memoryMaxBytes", d.MEMORY_MAX_BYTES, d.MEMORY_MAX_BYTES_LOW),
        worktrees=r.choice("worktrees", SHARED, WORKTREE_MODES),
    )
    knobs: dict[str, Any] = {
        KNOB_FIELDS[key]: r.integer(key, default, low, high)
        for key, default, low, high in ENV_KNOBS.values()
    }
    config = config._replace(**knobs)
    if env:
        config = apply_env(config, env, r.warnings, cwd=cwd, home=home, platform=platform)
    return LoadedConfig(config, tuple(r.errors), tuple(r.warnings))


def _dream(r: Reader, persistence: Callable[[str], SessionPersistence | None]) -> DreamConfig:
    return DreamConfig(
        nudge_after_sessions=r.integer("dream.nudgeAfterSessions", d.DREAM_NUDGE_AFTER_SESSIONS),
        nudge_after_hours=r.number("dream.nudgeAfterHours", d.DREAM_NUDGE_AFTER_HOURS),
        think_level=r.choice("dream.thinkLevel", d.DREAM_THINK_LEVEL, THINK_LEVELS),
        model=r.text("dream.model"),
        session_persistence=persistence("dream"),
    )


def _surfacing(
    r: Reader, persistence: Callable[[str], SessionPersistence | None]
) -> AutoSurfacingConfig:
    return AutoSurfacingConfig(
        enabled=r.boolean("autoSurfacing.enabled", d.SURFACING_ENABLED),
        think_level=r.choice("autoSurfacing.thinkLevel", d.SURFACING_THINK_LEVEL, THINK_LEVELS),
        max_files=r.integer("autoSurfacing.maxFiles", d.SURFACING_MAX_FILES),
        max_entry_bytes=r.integer("autoSurfacing.maxEntryBytes", d.SURFACING_MAX_ENTRY_BYTES),
        max_injection_bytes=r.integer(
            "autoSurfacing.maxInjectionBytes", d.SURFACING_MAX_INJECTION_BYTES
        ),
        timeout_ms=r.integer(
            "autoSurfacing.timeoutMs", d.SURFACING_TIMEOUT_MS, 0, d.SURFACING_TIMEOUT_MS_MAX
        ),
        model=r.text("autoSurfacing.model"),
        session_persistence=persistence("autoSurfacing"),
    )


def _extraction(
    r: Reader, persistence: Callable[[str], SessionPersistence | None]
) -> ExtractMemoriesConfig:
    return ExtractMemoriesConfig(
        enabled=r.boolean("extractMemories.enabled", d.EXTRACT_ENABLED),
        think_level=r.choice("extractMemories.thinkLevel", d.EXTRACT_THINK_LEVEL, THINK_LEVELS),
        max_context_tokens=r.integer(
            "extractMemories.maxContextTokens", d.EXTRACT_MAX_CONTEXT_TOKENS
        ),
        max_tool_result_chars=r.integer(
            "extractMemories.maxToolResultChars", d.EXTRACT_MAX_TOOL_RESULT_CHARS
        ),
        max_assistant_chars=r.integer(
            "extractMemories.maxAssistantChars", d.EXTRACT_MAX_ASSISTANT_CHARS
        ),
        approval=r.choice("extractMemories.approval", d.EXTRACT_APPROVAL, APPROVALS),
        model=r.text("extractMemories.model"),
        session_persistence=persistence("extractMemories"),
    )
