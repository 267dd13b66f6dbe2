"""What the lobby tells, once its change is committed: the players of a game it paired, on their
`ws/me/` (`{"type": "game_started"}`), and everyone in the lobby (`ws/lobby/`), the pools' counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.cache import cache
from django.utils import timezone

from greycircle.games.events import frame_text, jsonable, publish, user_group
from greycircle.games.models import Game
from greycircle.lobby.models import Seek
from greycircle.lobby.selectors import pools_counts

LOBBY_GROUP = "lobby"
# The counts last sent to the lobby's sockets (by any process): the sweep sends them again only
# when they changed without a seek's change sending them (a game of a pool ended).
SENT_KEY = "lobby:pools-sent"


def game_started(*, game: Game, seeks: Sequence[Seek]) -> None:
    """Tell each player `game` paired that it started: the page opens it (any page, for a live
    game: its clock is about to run)."""
    publish(
        [
            (
                user_group(seek.user_id),
                jsonable(
                    {
                        "type": "user.game_started",
                        "game": game.pk,
                        "kind": game.kind,
                        "speed": game.speed,
                        "version": game.version,
                        "seek": seek.pk,
                    }
                ),
            )
            for seek in seeks
        ]
    )


def pools_frame(pools: list[dict[str, object]] | None = None) -> dict[str, object]:
    """The `pools` frame of `ws/lobby/`: `pools`, or the counts as they are now."""
    return {
        "type": "pools",
        "pools": pools_counts() if pools is None else pools,
        "server_time": timezone.now(),
    }


def pools_changed() -> None:
    """The lobby's sockets get the pools' counts as they are now."""
    _pools_send(pools_counts())


def pools_resend_if_changed() -> bool:
    """Send the pools' counts if they differ from those last sent; whether it sent them."""
    pools = pools_counts()
    if cache.get(SENT_KEY) == pools:
        return False
    _pools_send(pools)
    return True


def _pools_send(pools: list[dict[str, object]]) -> None:
    cache.set(SENT_KEY, pools, timeout=None)
    publish([(LOBBY_GROUP, {"type": "lobby.pools", "frame": frame_text(pools_frame(pools))})])
