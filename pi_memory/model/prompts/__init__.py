"""The instructions each model job sends, kept as text files beside this module.

They are package data, read with :func:`pkgutil.get_data` so they load from a
plain checkout, an installed wheel and a zipapp alike.
"""

from __future__ import annotations


def load(name: str) -> str:
    """The prompt ``name`` (``review``, ``consolidate``, …) as text, LF line endings."""
    import pkgutil

    data = pkgutil.get_data(__name__, f"{name}.txt")
    if data is None:  # only a loader without get_data support returns None
        raise FileNotFoundError(f"prompt {name!r} is not packaged")
    return data.decode("utf-8").replace("\r\n", "\n")


def fill(template: str, **values: str) -> str:
    """``template`` with each ``{name}`` replaced; other braces are left alone."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template
