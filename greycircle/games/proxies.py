"""What every game kind's proxy of `Game` shares (`circles.models.CirclesGame`, ...).

A proxy has no table of its own: it gives its kind its own admin and its own permissions (e.g.
``circles.view_circlesgame``), so a moderator can be given one game, and typed access to the
stored state through the kind's rules.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.db import models

from greycircle.games.engine import Rules
from greycircle.games.models import GameQuerySet


class KindGameManager(models.Manager.from_queryset(GameQuerySet)):  # type: ignore[misc]
    """Games of the proxy's kind only; creating through it makes games of that kind."""

    def get_queryset(self) -> GameQuerySet:
        return super().get_queryset().filter(kind=self.model.rules.kind)

    def create(self, **kwargs: Any) -> Any:
        kwargs.setdefault("kind", self.model.rules.kind)
        return super().create(**kwargs)


class KindGameMixin:
    """Mixed into a kind's proxy of `Game`, which sets `rules` to the kind's engine."""

    rules: ClassVar[Rules[Any, Any]]
    kind: str
    state: dict[str, Any]

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.kind:
            self.kind = self.rules.kind
        super().save(*args, **kwargs)  # type: ignore[misc]

    def position(self) -> Any:
        """The stored state, decoded by the rules (hidden information included: server use
        only); None while the game waits for players."""
        return self.rules.decode(self.state) if self.state else None

    def spectator_view(self) -> dict[str, Any] | None:
        """What anybody watching sees (`rules.view(state, None)`); None before the game starts."""
        state = self.position()
        return None if state is None else self.rules.view(state, None)
