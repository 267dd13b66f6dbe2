"""Circles games: a proxy of the platform's `Game` holding only games of kind ``circles``.

No table of its own: the proxy gives Circles its own admin and its own permissions
(``circles.view_circlesgame``, ``circles.change_circlesgame``), so a moderator can be given
Circles alone, and typed access to the stored state.
"""

from __future__ import annotations

from typing import Any, Final

from django.db import models

from circles.rules import RULES, GameState
from greycircle.games.models import Game, GameQuerySet

KIND: Final = RULES.kind


class CirclesGameManager(models.Manager.from_queryset(GameQuerySet)):  # type: ignore[misc]
    """Circles games only; creating through it makes Circles games."""

    def get_queryset(self) -> GameQuerySet:
        return super().get_queryset().filter(kind=KIND)

    def create(self, **kwargs: Any) -> CirclesGame:
        kwargs.setdefault("kind", KIND)
        return super().create(**kwargs)


class CirclesGame(Game):
    objects = CirclesGameManager()

    class Meta:
        proxy = True
        verbose_name = "Circles game"
        verbose_name_plural = "Circles games"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.kind:
            self.kind = KIND
        super().save(*args, **kwargs)

    def position(self) -> GameState | None:
        """The stored state, decoded by the rules; None while the game waits for players."""
        return RULES.decode(self.state) if self.state else None

    def spectator_view(self) -> dict[str, Any] | None:
        """What anybody watching sees (Circles hides nothing); None before the game starts."""
        state = self.position()
        return None if state is None else RULES.view(state, None)
