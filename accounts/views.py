"""Browser pages of accounts that allauth doesn't provide. "Play now as a guest", deleting my
account, downloading my data and the friends page (which reads its notifications) reach the
games or the inbox too: they are greycircle.players.views."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts import friends, guests
from accounts.errors import AccountError
from accounts.forms import GuestUpgradeForm, UsernameForm, UserSettingsForm
from accounts.services import user_settings_update


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


# --- Friends and blocks: plain forms on the friends page (/friends/, greycircle.players.views)
# posting to views that call accounts.friends, which go back to that page ---------------------


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


# --- Guests: becoming a full account ("Play now as a guest" is greycircle.players.views') ------


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
