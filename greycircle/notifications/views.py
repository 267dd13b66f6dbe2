"""Browser pages of notifications."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import User
from accounts.services import user_settings_update
from greycircle.notifications import selectors, services
from greycircle.notifications.errors import NotificationNotFound
from greycircle.notifications.mail import PREFERENCE_TOPIC, unsubscribe_token_read

# Notifications per page of the inbox.
INBOX_PAGE_SIZE = 30


# --- The inbox (/notifications/): plain forms posting to views that call the services ---------


@login_required
@require_http_methods(["GET"])
def inbox(request: HttpRequest) -> HttpResponse:
    """My notifications, newest first, by pages; the unread ones stand out."""
    page = Paginator(selectors.notifications_for(user=request.user), INBOX_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "notifications/inbox.html", {"page": page})


@login_required
@require_POST
def inbox_read(request: HttpRequest, notification_id: int) -> HttpResponse:
    try:
        services.notification_mark_read(user=request.user, notification_id=notification_id)
    except NotificationNotFound as error:
        messages.error(request, error.detail)
    return redirect("inbox")


@login_required
@require_POST
def inbox_read_all(request: HttpRequest) -> HttpResponse:
    marked = services.notifications_mark_all_read(user=request.user)
    if marked:
        messages.success(request, "All your notifications are marked read.")
    return redirect("inbox")


# The link of every notification e-mail, signed in its token: no log-in needed. GET only asks
# (link checkers and previews open links); POST turns the preference off. POST is also the
# one-click unsubscribe of mail clients (RFC 8058: `List-Unsubscribe=One-Click`, no cookies), so
# it is exempt from CSRF: the token, which only the mail's reader has, is what authorises it.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    found = unsubscribe_token_read(token)
    user = User.objects.filter(pk=found[0]).first() if found else None
    if found is None or user is None:
        return render(request, "notifications/unsubscribe_invalid.html", status=400)
    preference = found[1]
    context = {"username": user.username, "topic": PREFERENCE_TOPIC[preference]}
    if request.method == "POST":
        user_settings_update(user=user, changes={preference: False})
        return render(request, "notifications/unsubscribe_done.html", context)
    return render(request, "notifications/unsubscribe.html", context)
