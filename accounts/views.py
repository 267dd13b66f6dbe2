"""Browser pages of accounts that allauth doesn't provide."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts import friends, selectors
from accounts.errors import AccountError
from accounts.forms import UsernameForm, UserSettingsForm
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


# --- Friends and blocks (/friends/): plain forms posting to views that call accounts.friends ---


@login_required
@require_http_methods(["GET"])
def friends_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    return render(
        request,
        "accounts/friends.html",
        {
            "friends": selectors.friends_of(user=user),
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
