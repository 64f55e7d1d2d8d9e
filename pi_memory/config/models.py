"""Which model a task runs with, and whether that name resolves.

Models are named ``provider/model-id``. A task's model is its own ``model`` or
``defaults.model`` — nothing else. A name *resolves* when the provider is
declared in ``providers`` and its API-key variable is set (or the provider needs
none, e.g. a local server with ``apiKeyEnv`` empty).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pi_memory.config.schema import TASKS
from pi_memory.errors import ConfigError
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.config.schema import Config

__all__ = [
    "ModelRequirement",
    "any_model_configured",
    "background_ready",
    "model_config_errors",
    "model_errors",
    "model_resolves",
    "required_model",
    "required_models",
    "task_model",
]


class ModelRequirement(NamedTuple):
    task: str
    value: str | None


def task_model(config: Config, task: str) -> str | None:
    """The model a task runs with: its own ``model``, else ``defaults.model``, else none."""
    own = {
        "dream": config.dream.model,
        "extractMemories": config.extract_memories.model,
        "autoSurfacing": config.auto_surfacing.model,
    }[task]
    return own or config.defaults.model


def required_models(config: Config) -> list[ModelRequirement]:
    """pi-memory's rule: dream always; extraction and surfacing when enabled."""
    tasks = ["dream"]
    if config.extract_memories.enabled:
        tasks.append("extractMemories")
    if config.auto_surfacing.enabled:
        tasks.append("autoSurfacing")
    return [ModelRequirement(task, task_model(config, task)) for task in tasks]


def any_model_configured(config: Config) -> bool:
    return any(task_model(config, task) for task in TASKS)


def background_ready(config: Config, env: Mapping[str, str]) -> bool:
    """A model resolves for extraction: without one no background job ever starts."""
    from pi_memory import env_names
    from pi_memory.config.layout_setting import extraction_enabled

    if env.get(env_names.WORKER):
        return False  # inside a worker's own model session: no recursion
    if not extraction_enabled(config):
        return False  # pi-memory: extraction is off until enabled
    name = task_model(config, "extractMemories")
    return bool(name) and model_resolves(config, name or "", env)


def model_resolves(config: Config, value: str, env: Mapping[str, str]) -> bool:
    """``provider/model-id`` names a declared provider whose key (if any) is in ``env``."""
    provider_name, _, model_id = value.partition("/")
    provider = config.providers.get(provider_name)
    if provider is None or not model_id:
        return False
    return not provider.api_key_env or bool(env.get(provider.api_key_env))


def _resolves(resolve: Callable[[str], bool], value: str) -> bool:
    """A registry that fails on a model has not resolved it: that is a configuration error
    to report, never an exception that stops the start."""
    try:
        return resolve(value)
    except Exception:
        return False


def model_errors(requirements: list[ModelRequirement], resolve: Callable[[str], bool]) -> list[str]:
    """pi-memory's two error lines for requirements that are missing or do not resolve."""
    errors = []
    for req in requirements:
        if not req.value:
            errors.append(
                f'no model for {req.task} — set "{req.task}.model" or "defaults.model" '
                "in memory.json"
            )
        elif not _resolves(resolve, req.value):
            errors.append(
                f'model "{req.value}" for {req.task} is not resolvable '
                "(unknown id or missing credentials)"
            )
    return errors


def model_config_errors(
    config: Config,
    env: Mapping[str, str],
    *,
    resolve: Callable[[str], bool] | None = None,
    strict: bool = False,
) -> list[str]:
    """Model configuration errors, worded as in pi-memory.

    ``strict`` is pi-memory's check (:func:`required_models`): every task that
    runs and lacks a model, in pi-memory's order. The default is ours only for a
    ``memory.json`` that says nothing about models: without one the deterministic
    features all work, so nothing is misconfigured. As soon as the file names a
    model or a model task (``"dream": null`` included), pi-memory's rules apply
    in full.
    """
    check = resolve if resolve is not None else (lambda value: model_resolves(config, value, env))
    requirements = required_models(config)
    if not strict and not config.models_configured and not any_model_configured(config):
        requirements = []
    return model_errors(requirements, check)


def required_model(config: Config, task: str) -> str:
    """The model ``task`` must run with, or :class:`ConfigError` with pi-memory's wording."""
    value = task_model(config, task)
    if not value:
        raise ConfigError(model_errors([ModelRequirement(task, None)], bool)[0])
    return value
