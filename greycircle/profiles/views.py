"""The site's profile page, `/u/<username>/`, and its actions: befriend, block, unblock.

Each action is a plain form posting to `profile_action`, which calls the service of
accounts.friends (the authority on what is allowed), shows its message or its refusal, and
comes back to the profile. Inviting is a link to the play form with the player in a seat.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts import friends
from accounts.errors import AccountError
from accounts.models import User
from greycircle.games import registry, results
from greycircle.games import selectors as game_selectors
from greycircle.games.models import GameStatus
from greycircle.profiles import selectors


@login_required
def profile(request: HttpRequest, username: str) -> HttpResponse:
    user = selectors.profile_user_for(username=username, viewer=request.user)
    if user is None:
        # Someone the viewer blocked: only their name and the way to lift the block.
        blocked = selectors.profile_blocked_by(username=username, viewer=request.user)
        if blocked is None:
            raise Http404("No such player.")
        return render(request, "profiles/blocked.html", {"player": blocked})
    profile = selectors.profile_for(user=user, viewer=request.user)
    recent = [
        {
            **game,
            "title": registry.get(game["kind"]).title,
            "status_label": GameStatus(game["status"]).label,
            "your_turn": game_selectors.summary_waits_for_viewer(summary=game),
            "result": results.game_result_for(
                kind=game["kind"],
                status=game["status"],
                outcome=game["outcome"],
                seats=game["seats"],
                you=game["you"],
            ),
        }
        for game in profile["recent_games"]
    ]
    return render(
        request,
        "profiles/profile.html",
        {
            "profile": profile,
            "recent": recent,
            "own": user.pk == request.user.pk,
            "player": user,
            "relationship": selectors.profile_relationship_for(user=user, viewer=request.user),
            "kinds": registry.all_kinds(),
        },
    )


def _befriend(viewer: User, user: User, request_id: int | None) -> str:
    sent = friends.friend_request_send(sender=viewer, username=user.username)
    if sent.friendship is not None:
        return f"You and {user.username} are friends now."
    return f"Friend request sent to {user.username}."


# With no request pending (id 0), the service answers that there is no such request.
def _cancel(viewer: User, user: User, request_id: int | None) -> str:
    friends.friend_request_cancel(user=viewer, request_id=request_id or 0)
    return "Friend request cancelled."


def _decline(viewer: User, user: User, request_id: int | None) -> str:
    friends.friend_request_decline(user=viewer, request_id=request_id or 0)
    return "Friend request declined."


def _unfriend(viewer: User, user: User, request_id: int | None) -> str:
    friends.friend_remove(user=viewer, friend_id=user.pk)
    return f"{user.username} is no longer your friend."


def _block(viewer: User, user: User, request_id: int | None) -> str:
    friends.user_block(blocker=viewer, username=user.username)
    return f"You blocked {user.username}."


def _unblock(viewer: User, user: User, request_id: int | None) -> str:
    friends.user_unblock(blocker=viewer, blocked_id=user.pk)
    return f"You unblocked {user.username}."


# `/u/<username>/<action>/`: each calls one service of accounts.friends; the pending request a
# cancel or decline is about is the one between the viewer and the player.
ACTIONS: dict[str, Callable[[User, User, int | None], str]] = {
    "befriend": _befriend,
    "cancel-request": _cancel,
    "decline-request": _decline,
    "unfriend": _unfriend,
    "block": _block,
    "unblock": _unblock,
}


@login_required
@require_POST
def profile_action(request: HttpRequest, username: str, action: str) -> HttpResponse:
    carry_out = ACTIONS.get(action)
    user = selectors.profile_user_for(
        username=username, viewer=request.user
    ) or selectors.profile_blocked_by(username=username, viewer=request.user)
    if carry_out is None or user is None:
        raise Http404("No such player.")
    relationship = selectors.profile_relationship_for(user=user, viewer=request.user)
    try:
        messages.success(request, carry_out(request.user, user, relationship.request_id))
    except AccountError as error:
        messages.error(request, error.detail)
    return redirect("profile", username=user.username)
