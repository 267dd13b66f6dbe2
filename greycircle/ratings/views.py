"""The site's leaderboard pages: one per game kind and speed (`?speed=live`)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from greycircle.games import registry
from greycircle.games.models import GameSpeed
from greycircle.ratings import selectors
from greycircle.ratings.models import LEADERBOARD_MIN_GAMES, PROVISIONAL_DEVIATION

PAGE_SIZE = 50


def leaderboard(request: HttpRequest, kind: str) -> HttpResponse:
    try:
        game_kind = registry.get(kind)
    except registry.UnknownKind:
        raise Http404("No such game.") from None
    speed = request.GET.get("speed", GameSpeed.CORRESPONDENCE)
    if speed not in GameSpeed.values:
        raise Http404("No such speed.")
    page = Paginator(selectors.leaderboard(kind=kind, speed=speed), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    rows = [
        {"rank": rank, "rating": rating}
        for rank, rating in enumerate(page, start=page.start_index())
    ]
    return render(
        request,
        "ratings/leaderboard.html",
        {
            "game_kind": game_kind,
            "kinds": registry.all_kinds(),
            "speed": GameSpeed(speed),
            "speeds": list(GameSpeed),
            "page": page,
            "rows": rows,
            "provisional_deviation": PROVISIONAL_DEVIATION,
            "min_games": LEADERBOARD_MIN_GAMES,
        },
    )
