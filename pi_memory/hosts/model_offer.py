"""What ``install HOST`` offers as the memory's model, and its edit of the user's memory.json.

Every host but pi is itself a logged-in model client; its CLI provider
(``claude-cli``, ``codex-cli``, ``gemini-cli``, see :mod:`pi_memory.model.cli_provider`)
can run the memory's background jobs with no key. The offer is that provider
with the CLI's small model and a daily token cap. Pure planning: the edit is an
:class:`~pi_memory.hosts.install_plan.Edit` of ``~/.pi/agent/memory.json`` that
:mod:`pi_memory.hosts.install` plans like every host file (merged, idempotent,
backed up, a file that is not JSON refused untouched).

What is ours is recognised by its shape: the provider named after its API whose
block is exactly ``{"api": API}``, a ``defaults.model`` naming that provider, and
``dailyTokenCap`` at :data:`DAILY_TOKEN_CAP` beside them. ``uninstall`` removes
those and nothing a user changed since.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pi_memory.errors import PiMemoryError
from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

    from pi_memory.hosts.host import Host
    from pi_memory.hosts.install_plan import Edit

#: The small model each CLI accepts as ``--model``: Claude Code's ``haiku`` alias,
#: Codex's model for "focused, high-volume tasks", Gemini CLI's ``flash-lite`` alias.
SMALL_MODELS: Final = {
    "claude-cli": "haiku",
    "codex-cli": "gpt-6-luna",
    "gemini-cli": "flash-lite",
}
#: Tokens (in + out) the background jobs may spend a day, written with the model.
DAILY_TOKEN_CAP: Final = 500_000


class ModelChoiceError(PiMemoryError):
    pass


class Choice(NamedTuple):
    #: The provider's name in memory.json.
    provider: str
    #: The API of a provider install declares; ``""``: memory.json declares it already.
    api: str
    #: ``provider/model-id``, written as ``defaults.model``.
    model: str


def host_api(host: Host) -> str:
    """The CLI provider that runs ``host``'s own program; ``""`` when it has none (pi)."""
    return f"{host.model_cli}-cli" if host.model_cli else ""


def offered(host: Host) -> Choice | None:
    """The host's own CLI with its small model, or ``None`` (the host is no model client)."""
    api = host_api(host)
    return Choice(api, api, f"{api}/{SMALL_MODELS[api]}") if api else None


def chosen(value: str, data: Mapping[str, Any]) -> Choice:
    """``--model PROVIDER/MODEL``: a CLI provider, or one ``data`` (memory.json) declares."""
    from pi_memory.config.schema import CLI_APIS

    provider, _, model_id = value.partition("/")
    if not provider or not model_id:
        raise ModelChoiceError(f"--model {value}: name it as PROVIDER/MODEL, e.g. claude-cli/haiku")
    declared = data.get("providers")
    if isinstance(declared, dict) and provider in declared:
        return Choice(provider, "", value)
    if provider in CLI_APIS:
        return Choice(provider, provider, value)
    known = ", ".join(CLI_APIS)
    raise ModelChoiceError(
        f"--model {value}: unknown provider {provider!r} ({known}, or one declared in memory.json)"
    )


def configured_model(data: Mapping[str, Any]) -> str:
    """The model memory.json names already (``defaults.model`` or a task's), or ``""``."""
    from pi_memory.config.schema import TASKS

    for key in ("defaults", *TASKS):
        section = data.get(key)
        if isinstance(section, dict) and isinstance(section.get("model"), str):
            return str(section["model"])
    return ""


def cost_line(choice: Choice) -> str:
    """What saying yes costs, in one line."""
    cap = f"{DAILY_TOKEN_CAP:,}"
    if choice.api:
        runs = f"your logged-in {choice.provider.removesuffix('-cli')} CLI"
        billed = "counts against that account's plan or API billing"
    else:
        runs = f"the provider {choice.provider}"
        billed = "is billed by that provider"
    return (
        f"cost: a background review every few turns runs {choice.model} through {runs} "
        f"(a few thousand tokens each, at most {cap} tokens a day: dailyTokenCap); it {billed}"
    )


def install_edit(path: Path, choice: Choice) -> Edit:
    """The memory.json edit that makes ``choice`` the memory's model."""
    from pi_memory.hosts.install_plan import Edit

    def install(data: dict[str, Any]) -> dict[str, Any]:
        if choice.api:
            providers = _section(data, "providers")
            block = providers.get(choice.provider)
            if block is not None and block != {"api": choice.api}:
                raise ModelChoiceError(
                    f'{path} declares "providers.{choice.provider}" otherwise; nothing was changed'
                )
            providers[choice.provider] = {"api": choice.api}
        _section(data, "defaults")["model"] = choice.model
        data.setdefault("dailyTokenCap", DAILY_TOKEN_CAP)
        return data

    return Edit(path, "json", install, lambda data: data)


def uninstall_edit(path: Path, api: str) -> Edit:
    """The memory.json edit that takes back what :func:`install_edit` wrote for ``api``."""
    from pi_memory.hosts.install_plan import Edit

    def uninstall(data: dict[str, Any]) -> dict[str, Any]:
        providers = data.get("providers")
        if not isinstance(providers, dict) or providers.get(api) != {"api": api}:
            return data  # not ours, or changed by hand since: left as it is
        del providers[api]
        if not providers:
            del data["providers"]
        defaults = data.get("defaults")
        if isinstance(defaults, dict) and str(defaults.get("model", "")).startswith(f"{api}/"):
            del defaults["model"]
            if not defaults:
                del data["defaults"]
            if data.get("dailyTokenCap") == DAILY_TOKEN_CAP:
                del data["dailyTokenCap"]
        return data

    return Edit(path, "json", lambda data: data, uninstall)


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    section = data.setdefault(key, {})
    if not isinstance(section, dict):
        raise ModelChoiceError(f'memory.json: "{key}" is not an object; nothing was changed')
    return section
