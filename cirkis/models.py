"""CirKis games: a proxy of the platform's `Game` holding only games of kind ``cirkis``
(see greycircle.games.proxies).
"""

from __future__ import annotations

from cirkis.rules import RULES
from greycircle.games.models import Game
from greycircle.games.proxies import KindGameManager, KindGameMixin


class CirKisGame(KindGameMixin, Game):
    rules = RULES

    objects = KindGameManager()

    class Meta:
        proxy = True
        verbose_name = "CirKis game"
        verbose_name_plural = "CirKis games"
