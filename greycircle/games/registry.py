"""The game kinds this site plays: kind -> rules engine and computer player.

Each game app registers its kind in its AppConfig.ready(); the platform looks kinds up here and
never imports a game app directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from greycircle.games.engine import ComputerPlayer, Rules


@dataclass(frozen=True, slots=True)
class GameKind:
    rules: Rules[Any, Any]
    computer: ComputerPlayer[Any, Any]
    ai_levels: tuple[str, ...]
    title: str
    # Fixed data the kind's page needs to draw the game (e.g. CirKis's board geometry).
    client_data: Callable[[], dict[str, Any]] | None = None

    @property
    def kind(self) -> str:
        return self.rules.kind


class UnknownKind(LookupError):
    pass


_KINDS: dict[str, GameKind] = {}


def register(game_kind: GameKind) -> None:
    _KINDS[game_kind.kind] = game_kind


def unregister(kind: str) -> None:
    _KINDS.pop(kind, None)


def get(kind: str) -> GameKind:
    try:
        return _KINDS[kind]
    except KeyError:
        raise UnknownKind(kind) from None


def all_kinds() -> list[GameKind]:
    return [_KINDS[kind] for kind in sorted(_KINDS)]
