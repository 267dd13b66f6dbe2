"""The game kinds this site plays: kind -> rules engine and computer player.

Each game app registers its kind in its AppConfig.ready(); the platform looks kinds up here and
never imports a game app directly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from greycircle.games.clocks import TimeControl
from greycircle.games.engine import ComputerPlayer, Rules

if TYPE_CHECKING:
    from rest_framework.serializers import BaseSerializer


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """A kind's own analysis of games that are over (Circles: the hard engine's verdict on every
    move), computed once by the game app in a task and kept.

    `get(game=...)` is the analysis as it stands (status ``not_requested`` until somebody asks);
    `request(game=..., user=...)` asks for it for a player or staff member, queueing the work
    once (raising GameInvalid past the kind's limits), and answers as `get` does. Both
    answer the shape of `serializer` (a `greycircle.games.replay_serializers`
    `GameAnalysisSerializer`).
    """

    get: Callable[..., dict[str, Any]]
    request: Callable[..., dict[str, Any]]
    serializer: type[BaseSerializer]


@dataclass(frozen=True, slots=True)
class GameKind:
    rules: Rules[Any, Any]
    computer: ComputerPlayer[Any, Any]
    ai_levels: tuple[str, ...]
    title: str
    # Fixed data the kind's page needs to draw the game (e.g. CirKis's board geometry).
    client_data: Callable[[], dict[str, Any]] | None = None
    # The level of the computer player that takes over the seat of a player whose time per move
    # ran out, in a game of three or more seats (greycircle.games.deadlines); None: the kind's
    # rules allow no takeover, and the other players may claim the win instead.
    takeover_level: str | None = None
    # Whether a casual game of two people may take moves back with the opponent's consent
    # (greycircle.games.takebacks): only in a kind without hidden information, since undoing a
    # move that drew or revealed something (a card, the stock's order) would show it for nothing.
    takebacks: bool = False
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
    # The kind's rules page (`/rules/<kind>/`): its app's template, which extends
    # "frontend/rules.html", and what the template needs besides (e.g. the positions its
    # diagrams show, built with the engine). A kind without a template has no rules page.
    rules_template: str | None = None
    rules_context: Callable[[], dict[str, Any]] | None = None
    # The kind's analysis of games that are over (`/api/v1/games/{id}/analysis/`), if it has one.
    analysis: GameAnalysis | None = None
    # How the kind's outcome reasons end a sentence ("You won 38-26 on discs"): reason -> words;
    # "" for a reason that needs none (a tie). Game lists and profiles word results with them.
    outcome_reasons: Mapping[str, str] = field(default_factory=dict, compare=False)
    # The time controls offered for live games of the kind (the Play form, the lobby's pools);
    # any other of 1 to 60 minutes and 0 to 60 seconds may be asked for (greycircle.games.clocks).
    clock_presets: tuple[TimeControl, ...] = (
        TimeControl(3, 5),
        TimeControl(5, 5),
        TimeControl(10, 10),
    )

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
