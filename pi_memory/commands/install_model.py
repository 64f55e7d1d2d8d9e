"""``install HOST``'s one question: learn in the background with the host's own CLI?

``--model PROVIDER/MODEL`` and ``--no-model`` answer it for scripts. Without
either, it is asked only on a terminal, once, and the answer defaults to no:
saying yes spends the user's plan or API budget on every few turns, which a
careful user agrees to in words, never by pressing Enter. With no terminal
and no flag nothing is asked (a script never hangs) and no model is written.
"""

from __future__ import annotations

import json
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pi_memory.hosts.host import Host
    from pi_memory.hosts.install_plan import Edit
    from pi_memory.hosts.model_offer import Choice


def model_edits(
    action: str, host_name: str, model: str | None, home: Path, *, interactive: bool
) -> tuple[list[Edit], list[str]]:
    """The memory.json edit ``install``/``uninstall`` adds, and what to tell the user.

    ``model``: ``--model``'s value, ``""`` for ``--no-model``, ``None`` to ask (on a
    terminal, when ``interactive``)."""
    from pi_memory.config.load import USER_CONFIG
    from pi_memory.hosts import model_offer as offer
    from pi_memory.hosts.registry import host

    path = home / USER_CONFIG
    record = host(host_name)
    if action == "uninstall":
        api = offer.host_api(record)
        return ([offer.uninstall_edit(path, api)] if api else []), []
    if model == "":
        return [], ["model: none (--no-model); nothing is learned in the background"]
    data = _read(path)
    existing = offer.configured_model(data or {})
    if model is not None:
        choice = offer.chosen(model, data or {})
        if existing and existing != choice.model:
            raise offer.ModelChoiceError(
                f"{path} names the model {existing} already; change it there, nothing was changed"
            )
    elif existing:
        return [], [f"model: {existing} (memory.json names it already)"]
    elif data is None:
        return [], [f"model: none offered; {path} is not valid JSON"]
    else:
        asked = _ask(record, interactive)
        if isinstance(asked, str):
            return [], [asked]
        choice = asked
    said = f"model: {choice.model} ({offer.cost_line(choice)})"
    return [offer.install_edit(path, choice)], [said]


def _ask(record: Host, interactive: bool) -> Choice | str:
    """The offer taken, or what to say instead."""
    from pi_memory.commands.confirm import confirmed, terminal_answer
    from pi_memory.hosts.model_offer import cost_line, offered
    from pi_memory.output import write_line

    choice = offered(record)
    if choice is None:
        return (
            f"model: none; {record.title} has no model CLI of its own, so nothing is learned "
            "in the background until memory.json names a provider (docs/models.md), "
            f"or: install {record.name} --model claude-cli/haiku"
        )
    later = f"to turn it on: install {record.name} --model {choice.model}"
    if not interactive:
        return f"model: not asked in a dry run; {later}"
    if terminal_answer() is None:
        return f"model: none (no terminal to ask on); {later}"
    write_line(f"Learn from your sessions in the background, with {choice.model}?")
    write_line(cost_line(choice))
    try:
        answer = input("Use it? [y/N] ")
    except EOFError:
        answer = ""
    if confirmed(answer):
        return choice
    return f"model: none; nothing is learned in the background ({later})"


def _read(path: Path) -> dict[str, Any] | None:
    """memory.json's object (``{}`` when missing), or ``None`` when it is not a JSON object."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig") or "{}")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None
