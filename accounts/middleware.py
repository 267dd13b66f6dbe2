"""Keeping a guest's session and account alive while they use the site."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib.sessions.backends.base import SessionBase
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts import guests

# The day (UTC) the guest of a session was last seen, kept in the session.
SEEN_KEY = "guest_seen"


def guest_session_keep(*, session: SessionBase, user: Any) -> bool:
    """Once a day per session, renew a guest's `session` for GUESTS_IDLE_DAYS and record the
    visit (`guests.guest_seen`). True when the session changed (the caller saves it, unless it
    is the request's own session, which Django saves)."""
    if user is None or not user.is_authenticated or not user.is_guest:
        return False
    today = timezone.now().date().isoformat()
    if session.get(SEEN_KEY) == today:
        return False
    session[SEEN_KEY] = today
    session.set_expiry(timedelta(days=guests.idle_days()))
    guests.guest_seen(user=user)
    return True


def guest_activity(get_response: Callable[[HttpRequest], HttpResponse]):
    """Keep a signed-in guest's session alive (`guest_session_keep`), so a guest is removed only
    after GUESTS_IDLE_DAYS away, never while playing. (An app's session token is kept alive by
    the API's authentication, greycircle.api.authentication, which is where it is read.)
    """

    def middleware(request: HttpRequest) -> HttpResponse:
        guest_session_keep(session=request.session, user=getattr(request, "user", None))
        return get_response(request)

    return middleware
