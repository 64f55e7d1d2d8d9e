"""Why a model call produced nothing usable. Every message is one line and holds no key."""

from __future__ import annotations

from pi_memory.errors import PiMemoryError

#: What every job reports when the model failed, never to be confused with "nothing to store".
NEVER_ANSWERED = "the model never answered"


class ModelError(PiMemoryError):
    """A model call produced nothing usable; the store must stay untouched."""


class ModelNotConfigured(ModelError):
    """No model for the task, or one that does not resolve (pi-memory's wording)."""


class ModelUnavailable(ModelError):
    """The model never answered: network, timeout, 5xx/429 after retries, a bad or empty body,
    a refusal."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"{NEVER_ANSWERED}: {detail}")
        self.detail = detail


class ReplyCut(ModelUnavailable):
    """The reply stopped at the token limit: it is incomplete and is never parsed."""


class BudgetExhausted(ModelError):
    """The daily token cap is reached; background jobs wait for tomorrow."""
