"""What the lobby tells, once its change is committed: the players of a game it paired, on their
`ws/me/` (`{"type": "game_started"}`), and everyone in the lobby (`ws/lobby/`), the pools' counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from greycircle.games.events import frame_text, jsonable, publish, user_group
from greycircle.games.models import Game
from greycircle.lobby.models import Seek
from greycircle.lobby.selectors import pools_counts

LOBBY_GROUP = "lobby"


def game_started(*, game: Game, seeks: Sequence[Seek]) -> None:
    """Tell each player `game` paired that it started: the page opens it."""
    publish(
        [
            (
                user_group(seek.user_id),
                jsonable(
                    {
                        "type": "user.game_started",
                        "game": game.pk,
                        "kind": game.kind,
                        "version": game.version,
                        "seek": seek.pk,
                    }
                ),
            )
            for seek in seeks
        ]
    )


def pools_frame() -> dict[str, object]:
    return {"type": "pools", "pools": pools_counts(), "server_time": timezone.now()}


def pools_changed() -> None:
    """The lobby's sockets get the pools' counts as they are now."""
    publish([(LOBBY_GROUP, {"type": "lobby.pools", "frame": frame_text(pools_frame())})])
