"""Ratings as players see them: leaderboards and a player's ratings."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from greycircle.ratings.models import PROVISIONAL_DEVIATION, PlayerRating


def leaderboard(*, kind: str) -> QuerySet[PlayerRating]:
    """The established (not provisional) ratings of active players at `kind`, best first.
    Guests are left out until they create an account."""
    return (
        PlayerRating.objects.filter(
            kind=kind,
            deviation__lte=PROVISIONAL_DEVIATION,
            user__is_active=True,
            user__is_guest=False,
        )
        .select_related("user")
        .order_by("-rating", "user__username")
    )


def ratings_of(*, user: Any) -> dict[str, PlayerRating]:
    """`user`'s rating at each kind they have played rated games of."""
    return {rating.kind: rating for rating in PlayerRating.objects.filter(user=user)}
