"""pi-memory-auto's ``PI_MEMORY_AUTO_*`` environment variables, laid over the file's settings.

They win over ``memory.json``: a value that is not an integer is ignored with a
warning, a number out of range is clamped, and ``PI_MEMORY_AUTO_DIR`` must be an
absolute path.
"""

from __future__ import annotations

from collections.abc import Mapping

from pi_memory import env_names
from pi_memory.config import defaults as d
from pi_memory.config.reader import clamp, resolve_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.config.schema import Config

#: pi-memory-auto's environment knobs: variable → (memory.json key, default, minimum, maximum).
ENV_KNOBS: Final[Mapping[str, tuple[str, int, int, int | None]]] = {
    env_names.REVIEW_TURNS: ("reviewTurns", d.REVIEW_TURNS, 1, 1000),
    env_names.CONSOLIDATE_EVERY: ("consolidateEvery", d.CONSOLIDATE_EVERY, 2, 500),
    env_names.INDEX_BUDGET: ("indexBudget", d.INDEX_BUDGET, 200, 6000),
    env_names.LLM_MAX_TOKENS: ("llmMaxTokens", d.LLM_MAX_TOKENS, 1, None),
    env_names.REVIEW_MONTHS: ("reviewMonths", d.REVIEW_MONTHS, 0, None),
    env_names.SESSION_DAYS: ("sessionDays", d.SESSION_DAYS, 1, None),
}
#: Each knob's memory.json key → its field of :class:`~pi_memory.config.schema.Config`.
KNOB_FIELDS: Final = {
    "reviewTurns": "review_turns",
    "consolidateEvery": "consolidate_every",
    "indexBudget": "index_budget",
    "llmMaxTokens": "llm_max_tokens",
    "reviewMonths": "review_months",
    "sessionDays": "session_days",
}


def apply_env(
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
        changes[KNOB_FIELDS[key]] = clamp(value, low, high)
    auto_dir = env.get(env_names.AUTO_DIR, "").strip()
    if auto_dir:
        from pi_memory.naming.home import expand_tilde, is_absolute

        if is_absolute(expand_tilde(auto_dir, home, platform), platform):
            changes["auto_dir"] = resolve_path(auto_dir, cwd, home, platform)
        else:
            # Relative to what? Each command's directory would give another store.
            warnings.append(f"{env_names.AUTO_DIR}={auto_dir!r} is not an absolute path; ignored")
    return config._replace(**changes) if changes else config
