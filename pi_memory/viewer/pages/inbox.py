"""The inbox: memories waiting for a person's approval (when approval mode is on)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_memory.viewer.html import empty, page

if TYPE_CHECKING:
    from pi_memory.viewer.routing import Request, Response

NO_INBOX = (
    "The inbox is empty: this version of pi_memory stores what it learns directly "
    "(approval mode is not available)."
)


def render(request: Request) -> Response:
    return page(request.app, "Inbox", "/inbox", empty(NO_INBOX))


def accept(request: Request) -> Response:
    return page(request.app, "Inbox", "/inbox", empty(NO_INBOX), status=404)


def reject(request: Request) -> Response:
    return page(request.app, "Inbox", "/inbox", empty(NO_INBOX), status=404)
