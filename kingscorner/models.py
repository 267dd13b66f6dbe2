"""King's Corner games: a proxy of the platform's `Game` holding only games of kind
``kingscorner``.

No table of its own: the proxy gives King's Corner its own admin and its own permissions
(``kingscorner.view_kingscornergame``, ``kingscorner.change_kingscornergame``), so a moderator can
be given King's Corner alone, and typed access to the stored state. The stored state holds every
hand and the stock: show `spectator_view()`, never `state`.
"""

from __future__ import annotations

from typing import Any, Final

from django.db import models

from greycircle.games.models import Game, GameQuerySet
from kingscorner.rules import RULES, GameState

KIND: Final = RULES.kind


class KingsCornerGameManager(models.Manager.from_queryset(GameQuerySet)):  # type: ignore[misc]
    """King's Corner games only; creating through it makes King's Corner games."""

    def get_queryset(self) -> GameQuerySet:
        return super().get_queryset().filter(kind=KIND)

    def create(self, **kwargs: Any) -> KingsCornerGame:
        kwargs.setdefault("kind", KIND)
        return super().create(**kwargs)


class KingsCornerGame(Game):
    objects = KingsCornerGameManager()

    class Meta:
        proxy = True
        verbose_name = "King's Corner game"
        verbose_name_plural = "King's Corner games"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.kind:
            self.kind = KIND
        super().save(*args, **kwargs)

    def position(self) -> GameState | None:
        """The stored state, decoded by the rules (hands included: server use only); None while
        the game waits for players."""
        return RULES.decode(self.state) if self.state else None

    def spectator_view(self) -> dict[str, Any] | None:
        """What anybody watching sees: piles, hand sizes and the stock's size; every hand only
        once the game is over. None before the game starts."""
        state = self.position()
        return None if state is None else RULES.view(state, None)
