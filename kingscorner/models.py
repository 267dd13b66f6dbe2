"""King's Corner games: a proxy of the platform's `Game` holding only games of kind ``kingscorner``
(see greycircle.games.proxies).

The stored state holds every hand and the stock: show `spectator_view()`, never `state`.
"""

from __future__ import annotations

from greycircle.games.models import Game
from greycircle.games.proxies import KindGameManager, KindGameMixin
from kingscorner.rules import RULES


class KingsCornerGame(KindGameMixin, Game):
    rules = RULES

    objects = KindGameManager()

    class Meta:
        proxy = True
        verbose_name = "King's Corner game"
        verbose_name_plural = "King's Corner games"
