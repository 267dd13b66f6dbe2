"""Browser pages of accounts that allauth doesn't provide."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.core.serializers.json import DjangoJSONEncoder
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import data, deletion, friends, guests, selectors
from accounts.adapter import client_ip
from accounts.errors import AccountError
from accounts.forms import AccountDeleteForm, GuestUpgradeForm, UsernameForm, UserSettingsForm
from accounts.serializers import AccountDataSerializer
from accounts.services import user_settings_update
from greycircle.errors import ServiceError
from greycircle.notifications.presence import users_online
from greycircle.notifications.services import notifications_read_for_friends

# Guests log in without a password; the session remembers the backend that let them in.
GUEST_BACKEND = "accounts.backends.ModelBackend"


@login_required
@require_http_methods(["GET", "POST"])
def user_settings(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = UserSettingsForm.for_user(request.user, data=request.POST)
        if form.is_valid():
            user_settings_update(user=request.user, changes=form.cleaned_data)
            messages.success(request, "Your settings have been saved.")
            return redirect("settings")
    else:
        form = UserSettingsForm.for_user(request.user)
    return render(request, "accounts/settings.html", {"form": form})


# --- Friends and blocks (/friends/): plain forms posting to views that call accounts.friends ---


@login_required
@require_http_methods(["GET"])
def friends_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    friendships = list(selectors.friends_of(user=user))
    # The requests and answers are on this page: their notifications are read.
    notifications_read_for_friends(user=user)
    return render(
        request,
        "accounts/friends.html",
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


def _carry_out(request: HttpRequest, change: Callable[[], str]) -> HttpResponse:
    """Run `change` (a service call returning a success message); show its message or the
    service's refusal, and go back to the friends page."""
    try:
        messages.success(request, change())
    except AccountError as error:
        messages.error(request, error.detail)
    return redirect("friends")


def _username(request: HttpRequest) -> str | None:
    form = UsernameForm(request.POST)
    if form.is_valid():
        return form.cleaned_data["username"]
    messages.error(request, "Type a username (at most 150 characters).")
    return None


@login_required
@require_POST
def friend_request_send(request: HttpRequest) -> HttpResponse:
    username = _username(request)
    if username is None:
        return redirect("friends")

    def send() -> str:
        sent = friends.friend_request_send(sender=request.user, username=username)
        if sent.friendship is not None:
            return f"{sent.friendship.friend.username} had asked you too: you are friends now."
        return f"Friend request sent to {sent.request.to_user.username}."

    return _carry_out(request, send)


FRIEND_REQUEST_ANSWERS = {
    "accept": friends.friend_request_accept,
    "decline": friends.friend_request_decline,
    "cancel": friends.friend_request_cancel,
}
ANSWERED = {
    "accept": "Friend request accepted.",
    "decline": "Friend request declined.",
    "cancel": "Friend request cancelled.",
}


@login_required
@require_POST
def friend_request_answer(request: HttpRequest, request_id: int, answer: str) -> HttpResponse:
    service = FRIEND_REQUEST_ANSWERS.get(answer)
    if service is None:
        raise Http404

    def carry_out() -> str:
        service(user=request.user, request_id=request_id)
        return ANSWERED[answer]

    return _carry_out(request, carry_out)


@login_required
@require_POST
def friend_remove(request: HttpRequest, user_id: int) -> HttpResponse:
    def remove() -> str:
        friends.friend_remove(user=request.user, friend_id=user_id)
        return "Friend removed."

    return _carry_out(request, remove)


@login_required
@require_POST
def user_block(request: HttpRequest) -> HttpResponse:
    username = _username(request)
    if username is None:
        return redirect("friends")

    def block() -> str:
        blocked = friends.user_block(blocker=request.user, username=username)
        return f"You blocked {blocked.blocked.username}."

    return _carry_out(request, block)


@login_required
@require_POST
def user_unblock(request: HttpRequest, user_id: int) -> HttpResponse:
    def unblock() -> str:
        friends.user_unblock(blocker=request.user, blocked_id=user_id)
        return "Unblocked."

    return _carry_out(request, unblock)


# --- Guests: "Play now as a guest", and becoming a full account -------------------------------


@require_POST
def guest_play(request: HttpRequest) -> HttpResponse:
    """One click: a guest account (unless signed in already), signed in, and a game against the
    computer (`kind` from the button, Circles if none), then its page."""
    kind = request.POST.get("kind") or guests.DEFAULT_KIND
    user = request.user
    if not user.is_authenticated:
        retry_after = guests.guest_allowance_take(ip=client_ip(request) or "unknown")
        if retry_after is not None:
            response = render(
                request,
                "accounts/guest_throttled.html",
                {"minutes": math.ceil(retry_after / 60)},
                status=429,
            )
            response["Retry-After"] = str(retry_after)
            return response
    try:
        user, game = guests.guest_game_start(
            user=user if user.is_authenticated else None, kind=kind
        )
    except ServiceError as error:
        messages.error(request, error.detail)
        return redirect("home")
    if not request.user.is_authenticated:
        login(request, user, backend=GUEST_BACKEND)
        # The session is a guest's only way in: it lasts as long as they may stay idle.
        request.session.set_expiry(timedelta(days=guests.idle_days()))
    return redirect("game", game_id=game.pk)


@login_required
@require_http_methods(["GET", "POST"])
def guest_upgrade(request: HttpRequest) -> HttpResponse:
    """A guest picks a username, e-mail address and password: the same account, games and all."""
    if not request.user.is_guest:
        messages.info(request, "Your account is a full account already.")
        return redirect("settings")
    form = GuestUpgradeForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            address = guests.guest_upgrade(
                user=request.user,
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
            )
        except AccountError as error:
            form.add_error("username" if error.code == "username_taken" else None, error.detail)
        else:
            update_session_auth_hash(request, request.user)  # the new password keeps us in
            request.session.set_expiry(None)  # the site's usual session length from now on
            address.send_confirmation(request, signup=True)
            messages.success(
                request,
                f"Welcome, {request.user.username}: your account is ready, with all your games. "
                f"We sent a link to {address.email} to confirm it.",
            )
            return redirect("my-games")
    return render(
        request, "accounts/upgrade.html", {"form": form, "idle_days": round(guests.idle_days())}
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
    return render(request, "accounts/delete.html", {"form": form})


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
