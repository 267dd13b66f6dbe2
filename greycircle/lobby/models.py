"""Seeks: a player waiting in the lobby for opponents of a kind, time control and seat count.

A seek belongs to one *pool* (`pool`: kind, time control or days per move, seats, rated or
casual); seekers of one pool are paired with each other (greycircle.lobby.services). A seek is
waiting until it is matched (its `game`), cancelled by its seeker, or expired (a live seek whose
seeker left the site, or whose account was closed). Ended seeks are kept a day for the seeker's
app to read what became of them, then deleted by the lobby's sweep.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from greycircle.games.clocks import TimeControl
from greycircle.games.models import GameSpeed


class SeekStatus(models.TextChoices):
    WAITING = "waiting", "Waiting"
    MATCHED = "matched", "Matched"
    CANCELLED = "cancelled", "Cancelled"
    EXPIRED = "expired", "Expired"


def pool_key(
    *,
    kind: str,
    time_control: TimeControl | None,
    days_per_move: int | None,
    seats: int,
    rated: bool,
) -> str:
    """The pool's name, as the API and the counts write it: "circles:3+2:2:rated",
    "kingscorner:3d:4:casual" (a correspondence pool of 3 days per move)."""
    timing = time_control.label if time_control is not None else f"{days_per_move}d"
    return f"{kind}:{timing}:{seats}:{'rated' if rated else 'casual'}"


class Seek(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=32)
    seats = models.PositiveSmallIntegerField()
    # A live seek has a time control (minutes + increment); a correspondence one days per move.
    clock_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    clock_increment = models.PositiveSmallIntegerField(null=True, blank=True)
    days_per_move = models.PositiveSmallIntegerField(null=True, blank=True)
    rated = models.BooleanField(default=True)
    pool = models.CharField(max_length=64)
    # The seeker's rating at the pool's kind and speed when the seek was made, and a custom seek's
    # range of opponents' ratings (both or neither); without one, the window widens with the wait.
    rating = models.FloatField()
    rating_min = models.IntegerField(null=True, blank=True)
    rating_max = models.IntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=SeekStatus.choices, default=SeekStatus.WAITING)
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One waiting seek per pool and player, and one live one at a time: a player is
            # never paired into two live games at once (the database keeps it, races included).
            models.UniqueConstraint(
                fields=["user", "pool"],
                condition=Q(status="waiting"),
                name="seek_one_per_pool",
            ),
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(status="waiting", days_per_move__isnull=True),
                name="seek_one_live",
            ),
        ]
        indexes = [models.Index(fields=["status", "pool", "created_at"], name="seek_pool_waiting")]

    def __str__(self) -> str:
        return f"{self.pool} by {self.user_id} ({self.status})"

    @property
    def time_control(self) -> TimeControl | None:
        if self.clock_minutes is None or self.clock_increment is None:
            return None
        return TimeControl(self.clock_minutes, self.clock_increment)

    @property
    def speed(self) -> str:
        return GameSpeed.CORRESPONDENCE if self.days_per_move is not None else GameSpeed.LIVE

    @property
    def has_range(self) -> bool:
        return self.rating_min is not None and self.rating_max is not None
