"""Pages of the site. Views stay thin: they read through selectors and render."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from greycircle.games import registry, selectors
from greycircle.games.models import Game, GameStatus

HOME_GAMES_LIMIT = 20


def home(request: HttpRequest) -> HttpResponse:
    games: list[dict[str, Any]] = []
    if request.user.is_authenticated:
        games = [
            _game_row(game, request.user)
            for game in selectors.games_for_user(user=request.user)[:HOME_GAMES_LIMIT]
        ]
    return render(request, "frontend/home.html", {"games": games})


def _game_row(game: Game, viewer: Any) -> dict[str, Any]:
    you = selectors.seat_index_for(game=game, viewer=viewer)
    return {
        "id": game.pk,
        "kind": game.kind,
        "title": _kind_title(game.kind),
        "status": game.status,
        "status_label": game.get_status_display(),
        "seats": selectors.seats_json(game=game),
        "you": you,
        "your_turn": game.status == GameStatus.ACTIVE and you is not None and game.to_move == you,
    }


def _kind_title(kind: str) -> str:
    try:
        return registry.get(kind).title
    except registry.UnknownKind:
        return kind
