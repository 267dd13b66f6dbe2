"""The game kinds this site plays: kind -> rules engine and computer player.

Each game app registers its kind in its AppConfig.ready(); the platform looks kinds up here and
never imports a game app directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from greycircle.games.engine import ComputerPlayer, Rules

if TYPE_CHECKING:
    from rest_framework.serializers import BaseSerializer


@dataclass(frozen=True, slots=True)
class GameKind:
    rules: Rules[Any, Any]
    computer: ComputerPlayer[Any, Any]
    ai_levels: tuple[str, ...]
    title: str
    # Fixed data the kind's page needs to draw the game (e.g. CirKis's board geometry).
    client_data: Callable[[], dict[str, Any]] | None = None
    # The kind's JSON shapes as DRF serializers (`<game>/serializers.py`): checked documentation,
    # the rules engine stays the authority. The API schema types each kind's moves, options, views
    # and log entries with them; a kind without them is documented as free-form JSON.
    move_serializer: type[BaseSerializer] | None = None
    """One move, as `parse_move` reads it and `move_to_json` / `legal_moves` write it."""
    options_serializer: type[BaseSerializer] | None = None
    """The options `validate_options` accepts (and returns, with defaults filled in)."""
    state_serializer: type[BaseSerializer] | None = None
    """`view(state, seat)`: what a seat, or a spectator, sees."""
    log_entry_serializer: type[BaseSerializer] | None = None
    """One entry of the move log: the platform's fields and the kind's public / private ones."""

    @property
    def kind(self) -> str:
        return self.rules.kind

    @property
    def schema_name(self) -> str:
        """The prefix of the kind's API schema components: the title's letters and digits
        ("King's Corner" -> "KingsCorner", as in `KingsCornerGame`)."""
        return "".join(char for char in self.title if char.isalnum())


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
