"""CirKis games: a proxy of the platform's `Game` holding only games of kind ``cirkis``.

No table of its own: the proxy gives CirKis its own admin and its own permissions
(``cirkis.view_cirkisgame``, ``cirkis.change_cirkisgame``), so a moderator can be given CirKis
alone, and typed access to the stored state.
"""

from __future__ import annotations

from typing import Any, Final

from django.db import models

from cirkis.rules import RULES, GameState
from greycircle.games.models import Game, GameQuerySet

KIND: Final = RULES.kind


class CirKisGameManager(models.Manager.from_queryset(GameQuerySet)):  # type: ignore[misc]
    """CirKis games only; creating through it makes CirKis games."""

    def get_queryset(self) -> GameQuerySet:
        return super().get_queryset().filter(kind=KIND)

    def create(self, **kwargs: Any) -> CirKisGame:
        kwargs.setdefault("kind", KIND)
        return super().create(**kwargs)


class CirKisGame(Game):
    objects = CirKisGameManager()

    class Meta:
        proxy = True
        verbose_name = "CirKis game"
        verbose_name_plural = "CirKis games"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.kind:
            self.kind = KIND
        super().save(*args, **kwargs)

    def position(self) -> GameState | None:
        """The stored state, decoded by the rules; None while the game waits for players."""
        return RULES.decode(self.state) if self.state else None

    def spectator_view(self) -> dict[str, Any] | None:
        """What anybody watching sees (CirKis hides nothing); None before the game starts."""
        state = self.position()
        return None if state is None else RULES.view(state, None)
