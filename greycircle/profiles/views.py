"""The site's profile page, `/u/<username>/`."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from greycircle.games import registry, results
from greycircle.games.models import GameStatus
from greycircle.profiles import selectors


@login_required
def profile(request: HttpRequest, username: str) -> HttpResponse:
    user = selectors.profile_user_for(username=username, viewer=request.user)
    if user is None:
        raise Http404("No such player.")
    profile = selectors.profile_for(user=user, viewer=request.user)
    recent = [
        {
            **game,
            "title": registry.get(game["kind"]).title,
            "status_label": GameStatus(game["status"]).label,
            "your_turn": game["status"] == GameStatus.ACTIVE
            and game["you"] is not None
            and game["to_move"] == game["you"],
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
        {"profile": profile, "recent": recent, "own": user.pk == request.user.pk},
    )
