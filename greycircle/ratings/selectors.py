"""Ratings as players see them: leaderboards and a player's ratings, each at a kind and a speed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet

from greycircle.games.models import GameSpeed
from greycircle.ratings import glicko2
from greycircle.ratings.models import LEADERBOARD_MIN_GAMES, PlayerRating


def leaderboard(*, kind: str, speed: str = GameSpeed.CORRESPONDENCE) -> QuerySet[PlayerRating]:
    """The ratings at `kind` and `speed` of active players with at least LEADERBOARD_MIN_GAMES
    rated games there, best first, provisional ones among them (each rating says whether it is).
    Guests are left out until they create an account."""
    return (
        PlayerRating.objects.filter(
            kind=kind,
            speed=speed,
            games__gte=LEADERBOARD_MIN_GAMES,
            user__is_active=True,
            user__is_guest=False,
        )
        .select_related("user")
        .order_by("-rating", "user__username")
    )


def ratings_of(*, user: Any) -> dict[tuple[str, str], PlayerRating]:
    """`user`'s rating at each (kind, speed) they have played rated games of."""
    return {
        (rating.kind, rating.speed): rating for rating in PlayerRating.objects.filter(user=user)
    }


def player_ratings_for(*, user_ids: Iterable[int], kind: str, speed: str) -> dict[int, float]:
    """Each of `user_ids`' rating at `kind` and `speed` (for pairing players of a like strength);
    one with no rated game there has the rating every player starts with."""
    ids = set(user_ids)
    found = dict(
        PlayerRating.objects.filter(user_id__in=ids, kind=kind, speed=speed).values_list(
            "user_id", "rating"
        )
    )
    return {user_id: found.get(user_id, glicko2.DEFAULT_RATING) for user_id in ids}


def player_rating_for(*, user_id: int, kind: str, speed: str) -> float:
    """`user_id`'s rating at `kind` and `speed`, or the starting rating if they have none."""
    return player_ratings_for(user_ids=[user_id], kind=kind, speed=speed)[user_id]
