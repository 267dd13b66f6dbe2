"""Request and response shapes of the games API. Validation of shape only: rules live in engines.

Refusals that cost nothing come first: a request is refused by the number of its seats before any
seat is looked at, and all invited players are then looked up in one query, so a request with
2,000 seats costs no more than one with two.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from accounts.selectors import username_key, users_by_username
from greycircle.api.errors import ApiError, shorten
from greycircle.games import registry
from greycircle.games.models import DaysPerMove, GameSpeed, GameStatus, InvitationStatus, OnDecline
from greycircle.games.results import ABORT_NO_FIRST_MOVE, ABORT_STAFF
from greycircle.games.selectors import MyGames
from greycircle.games.services import SeatSpec
from greycircle.games.takebacks import TakebackAction
from greycircle.games.timing_serializers import (
    DAYS_PER_MOVE_HELP,
    DaysPerMoveField,
    GameClockSerializer,
    TimeControlSerializer,
)
from greycircle.ratings.serializers import GameRatingSerializer

# AbstractUser.username's length; a longer name cannot be anybody's.
USERNAME_MAX_LENGTH = 150


class KindField(serializers.ChoiceField):
    """A registered game kind, refused as `unknown_kind` (without echoing more than a few chars).

    The choices are read from the registry on every use rather than frozen at import: game apps
    register their kinds when Django starts, and tests register their own.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=(), **kwargs)

    @property
    def choices(self) -> dict[str, str]:
        return {game_kind.kind: game_kind.title for game_kind in registry.all_kinds()}

    @choices.setter
    def choices(self, value: Any) -> None:
        """Ignored: ChoiceField.__init__ sets choices; ours come from the registry."""

    @property
    def grouped_choices(self) -> dict[str, str]:
        return self.choices

    @property
    def choice_strings_to_values(self) -> dict[str, str]:
        return {kind: kind for kind in self.choices}

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, str) and data in self.choices:
            return data
        message = f"There is no game called {shorten(data)!r}."
        raise ApiError(
            code="unknown_kind", detail=message, extra={"fields": {self.field_name: [message]}}
        )

    def to_representation(self, value: Any) -> str:
        return value


def _bad_seats(detail: str) -> ApiError:
    return ApiError(code="bad_seats", detail=detail)


class SeatRequestSerializer(serializers.Serializer):
    """Exactly one of: `user` (a username to invite), `ai_level` (a computer player), `open`.

    Shape only; `GameCreateSerializer` looks the users of all seats up together.
    """

    user = serializers.CharField(required=False, max_length=USERNAME_MAX_LENGTH)
    ai_level = serializers.CharField(required=False, max_length=40)
    open = serializers.BooleanField(required=False)

    def validate(self, attrs: dict) -> dict[str, Any]:
        given = [name for name in ("user", "ai_level") if attrs.get(name)]
        if attrs.get("open"):
            given.append("open")
        if len(given) != 1:
            raise serializers.ValidationError("A seat needs exactly one of: user, ai_level, open.")
        return {given[0]: attrs[given[0]]}


class SeatListSerializer(serializers.ListSerializer):
    """The seats, refused by their number before a single one is validated or looked up."""

    def to_internal_value(self, data: Any) -> list[dict[str, Any]]:
        if isinstance(data, list):
            most = max((k.rules.max_seats for k in registry.all_kinds()), default=1) - 1
            if len(data) > most:
                raise _bad_seats(f"No game here has more than {most + 1} players.")
        return super().to_internal_value(data)


class GameCreateSerializer(serializers.Serializer):
    """Start a game: its kind, options and the other seats (you take seat 0)."""

    kind = KindField(help_text="The game.")
    options = serializers.DictField(required=False, default=dict)
    seats = SeatListSerializer(
        child=SeatRequestSerializer(),
        help_text="The other seats in order (you take seat 0): a user, a computer or an open seat.",
    )
    record = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        max_length=10_000,
        help_text="Import: a game record (Circles: 'c5d6c3...') replayed into the new game, which "
        "goes on from there. Every other seat must be a computer.",
    )
    unlisted = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Keep the game out of every list (open tables, live games): only its players "
        "and whoever has its link find it.",
    )
    on_decline = serializers.ChoiceField(
        choices=OnDecline.choices,
        required=False,
        default=OnDecline.CANCEL,
        help_text="What a declined, withdrawn or expired invitation does: `cancel` the game, or "
        "`open_seat` (anyone may then join in that seat).",
    )
    days_per_move = DaysPerMoveField(
        required=False, default=DaysPerMove.THREE, help_text=DAYS_PER_MOVE_HELP
    )
    time_control = TimeControlSerializer(
        required=False,
        allow_null=True,
        default=None,
        help_text="Make the game live: a clock per seat with this time control instead of days "
        "per move. Each player's first turn has its own limit (30 s by default), past which the "
        "game is aborted; a player out of time loses (King's Corner with three or more seats: a "
        "computer takes the seat over).",
    )
    rated = serializers.BooleanField(
        required=False, default=True, help_text="False for a casual game, which moves no rating."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Refuse too many seats for the kind, then turn the seats into `SeatSpec`s.

        The service checks the seats fully; the count is checked here too because it must come
        before the users are looked up.
        """
        game_kind = registry.get(attrs["kind"])
        players = 1 + len(attrs["seats"])
        if players > game_kind.rules.max_seats:
            raise _bad_seats(
                f"{game_kind.title} is played by at most {game_kind.rules.max_seats} players, "
                f"not {players}."
            )
        attrs["seats"] = self._seat_specs(attrs["seats"])
        return attrs

    @staticmethod
    def _seat_specs(seats: list[dict[str, Any]]) -> list[SeatSpec]:
        """The seats with their users found, case-insensitively, in one query."""
        users = users_by_username(usernames=[seat["user"] for seat in seats if "user" in seat])
        errors: list[dict[str, list[str]]] = []
        specs = []
        for seat in seats:
            if "user" in seat:
                user = users.get(username_key(seat["user"]))
                if user is None:
                    message = f"No player is called {shorten(seat['user'])}."
                    errors.append({"user": [message]})
                    continue
                specs.append(SeatSpec(user=user))
            else:
                specs.append(SeatSpec(ai_level=seat.get("ai_level", "")))
            errors.append({})
        if any(errors):
            raise serializers.ValidationError({"seats": errors})
        return specs


class GameListQuerySerializer(serializers.Serializer):
    """The filters of `GET /games/`. Empty parameters are left out before validation."""

    kind = KindField(required=False, help_text="Only games of this kind.")
    status = serializers.ChoiceField(
        choices=GameStatus.choices,
        required=False,
        help_text="Only games in this state.",
        error_messages={
            "invalid_choice": "A status is one of: "
            + ", ".join(value for value, _ in GameStatus.choices)
            + "."
        },
    )
    list = serializers.ChoiceField(
        choices=MyGames.choices,
        required=False,
        help_text="One list of my games: `my_turn` (waiting on me), `their_turn` (waiting on "
        "others, including tables still waiting for players) or `finished` (over; the most "
        "recently ended first). Without it, all my games, the most recently changed first.",
        error_messages={"invalid_choice": "A list is one of: " + ", ".join(MyGames.values) + "."},
    )
    changed_since = serializers.DateTimeField(
        required=False,
        help_text="Only games changed at or after this moment (ISO 8601, e.g. the newest "
        "`updated_at` you have seen: expect that game again). For clients that poll their lists.",
    )
    my_turn = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Deprecated: use `list=my_turn`, which it means. Kept for older clients.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """`my_turn=true` is `list=my_turn`; asked together with another list, it is refused."""
        if attrs.pop("my_turn"):
            if attrs.get("list", MyGames.MY_TURN) != MyGames.MY_TURN:
                message = "`my_turn` is `list=my_turn`; ask for one list only."
                raise serializers.ValidationError({"my_turn": [message]})
            attrs["list"] = MyGames.MY_TURN
        return attrs


class MovesQuerySerializer(serializers.Serializer):
    """The filter of `GET /games/{id}/moves/`."""

    after = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="Only the entries after move number `after` (the length of the log you "
        "have): what a socket frame's `moves` did not bring, e.g. after a reconnect.",
    )


class OpenGamesQuerySerializer(serializers.Serializer):
    """The filters of `GET /games/open/`."""

    kind = KindField(required=False, help_text="Only games of this kind.")


class LiveGamesQuerySerializer(serializers.Serializer):
    """The filters of `GET /games/live/`."""

    kind = KindField(required=False, help_text="Only games of this kind.")


class MoveRequestSerializer(serializers.Serializer):
    expected_version = serializers.IntegerField(
        min_value=0,
        max_value=2**31 - 1,
        help_text="The game's version you saw; a newer game answers 409.",
    )
    move = serializers.DictField(help_text="The move, in the game's own JSON (see each kind).")


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    user = serializers.CharField(allow_null=True)
    ai_level = serializers.CharField(allow_null=True)
    name = serializers.CharField()
    open = serializers.BooleanField()
    taken_over = serializers.BooleanField(
        help_text="The player (`user`) ran out of time and the computer (`ai_level`) plays this "
        "seat for them now."
    )
    score = serializers.IntegerField(required=False)


class EnumField(serializers.ChoiceField):
    """A choice documented as its own named enum component, `enum_name` (e.g. `CirclesAiLevelEnum`),
    so that equal names never collide across components."""

    def __init__(self, choices: Any, *, enum_name: str = "", **kwargs: Any) -> None:
        self.enum_name = enum_name
        super().__init__(choices, **kwargs)


class OutcomeSerializer(serializers.Serializer):
    """A finished game's outcome."""

    scores = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())
    reason = serializers.CharField()
    rating = GameRatingSerializer()


class AbortedOutcomeSerializer(serializers.Serializer):
    """An aborted game's outcome: why it was aborted. Nobody won or lost it, and it moved no
    rating (no scores, winners or rating)."""

    reason = EnumField(
        [ABORT_NO_FIRST_MOVE, ABORT_STAFF],
        enum_name="AbortReasonEnum",
        help_text="`no_first_move`: a player's first move did not come in time (`seat`); "
        "`staff`: the staff stopped it.",
    )
    seat = serializers.IntegerField(
        required=False, help_text="`no_first_move` only: the seat that did not make it."
    )


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="GameOutcome",
        serializers=[OutcomeSerializer, AbortedOutcomeSerializer],
        resource_type_field_name=None,
    )
)
class GameOutcomeField(serializers.DictField):
    """A game's outcome as the game keeps it: a finished game's (`Outcome`) or an aborted one's
    (`AbortedOutcome`; games aborted before their reason was kept have none)."""


class TakebackOfferSerializer(serializers.Serializer):
    """A takeback asked for and waiting for the other player's answer."""

    seat = serializers.IntegerField(help_text="The seat of the player who asked.")
    moves = serializers.IntegerField(
        help_text="How many moves it undoes: the asker's last one, and the opponent's after it "
        "if any, so that it is the asker's turn again."
    )


class TakebackRequestSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=TakebackAction.choices)


class GameSummarySerializer(serializers.Serializer):
    """A game in a list: the envelope without `state` and `legal_moves`."""

    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField()
    options = serializers.DictField()
    seats = SeatSerializer(many=True)
    to_move = serializers.IntegerField(allow_null=True, help_text="The seat to act, if any.")
    you = serializers.IntegerField(allow_null=True, help_text="Your seat; null for spectators.")
    days_per_move = DaysPerMoveField(help_text=DAYS_PER_MOVE_HELP)
    speed = serializers.ChoiceField(
        choices=GameSpeed.choices,
        help_text="`correspondence` (days per move) or `live` (a clock per seat: `clock`).",
    )
    rated = serializers.BooleanField(help_text="False for a casual game: it moves no rating.")
    clock = GameClockSerializer(allow_null=True, help_text="A live game's clocks; null otherwise.")
    move_deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="When the player to move runs out of time; null when no time runs (the game is "
        "not in play, a computer is to move, or only one person plays).",
    )
    can_claim = serializers.BooleanField(
        help_text="You may claim the win now (`POST .../claim/`): the player to move ran out of "
        "time. True as soon as `move_deadline` has passed; the periodic check then sends every "
        "viewer a new version of the game, so open pages learn it."
    )
    created_by = serializers.CharField(
        allow_null=True,
        help_text="The username of the player who started the game (who alone may withdraw it "
        "while it waits for players); null if that account is gone.",
    )
    unlisted = serializers.BooleanField(
        help_text="In no list: only its players and whoever has its link find it."
    )
    outcome = GameOutcomeField(allow_null=True)
    move_count = serializers.IntegerField()
    rematch_id = serializers.IntegerField(allow_null=True)
    takebacks = serializers.BooleanField(
        help_text="Moves may be taken back with the opponent's consent (`POST .../takeback/`): a "
        "casual game between two people, of a kind without hidden information (Circles)."
    )
    takeback = TakebackOfferSerializer(
        allow_null=True,
        help_text="A takeback waiting for an answer; null if none. Any move cancels it.",
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class GameInvitationSerializer(serializers.Serializer):
    """An invitation to a seat of the game, as its page shows it ("waiting for bob to accept")."""

    id = serializers.IntegerField()
    seat = serializers.IntegerField()
    user = serializers.CharField(help_text="The invited player's username.")
    status = serializers.ChoiceField(choices=InvitationStatus.choices)
    expires_at = serializers.DateTimeField()


class GameEnvelopeSerializer(GameSummarySerializer):
    """A game as you may see it: your seat's view of it, and your legal moves on your turn."""

    invitations = GameInvitationSerializer(
        many=True,
        help_text="While the game has not started (or was cancelled before it did): the latest "
        "invitation of each invited seat. The game starts when all are accepted.",
    )
    link_key = serializers.CharField(
        allow_null=True,
        help_text="An unlisted game's link key, for its players to pass on: anyone else reaches "
        "the game only by sending it as `?key=` (every `/api/v1/games/{id}/...` read and join, "
        "`ws/games/{id}/`, the page `/games/{id}/`). Null for a listed game and for spectators.",
    )

    state = serializers.DictField(
        allow_null=True, help_text="The game as you may see it (the kind's own view)."
    )
    legal_moves = serializers.ListField(
        child=serializers.DictField(),
        help_text="Every legal move, only when it is your turn.",
    )


class MoveLogEntrySerializer(serializers.Serializer):
    """One entry of the move log; the kind's own public fields (and your private ones) follow."""

    number = serializers.IntegerField()
    seat = serializers.IntegerField()
    at = serializers.DateTimeField()
    imported = serializers.BooleanField(
        help_text="Replayed from an imported record: nobody made this move on this site."
    )


class RecordSerializer(serializers.Serializer):
    kind = KindField()
    record = serializers.CharField(
        allow_blank=True, help_text="The moves in the kind's notation (Circles: 'c5d6c3...')."
    )


# --- the kinds' own shapes ---------------------------------------------------------------------
#
# Each game app describes its JSON (moves, options, views, log entries) with serializers built on
# these bases and registers them on its `registry.GameKind`. They are checked documentation: the
# engine stays the authority, and the contract tests validate everything an engine writes against
# them.


class ShapeSerializer(serializers.Serializer):
    """A JSON object of exactly the declared fields: an undeclared key is an error."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(str(key) for key in data if key not in self.fields)
            if unknown:
                raise serializers.ValidationError(
                    {key: ["Not a field of this shape."] for key in unknown}
                )
        return super().to_internal_value(data)


class OneOfSerializer(ShapeSerializer):
    """One of several shapes, told apart by the value of one field (`discriminator`).

    `variants` maps each value to the serializer of that shape (which declares the discriminator
    itself, usually as a `ConstField`). The schema is a `oneOf` with a discriminator.
    """

    discriminator: str = ""
    variants: dict[str, type[serializers.Serializer]] = {}

    def _variant(self, value: Any) -> type[serializers.Serializer] | None:
        return self.variants.get(value) if isinstance(value, str) else None

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError("A JSON object is expected.")
        variant = self._variant(data.get(self.discriminator))
        if variant is None:
            choices = ", ".join(self.variants)
            raise serializers.ValidationError({self.discriminator: [f"One of: {choices}."]})
        serializer = variant(data=data, context=self.context)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def to_representation(self, instance: Any) -> Any:
        variant = self._variant(instance.get(self.discriminator))
        if variant is None:
            return instance
        return variant(context=self.context).to_representation(instance)


class ConstField(EnumField):
    """A field that always holds `value` (the `kind` of a per-kind shape, a move's `action`)."""

    def __init__(self, value: str, **kwargs: Any) -> None:
        self.value = value
        super().__init__([value], **kwargs)


class JsonBooleanField(serializers.BooleanField):
    """`true` or `false` only, as the engines read them (DRF's own also takes "yes", 1, ...)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class JsonIntegerField(serializers.IntegerField):
    """A JSON integer only, as the engines read them (DRF's own also takes "7" and 7.0)."""

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


class InvitationDirection:
    INCOMING = "incoming"
    OUTGOING = "outgoing"
    choices = (("incoming", "sent to me"), ("outgoing", "sent by me"))


class InvitationQuerySerializer(serializers.Serializer):
    direction = EnumField(
        choices=InvitationDirection.choices,
        enum_name="InvitationDirectionEnum",
        required=False,
        help_text="Only invitations sent to me (`incoming`) or by me (`outgoing`).",
    )


class InvitationSerializer(serializers.Serializer):
    """A pending invitation to a game that I received or sent. Needs `viewer` in the context."""

    id = serializers.IntegerField()
    game = serializers.IntegerField(source="game_id")
    kind = serializers.CharField(source="game.kind")
    seat = serializers.IntegerField()
    inviter = serializers.CharField(
        source="inviter.username", allow_null=True, help_text="null if that account is gone."
    )
    invitee = serializers.CharField(source="invitee.username")
    direction = serializers.SerializerMethodField()
    status = serializers.ChoiceField(choices=InvitationStatus.choices)
    on_decline = serializers.ChoiceField(choices=OnDecline.choices)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()

    @extend_schema_field(
        EnumField(choices=InvitationDirection.choices, enum_name="InvitationDirectionEnum")
    )
    def get_direction(self, invitation: Any) -> str:
        if invitation.invitee_id == self.context["viewer"].pk:
            return InvitationDirection.INCOMING
        return InvitationDirection.OUTGOING
