"""Who made the change being announced: nobody is notified of their own action.

Every change a player makes goes through a request (moves too: the sockets only answer pings), so
the actor of a change is the user the request is made for — by session, or by session token once
DRF has authenticated it (DRF sets the user on the request this module holds). Changes the task
worker makes (a computer's move, a deadline, an expired invitation) have no actor: everybody they
concern is told.

`request_actor` keeps the request for the duration of its response; `actor_id` reads its user when
a change is announced (greycircle.games.events), after the commit and still inside the request.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

_request: ContextVar[HttpRequest | None] = ContextVar("greycircle_actor_request", default=None)


def actor_id() -> int | None:
    """The id of the user whose request is making the change being announced, or None."""
    request = _request.get()
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    return user.pk


def request_actor(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """Middleware: the request's user is the actor of every change made while answering it.

    Sync only: the site answers HTTP through Django's WSGI handler (greycircle.asgi)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        token = _request.set(request)
        try:
            return get_response(request)
        finally:
            _request.reset(token)

    return middleware
