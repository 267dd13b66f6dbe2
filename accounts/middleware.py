"""Keeping a guest's session and account alive while they use the site."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts import guests

# The day (UTC) the guest of a session was last seen, kept in the session.
SEEN_KEY = "guest_seen"


def guest_activity(get_response: Callable[[HttpRequest], HttpResponse]):
    """Once a day per session, renew a guest's session for GUESTS_IDLE_DAYS and record the visit
    (`guests.guest_seen`), so a guest is removed only after that long away, never while playing.
    """

    def middleware(request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.is_guest:
            today = timezone.now().date().isoformat()
            if request.session.get(SEEN_KEY) != today:
                request.session[SEEN_KEY] = today
                request.session.set_expiry(timedelta(days=guests.idle_days()))
                guests.guest_seen(user=user)
        return get_response(request)

    return middleware
