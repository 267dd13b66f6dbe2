"""Circles games: a proxy of the platform's `Game` holding only games of kind ``circles``
(see greycircle.games.proxies).
"""

from __future__ import annotations

from circles.rules import RULES
from greycircle.games.models import Game
from greycircle.games.proxies import KindGameManager, KindGameMixin


class CirclesGame(KindGameMixin, Game):
    rules = RULES

    objects = KindGameManager()

    class Meta:
        proxy = True
        verbose_name = "Circles game"
        verbose_name_plural = "Circles games"
