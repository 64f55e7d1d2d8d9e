"""A resolved model: which provider serves it, under which id, with which key.

Its own room so that the client, which resolves one, and the CLI provider,
which runs one, both read it from below and neither imports the other for it.
"""

from __future__ import annotations

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.config.schema import Provider


class Target(NamedTuple):
    """A resolved ``provider/id``: where it is served and with which key."""

    name: str
    provider_name: str
    provider: Provider
    model_id: str
    key: str
