"""A Glicko-2 rating per player, game kind and speed, and how each rated game changed it.

Live and correspondence games are rated apart (as on lichess): a player quick on a clock may be a
different player with days to think. A game's speed is `Game.speed`; casual games rate nobody.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from greycircle.games.models import GameSpeed
from greycircle.ratings import glicko2

# A rating whose deviation is above this is provisional: too few games to trust (as on lichess).
PROVISIONAL_DEVIATION = 110.0
# Rated games a player needs before being on a leaderboard: a provisional rating is listed, marked
# "?", so a young site's boards fill up; after three games it says a little more than one lucky win.
LEADERBOARD_MIN_GAMES = 3


class UnratedReason(models.TextChoices):
    """Why a finished game moved nobody's rating (`outcome.rating.reason` in the envelope)."""

    COMPUTERS = "computers", "Fewer than two people played"
    TOO_SHORT = "too_short", "A player made too few moves"
    PAIR_LIMIT = "pair_limit", "Two of its players reached their rated games for the day"
    CASUAL = "casual", "Casual game"


class PlayerRating(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    kind = models.CharField(max_length=32)
    speed = models.CharField(
        max_length=16, choices=GameSpeed.choices, default=GameSpeed.CORRESPONDENCE
    )
    rating = models.FloatField(default=glicko2.DEFAULT_RATING)
    deviation = models.FloatField(default=glicko2.DEFAULT_DEVIATION)
    volatility = models.FloatField(default=glicko2.DEFAULT_VOLATILITY)
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "speed"], name="rating_one_per_user_kind_and_speed"
            )
        ]
        indexes = [models.Index(fields=["kind", "speed", "-rating"], name="rating_leaderboard")]

    def __str__(self) -> str:
        return f"{self.kind} {self.speed} {self.rating:.0f} ±{self.deviation:.0f}"

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION

    def as_glicko(self) -> glicko2.Rating:
        return glicko2.Rating(self.rating, self.deviation, self.volatility)


class RatingChange(models.Model):
    """One rated game's effect on one player's rating (at most one per game and player)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=32)
    speed = models.CharField(
        max_length=16, choices=GameSpeed.choices, default=GameSpeed.CORRESPONDENCE
    )
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="rating_change_once_per_game")
        ]
        indexes = [
            models.Index(fields=["user", "kind", "speed", "-created_at"], name="rating_history")
        ]

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.rating_before:.0f} -> {self.rating_after:.0f}"
