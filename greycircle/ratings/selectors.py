"""Ratings as players see them: leaderboards and a player's ratings."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from greycircle.ratings.models import LEADERBOARD_MIN_GAMES, PlayerRating


def leaderboard(*, kind: str) -> QuerySet[PlayerRating]:
    """The ratings at `kind` of active players with at least LEADERBOARD_MIN_GAMES rated games,
    best first, provisional ones among them (each rating says whether it is). Guests are left out
    until they create an account."""
    return (
        PlayerRating.objects.filter(
            kind=kind,
            games__gte=LEADERBOARD_MIN_GAMES,
            user__is_active=True,
            user__is_guest=False,
        )
        .select_related("user")
        .order_by("-rating", "user__username")
    )


def ratings_of(*, user: Any) -> dict[str, PlayerRating]:
    """`user`'s rating at each kind they have played rated games of."""
    return {rating.kind: rating for rating in PlayerRating.objects.filter(user=user)}
