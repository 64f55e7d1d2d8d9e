"""``memory.json`` and the ``PI_MEMORY_AUTO_*`` environment, read into one frozen :class:`Config`.

Sources, later ones winning:

1. the built-in defaults (pi-memory's configuration table plus ours);
2. the user file ``~/.pi/agent/memory.json``;
3. ``<project root>/.pi/memory.json`` — only when the user file lists that root in
   ``trustedProjects``. A cloned repository must never be able to redirect
   ``memoryDir``, models or providers on its own;
4. pi-memory-auto's ``PI_MEMORY_AUTO_*`` environment variables.

Reading never raises: a broken file or a value of the wrong type becomes an
*error* line (``show`` then reports ``Memory: misconfigured``) and the default is
used; an out-of-range number is clamped and noted as a *warning*. Unknown keys
(the removed top-level ``enabled``, the 1.x ``maxTopicBytes``) are ignored, as
the seed says. The defaults themselves live in :mod:`pi_memory.config.defaults`,
and which model a task runs with in :mod:`pi_memory.config.models`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from pi_memory.config import defaults as d

if TYPE_CHECKING:
    from pi_memory.naming.layer_dirs import LayerDirs

USER_CONFIG: Final = Path(".pi", "agent", "memory.json")
PROJECT_CONFIG: Final = Path(".pi", "memory.json")

CATEGORIES: Final = "categories"
FILES: Final = "files"
LAYOUTS: Final = (CATEGORIES, FILES)
THINK_LEVELS: Final = ("off", "minimal", "low", "medium", "high", "xhigh")
APIS: Final = ("openai", "anthropic", "claude-cli", "codex-cli", "gemini-cli")
#: The providers that run a host's own CLI instead of speaking HTTP (no ``baseUrl``).
CLI_APIS: Final = ("claude-cli", "codex-cli", "gemini-cli")
#: The model-driven tasks, in the order their errors are reported.
TASKS: Final = ("dream", "extractMemories", "autoSurfacing")


#: pi-memory-auto's environment knobs: variable → (memory.json key, default, minimum, maximum).
ENV_KNOBS: Final[Mapping[str, tuple[str, int, int, int | None]]] = {
    "PI_MEMORY_AUTO_REVIEW_TURNS": ("reviewTurns", d.REVIEW_TURNS, 1, 1000),
    "PI_MEMORY_AUTO_CONSOLIDATE_EVERY": ("consolidateEvery", d.CONSOLIDATE_EVERY, 2, 500),
    "PI_MEMORY_AUTO_INDEX_BUDGET": ("indexBudget", d.INDEX_BUDGET, 200, 6000),
    "PI_MEMORY_AUTO_LLM_MAX_TOKENS": ("llmMaxTokens", d.LLM_MAX_TOKENS, 1, None),
    "PI_MEMORY_AUTO_REVIEW_MONTHS": ("reviewMonths", d.REVIEW_MONTHS, 0, None),
    "PI_MEMORY_SESSION_DAYS": ("sessionDays", d.SESSION_DAYS, 1, None),
}
AUTO_DIR_ENV: Final = "PI_MEMORY_AUTO_DIR"
_KNOB_FIELDS: Final = {
    "reviewTurns": "review_turns",
    "consolidateEvery": "consolidate_every",
    "indexBudget": "index_budget",
    "llmMaxTokens": "llm_max_tokens",
    "reviewMonths": "review_months",
    "sessionDays": "session_days",
}
#: The keys of memory.json that hold objects.
SECTIONS: Final = (
    "lock",
    "defaults",
    "dream",
    "sessionSearch",
    "autoSurfacing",
    "extractMemories",
    "providers",
    "redactPatterns",
)


class SessionPersistence(NamedTuple):
    enabled: bool = False
    #: Absolute directory for headless sessions; ``None`` = ``<project memory dir>/sessions/``.
    session_dir: str | None = None


class LockConfig(NamedTuple):
    #: How long a write waits for the in-process lock and for ``.lock``.
    timeout_ms: int = d.LOCK_TIMEOUT_MS
    #: Snapshots kept under ``.backups/`` (``migrate-*`` never pruned).
    snapshot_keep: int = d.SNAPSHOT_KEEP


class DefaultsConfig(NamedTuple):
    model: str | None = None
    session_persistence: SessionPersistence = SessionPersistence()


class DreamConfig(NamedTuple):
    nudge_after_sessions: int = d.DREAM_NUDGE_AFTER_SESSIONS
    nudge_after_hours: float = d.DREAM_NUDGE_AFTER_HOURS
    think_level: str = d.DREAM_THINK_LEVEL
    model: str | None = None
    #: ``None`` inherits ``defaults.sessionPersistence``.
    session_persistence: SessionPersistence | None = None


class SessionSearchConfig(NamedTuple):
    max_sessions: int = d.SESSION_SEARCH_MAX_SESSIONS
    max_matches: int = d.SESSION_SEARCH_MAX_MATCHES


class AutoSurfacingConfig(NamedTuple):
    enabled: bool = d.SURFACING_ENABLED
    think_level: str = d.SURFACING_THINK_LEVEL
    max_files: int = d.SURFACING_MAX_FILES
    max_entry_bytes: int = d.SURFACING_MAX_ENTRY_BYTES
    max_injection_bytes: int = d.SURFACING_MAX_INJECTION_BYTES
    model: str | None = None
    session_persistence: SessionPersistence | None = None


class ExtractMemoriesConfig(NamedTuple):
    enabled: bool = d.EXTRACT_ENABLED
    think_level: str = d.EXTRACT_THINK_LEVEL
    max_context_tokens: int = d.EXTRACT_MAX_CONTEXT_TOKENS
    max_tool_result_chars: int = d.EXTRACT_MAX_TOOL_RESULT_CHARS
    max_assistant_chars: int = d.EXTRACT_MAX_ASSISTANT_CHARS
    model: str | None = None
    session_persistence: SessionPersistence | None = None


class Provider(NamedTuple):
    """Where a ``provider/…`` model is served: base URL, wire format, API-key variable."""

    base_url: str
    #: ``openai`` (Chat Completions), ``anthropic`` (Messages), or a host CLI (``claude-cli``…).
    api: str = "openai"
    #: Environment variable holding the key; ``""`` for a server that needs none.
    api_key_env: str = ""
    #: ``http://`` to a host other than loopback is refused unless this is set.
    allow_insecure_http: bool = False
    #: Retries after a 429, a 5xx or a connection error (the first attempt not counted).
    max_retries: int = d.PROVIDER_MAX_RETRIES
    #: The first pause between attempts; it doubles each time, ``Retry-After`` wins.
    retry_backoff_ms: int = d.PROVIDER_RETRY_BACKOFF_MS
    #: The executable of a CLI provider (default: ``claude``, ``codex``, ``gemini`` on PATH).
    command: str = ""


class Config(NamedTuple):
    #: Root of the ``files`` layout's directories (absolute).
    memory_dir: str
    #: pi-memory-auto's global directory, ``PI_MEMORY_AUTO_DIR`` (absolute).
    auto_dir: str
    layout: str = CATEGORIES
    mem_index_max_lines: int = d.MEM_INDEX_MAX_LINES
    mem_index_max_bytes: int = d.MEM_INDEX_MAX_BYTES
    mem_index_inject_max_lines: int = d.MEM_INDEX_INJECT_MAX_LINES
    mem_index_inject_max_bytes: int = d.MEM_INDEX_INJECT_MAX_BYTES
    lock: LockConfig = LockConfig()
    defaults: DefaultsConfig = DefaultsConfig()
    dream: DreamConfig = DreamConfig()
    session_search: SessionSearchConfig = SessionSearchConfig()
    auto_surfacing: AutoSurfacingConfig = AutoSurfacingConfig()
    extract_memories: ExtractMemoriesConfig = ExtractMemoriesConfig()
    providers: Mapping[str, Provider] = MappingProxyType({})
    #: Project roots whose ``.pi/memory.json`` is read (user file only), as written.
    trusted_projects: tuple[str, ...] = ()
    review_turns: int = d.REVIEW_TURNS
    consolidate_every: int = d.CONSOLIDATE_EVERY
    index_budget: int = d.INDEX_BUDGET
    llm_max_tokens: int = d.LLM_MAX_TOKENS
    review_months: int = d.REVIEW_MONTHS
    #: Whether ``memory.json`` speaks of the model tasks at all (a model anywhere, or a
    #: ``dream`` / ``extractMemories`` / ``autoSurfacing`` key, even ``null``).
    models_configured: bool = False
    #: Days a session's hook state (frozen index, review gate, surfaced set) is kept.
    session_days: int = d.SESSION_DAYS
    #: Tokens (in + out) background model jobs may spend per day; 0 = no cap.
    daily_token_cap: int = d.DAILY_TOKEN_CAP
    #: Extra secret patterns from ``redactPatterns``: placeholder label → regular expression.
    redact_patterns: Mapping[str, str] = MappingProxyType({})
    #: Days the files layout keeps what the memory tool removed or replaced.
    keep_removed_days: int = d.KEEP_REMOVED_DAYS


class LoadedConfig(NamedTuple):
    config: Config
    #: Values that could not be used (broken JSON, wrong types): the store is misconfigured.
    errors: tuple[str, ...] = ()
    #: Values that were clamped or files that were skipped; informative only.
    warnings: tuple[str, ...] = ()
    #: The files that were merged, in order.
    sources: tuple[str, ...] = ()

    @property
    def problems(self) -> tuple[str, ...]:
        return self.errors + self.warnings


# -- paths ---------------------------------------------------------------------------------


def resolve_path(value: str, cwd: str, home: str, platform: str = sys.platform) -> str:
    """A configured path made absolute: tilde expanded, relative paths taken from ``cwd``."""
    from pi_memory.naming.home import expand_user_path

    return str(expand_user_path(value, Path(cwd), platform, home))


# -- reading values ------------------------------------------------------------------------


class _Reader:
    """Typed access to the merged raw dictionary, collecting errors and warnings."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def get(self, path: str) -> Any:
        node: Any = self.raw
        for part in path.split("."):
            if not isinstance(node, Mapping):
                return None
            node = node.get(part)
        return node

    def section(self, path: str) -> Mapping[str, Any]:
        value = self.get(path)
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.errors.append(f'"{path}" must be an object; using the defaults')
            return {}
        return value

    def integer(self, path: str, default: int, low: int = 0, high: int | None = None) -> int:
        value = self.get(path)
        if value is None:
            return default
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            self.errors.append(f'"{path}" must be an integer, got {value!r}; using {default}')
            return default
        clamped = _clamp(value, low, high)
        if clamped != value:
            self.warnings.append(f'"{path}" {value} is out of range; using {clamped}')
        return clamped

    def number(self, path: str, default: float) -> float:
        value = self.get(path)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.errors.append(f'"{path}" must be a number, got {value!r}; using {default}')
            return default
        if value < 0:
            self.warnings.append(f'"{path}" {value} is out of range; using 0')
            return 0
        return value

    def boolean(self, path: str, default: bool) -> bool:
        value = self.get(path)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.errors.append(f'"{path}" must be true or false, got {value!r}; using {default}')
            return default
        return value

    def choice(self, path: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.get(path)
        if value is None:
            return default
        if value not in choices:
            allowed = " | ".join(choices)
            self.errors.append(f'"{path}" must be one of {allowed}, got {value!r}; using {default}')
            return default
        return str(value)

    def text(self, path: str) -> str | None:
        value = self.get(path)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            self.errors.append(f'"{path}" must be a string, got {value!r}; ignored')
            return None
        return value


def _clamp(value: int, low: int, high: int | None) -> int:
    value = max(value, low)
    return value if high is None else min(value, high)


def _persistence(
    reader: _Reader, path: str, cwd: str, home: str, platform: str
) -> SessionPersistence | None:
    if not reader.section(path):
        return None
    directory = reader.text(f"{path}.sessionDir")
    return SessionPersistence(
        enabled=reader.boolean(f"{path}.enabled", False),
        session_dir=None if directory is None else resolve_path(directory, cwd, home, platform),
    )


def _providers(reader: _Reader) -> dict[str, Provider]:
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


def _redact_patterns(reader: _Reader) -> Mapping[str, str]:
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


def _trusted(reader: _Reader) -> tuple[str, ...]:
    value = reader.get("trustedProjects")
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        reader.errors.append('"trustedProjects" must be a list of paths; ignored')
        return ()
    return tuple(value)


def parse_config(
    raw: Mapping[str, Any],
    *,
    cwd: str,
    home: str,
    platform: str = sys.platform,
    env: Mapping[str, str] | None = None,
) -> LoadedConfig:
    """Build a :class:`Config` from an already merged ``memory.json`` dictionary (pure)."""
    r = _Reader(raw)
    for name in SECTIONS:
        r.section(name)  # reports a section that is not an object, once
    memory_dir = r.text("memoryDir") or d.MEMORY_DIR
    auto_dir = r.text("autoDir") or d.AUTO_DIR
    defaults_persistence = _persistence(r, "defaults.sessionPersistence", cwd, home, platform)
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
        dream=DreamConfig(
            nudge_after_sessions=r.integer(
                "dream.nudgeAfterSessions", d.DREAM_NUDGE_AFTER_SESSIONS
            ),
            nudge_after_hours=r.number("dream.nudgeAfterHours", d.DREAM_NUDGE_AFTER_HOURS),
            think_level=r.choice("dream.thinkLevel", d.DREAM_THINK_LEVEL, THINK_LEVELS),
            model=r.text("dream.model"),
            session_persistence=_persistence(r, "dream.sessionPersistence", cwd, home, platform),
        ),
        session_search=SessionSearchConfig(
            max_sessions=r.integer("sessionSearch.maxSessions", d.SESSION_SEARCH_MAX_SESSIONS),
            max_matches=r.integer("sessionSearch.maxMatches", d.SESSION_SEARCH_MAX_MATCHES),
        ),
        auto_surfacing=AutoSurfacingConfig(
            enabled=r.boolean("autoSurfacing.enabled", d.SURFACING_ENABLED),
            think_level=r.choice("autoSurfacing.thinkLevel", d.SURFACING_THINK_LEVEL, THINK_LEVELS),
            max_files=r.integer("autoSurfacing.maxFiles", d.SURFACING_MAX_FILES),
            max_entry_bytes=r.integer("autoSurfacing.maxEntryBytes", d.SURFACING_MAX_ENTRY_BYTES),
            max_injection_bytes=r.integer(
                "autoSurfacing.maxInjectionBytes", d.SURFACING_MAX_INJECTION_BYTES
            ),
            model=r.text("autoSurfacing.model"),
            session_persistence=_persistence(
                r, "autoSurfacing.sessionPersistence", cwd, home, platform
            ),
        ),
        extract_memories=ExtractMemoriesConfig(
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
            model=r.text("extractMemories.model"),
            session_persistence=_persistence(
                r, "extractMemories.sessionPersistence", cwd, home, platform
            ),
        ),
        providers=_providers(r),
        trusted_projects=_trusted(r),
        models_configured=any(key in raw for key in TASKS) or r.get("defaults.model") is not None,
        daily_token_cap=r.integer("dailyTokenCap", d.DAILY_TOKEN_CAP),
        redact_patterns=_redact_patterns(r),
        keep_removed_days=r.integer("keepRemovedDays", d.KEEP_REMOVED_DAYS),
    )
    knobs: dict[str, Any] = {
        _KNOB_FIELDS[key]: r.integer(key, default, low, high)
        for key, default, low, high in ENV_KNOBS.values()
    }
    config = config._replace(**knobs)
    if env:
        config = _apply_env(config, env, r.warnings, cwd=cwd, home=home, platform=platform)
    return LoadedConfig(config, tuple(r.errors), tuple(r.warnings))


def _apply_env(
    config: Config,
    env: Mapping[str, str],
    warnings: list[str],
    *,
    cwd: str,
    home: str,
    platform: str,
) -> Config:
    """pi-memory-auto's variables override the file; a bad value is ignored, a number clamped."""
    changes: dict[str, Any] = {}
    for variable, (key, _default, low, high) in ENV_KNOBS.items():
        text = env.get(variable, "").strip()
        if not text:
            continue
        try:
            value = int(text)
        except ValueError:
            warnings.append(f"{variable}={text!r} is not an integer; ignored")
            continue
        changes[_KNOB_FIELDS[key]] = _clamp(value, low, high)
    auto_dir = env.get(AUTO_DIR_ENV, "").strip()
    if auto_dir:
        from pi_memory.naming.home import expand_tilde, is_absolute

        if is_absolute(expand_tilde(auto_dir, home, platform), platform):
            changes["auto_dir"] = resolve_path(auto_dir, cwd, home, platform)
        else:
            # Relative to what? Each command's directory would give another store.
            warnings.append(f"{AUTO_DIR_ENV}={auto_dir!r} is not an absolute path; ignored")
    return config._replace(**changes) if changes else config


# -- files ---------------------------------------------------------------------------------


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``; objects merge key by key, anything else replaces."""
    merged = dict(base)
    for key, value in over.items():
        below = merged.get(key)
        if isinstance(below, Mapping) and isinstance(value, Mapping):
            merged[key] = deep_merge(below, value)
        else:
            merged[key] = value
    return merged


def _read_json_object(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    """The JSON object in ``path``; ``None`` when absent or unusable.

    A file that cannot be read, is not JSON or holds no object counts as ``{}``
    (pi-memory): the defaults apply, with one warning line.
    """
    import json

    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        warnings.append(f"{path}: cannot be read ({err}); using the defaults")
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        warnings.append(
            f"{path}: invalid JSON at line {err.lineno} column {err.colno} ({err.msg}); "
            "using the defaults"
        )
        return None
    if not isinstance(data, dict):
        warnings.append(f"{path}: must hold a JSON object; using the defaults")
        return None
    return data


def _same_dir(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def is_trusted(project_root: str, trusted: tuple[str, ...], home: str, platform: str) -> bool:
    """Whether the user file lists ``project_root`` (tilde expanded, symlinks resolved)."""
    from pi_memory.naming.home import expand_tilde

    return any(
        _same_dir(project_root, resolve_path(entry, project_root, home, platform))
        for entry in trusted
        if os.path.isabs(expand_tilde(entry, home, platform))
    )


def load_for(cwd: Path, env: Mapping[str, str]) -> LoadedConfig:
    """:func:`load_config` for a process started in ``cwd``: ``env``'s home, the git top level."""
    from pi_memory.naming.git_repo import project_root
    from pi_memory.naming.home import home_dir

    return load_config(cwd, env, home=home_dir(env), project_root=project_root(cwd))


def load_config(
    cwd: Path,
    env: Mapping[str, str],
    *,
    home: Path | None = None,
    platform: str = sys.platform,
    project_root: Path | None = None,
) -> LoadedConfig:
    """The effective configuration for a process started in ``cwd``.

    ``project_root`` (default ``cwd``) is where ``.pi/memory.json`` is looked for;
    it is read only when the user file's ``trustedProjects`` lists that root, and
    a project file can never extend ``trustedProjects`` itself.
    """
    home_dir = str(home if home is not None else Path.home())
    root = str(project_root if project_root is not None else cwd)
    errors: list[str] = []
    warnings: list[str] = []
    sources: list[str] = []

    user_path = Path(home_dir) / USER_CONFIG
    user = _read_json_object(user_path, warnings) or {}
    if user_path.is_file():
        sources.append(str(user_path))
    trusted = _Reader(user)
    trusted_roots = _trusted(trusted)
    merged: dict[str, Any] = user

    project_path = Path(root) / PROJECT_CONFIG
    if project_path.is_file():
        if is_trusted(root, trusted_roots, home_dir, platform):
            project = _read_json_object(project_path, warnings) or {}
            project.pop("trustedProjects", None)
            merged = deep_merge(user, project)
            sources.append(str(project_path))
        else:
            warnings.append(
                f'{project_path} ignored: add {root!r} to "trustedProjects" in {user_path} '
                "to use it"
            )

    loaded = parse_config(merged, cwd=str(cwd), home=home_dir, platform=platform, env=env)
    return LoadedConfig(
        loaded.config,
        tuple(errors) + loaded.errors,
        tuple(warnings) + loaded.warnings,
        tuple(sources),
    )


# -- messages ------------------------------------------------------------------------------


def config_error_notification(errors: list[str]) -> str:
    """The one notification a session start shows for a misconfigured store."""
    return "\n".join(["pi-memory config error:", *(f"- {error}" for error in errors)])


def tool_unavailable_message(errors: list[str], status_command: str = "/memory") -> str:
    """What a memory tool answers while the configuration is broken."""
    return f"Memory not initialized — {errors[0]}; run {status_command} for details"


# -- rendering -----------------------------------------------------------------------------


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


def seed_dict(config: Config) -> dict[str, Any]:
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
    out = seed_dict(config)
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
            "redactPatterns": dict(config.redact_patterns),
            "keepRemovedDays": config.keep_removed_days,
        }
    )
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


# -- what the layout setting decides outside the layouts (which open_layer opens) --


def layer_dirs(config: Config, cwd: Path) -> LayerDirs:
    """Where the user and project layers of the store for ``cwd`` live."""
    from pi_memory.naming.layer_dirs import categories_layer_dirs, files_layer_dirs

    if config.layout == CATEGORIES:
        return categories_layer_dirs(Path(config.auto_dir), cwd)
    return files_layer_dirs(Path(config.memory_dir), cwd)


def user_layer_dir(config: Config) -> Path:
    """The user layer's directory (it needs no working directory)."""
    if config.layout == CATEGORIES:
        return Path(config.auto_dir)
    return Path(config.memory_dir) / "user"


def extraction_enabled(config: Config) -> bool:
    """Whether extraction runs: always in the categories layout, when enabled in files."""
    return config.layout == CATEGORIES or config.extract_memories.enabled
