"""Pages that span an account and the games or the inbox: "Play now as a guest", deleting my
account, downloading my data, and the friends page (accounts' friends, requests and blocks, whose
notifications it reads). Their URLs are wired in greycircle/urls.py, as accounts may not name
these views; the friends page's forms post to accounts.views."""

from __future__ import annotations

import math
from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import guests as guest_accounts
from accounts import selectors
from accounts.adapter import client_ip
from accounts.errors import AccountError
from accounts.forms import AccountDeleteForm, UsernameForm
from greycircle.errors import ServiceError
from greycircle.notifications.services import notifications_read_for_friends
from greycircle.players import data, deletion
from greycircle.players.guests import DEFAULT_KIND, guest_game_start
from greycircle.players.serializers import AccountDataSerializer
from greycircle.presence import users_online

# Guests log in without a password; the session remembers the backend that let them in.
GUEST_BACKEND = "accounts.backends.ModelBackend"


@require_POST
def guest_play(request: HttpRequest) -> HttpResponse:
    """One click: a guest account (unless signed in already), signed in, and a game against the
    computer (`kind` from the button, Circles if none), then its page."""
    kind = request.POST.get("kind") or DEFAULT_KIND
    user = request.user
    if not user.is_authenticated:
        retry_after = guest_accounts.guest_allowance_take(ip=client_ip(request) or "unknown")
        if retry_after is not None:
            response = render(
                request,
                "players/guest_throttled.html",
                {"minutes": math.ceil(retry_after / 60)},
                status=429,
            )
            response["Retry-After"] = str(retry_after)
            return response
    try:
        user, game = guest_game_start(user=user if user.is_authenticated else None, kind=kind)
    except ServiceError as error:
        messages.error(request, error.detail)
        return redirect("home")
    if not request.user.is_authenticated:
        login(request, user, backend=GUEST_BACKEND)
        # The session is a guest's only way in: it lasts as long as they may stay idle.
        request.session.set_expiry(timedelta(days=guest_accounts.idle_days()))
    return redirect("game", game_id=game.pk)


# --- Friends and blocks (/friends/) -----------------------------------------------------------


@login_required
@require_http_methods(["GET"])
def friends_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    friendships = list(selectors.friends_of(user=user))
    # The requests and answers are on this page: their notifications are read.
    notifications_read_for_friends(user=user)
    return render(
        request,
        "players/friends.html",
        {
            "friends": friendships,
            "online": users_online(friendship.friend_id for friendship in friendships),
            "incoming": selectors.friend_requests_incoming(user=user),
            "outgoing": selectors.friend_requests_outgoing(user=user),
            "blocks": selectors.blocked_by(user=user),
            "request_form": UsernameForm(auto_id="request_%s"),
            "block_form": UsernameForm(auto_id="block_%s"),
        },
    )


# --- My account: delete it, download my data --------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    form = AccountDeleteForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            deletion.account_delete(
                user=request.user,
                password=form.cleaned_data.get("password", ""),
                confirm=form.cleaned_data.get("confirm", False),
            )
        except AccountError as error:
            form.add_error("password" if "password" in form.fields else None, error.detail)
        else:
            logout(request)
            messages.success(request, "Your account has been deleted. Goodbye!")
            return redirect("home")
    return render(request, "players/delete.html", {"form": form})


@login_required
@require_GET
def account_data(request: HttpRequest) -> HttpResponse:
    """My data as a JSON file to download (the same document as `GET /api/v1/me/data/`)."""
    document = AccountDataSerializer(data.account_data_export(user=request.user)).data
    response = JsonResponse(
        document, encoder=DjangoJSONEncoder, json_dumps_params={"indent": 2, "ensure_ascii": False}
    )
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"greycircle-{request.user.username}.json"
    )
    return response
