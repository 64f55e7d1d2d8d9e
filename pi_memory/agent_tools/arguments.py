"""Checks of a tool call's arguments; a bad one is a sentence the model can act on."""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ToolArgumentError(ValueError):
    """An argument the tool cannot run with; the message is what the model reads."""


def text(args: Mapping[str, Any], key: str, *, required: bool = False, default: str = "") -> str:
    """The string argument ``key``; JSON ``null`` counts as absent."""
    value = args.get(key, None)
    if value is None:
        if required:
            raise ToolArgumentError(f'"{key}" is required')
        return default
    if not isinstance(value, str):
        raise ToolArgumentError(f'"{key}" must be a string')
    return value


def strings(args: Mapping[str, Any], key: str) -> list[str]:
    """A string or a list of strings, as a list (``[]`` when absent)."""
    value = args.get(key, None)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ToolArgumentError(f'"{key}" must be a string or a list of strings')


def whole_number(value: object, key: str, low: int, high: int | None = None) -> int:
    """``value`` when it is a whole number from ``low`` (to ``high``); JSON booleans are not."""
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < low
        or (high is not None and value > high)
    ):
        upto = "" if high is None else f" to {high}"
        raise ToolArgumentError(f'"{key}" must be a whole number from {low}{upto}')
    return value
