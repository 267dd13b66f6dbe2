"""The lobby's page (`/lobby/`): the pools to join, custom seeks, the seeks waiting and the pools'
counts, kept current by frontend/js/lobby.js over `ws/lobby/` and `/api/v1/seeks/`.

A visitor who is not signed in sees the pools and their counts as they are, and is asked to sign
in (or up) to join one: seeking needs an account, even a guest's, and so does the live socket."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from greycircle.games import registry
from greycircle.games.models import DaysPerMove
from greycircle.lobby.models import pool_key
from greycircle.lobby.selectors import pools_counts


@ensure_csrf_cookie
def lobby(request: HttpRequest) -> HttpResponse:
    counts = {pool["pool"]: pool for pool in pools_counts()}
    signed_in = request.user.is_authenticated
    rated = not signed_in or not request.user.is_guest
    return render(
        request,
        "lobby/lobby.html",
        {
            "kinds": [_kind(game_kind, counts, rated=rated) for game_kind in registry.all_kinds()],
            "days_per_move": DaysPerMove.choices,
            "can_rate": rated,
            "can_seek": signed_in,
        },
    )


def _kind(game_kind: registry.GameKind, counts: dict[str, Any], *, rated: bool) -> dict[str, Any]:
    """A kind's quick pools: each preset time control at each seat count, with its counts."""
    rules = game_kind.rules
    seat_counts = range(rules.min_seats, rules.max_seats + 1)
    pools = []
    for seats in seat_counts:
        for control in game_kind.clock_presets:
            key = pool_key(
                kind=game_kind.kind,
                time_control=control,
                days_per_move=None,
                seats=seats,
                rated=rated,
            )
            counts_of = counts.get(key, {"waiting": 0, "playing": 0})
            pools.append(
                {
                    "seats": seats,
                    "minutes": control.minutes,
                    "increment": control.increment,
                    "label": control.label,
                    "key": key,
                    "waiting": counts_of["waiting"],
                    "playing": counts_of["playing"],
                }
            )
    return {
        "kind": game_kind.kind,
        "title": game_kind.title,
        "seat_counts": list(seat_counts),
        "pools": pools,
    }
