"""Request and response shapes of the games API. Validation of shape only: rules live in engines."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from greycircle.games.models import GameStatus
from greycircle.games.services import SeatSpec


class SeatRequestSerializer(serializers.Serializer):
    """Exactly one of: `user` (a username to invite), `ai_level` (a computer player), `open`."""

    user = serializers.CharField(required=False)
    ai_level = serializers.CharField(required=False)
    open = serializers.BooleanField(required=False)

    def validate(self, attrs: dict) -> SeatSpec:
        given = [name for name in ("user", "ai_level") if attrs.get(name)]
        if attrs.get("open"):
            given.append("open")
        if len(given) != 1:
            raise serializers.ValidationError("A seat needs exactly one of: user, ai_level, open.")
        if "user" in given:
            user = get_user_model().objects.filter(username__iexact=attrs["user"]).first()
            if user is None:
                raise serializers.ValidationError({"user": f"No player is called {attrs['user']}."})
            return SeatSpec(user=user)
        if "ai_level" in given:
            return SeatSpec(ai_level=attrs["ai_level"])
        return SeatSpec()


class GameCreateSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="The game: circles, kingscorner or cirkis.")
    options = serializers.DictField(required=False, default=dict)
    seats = SeatRequestSerializer(
        many=True,
        help_text="The other seats in order (you take seat 0): a user, a computer or an open seat.",
    )
    record = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        help_text="Import: a game record (Circles: 'c5d6c3...') replayed into the new game, which "
        "goes on from there. Every seat must be filled.",
    )


class MoveRequestSerializer(serializers.Serializer):
    expected_version = serializers.IntegerField(
        min_value=0, help_text="The game's version you saw; a newer game answers 409."
    )
    move = serializers.DictField(help_text="The move, in the game's own JSON (see each kind).")


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    user = serializers.CharField(allow_null=True)
    ai_level = serializers.CharField(allow_null=True)
    name = serializers.CharField()
    open = serializers.BooleanField()
    score = serializers.IntegerField(required=False)


class OutcomeSerializer(serializers.Serializer):
    scores = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())
    reason = serializers.CharField()


class GameSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField()
    options = serializers.DictField()
    seats = SeatSerializer(many=True)
    to_move = serializers.IntegerField(allow_null=True, help_text="The seat to act, if any.")
    you = serializers.IntegerField(allow_null=True, help_text="Your seat; null for spectators.")
    outcome = OutcomeSerializer(allow_null=True)
    move_count = serializers.IntegerField()
    rematch_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class GameEnvelopeSerializer(GameSummarySerializer):
    state = serializers.DictField(
        allow_null=True, help_text="The game as you may see it (the kind's own view)."
    )
    legal_moves = serializers.ListField(
        child=serializers.DictField(),
        help_text="Every legal move, only when it is your turn.",
    )


class MoveLogEntrySerializer(serializers.Serializer):
    number = serializers.IntegerField()
    seat = serializers.IntegerField()
    at = serializers.DateTimeField()


class ErrorSerializer(serializers.Serializer):
    """The API's one error shape, for the schema (greycircle.api.errors builds the errors)."""

    code = serializers.CharField()
    detail = serializers.CharField()
    current_version = serializers.IntegerField(
        required=False, help_text="With stale_version: the game's version now."
    )


# "fields" would shadow Serializer.fields, so the member is declared after the class.
ErrorSerializer._declared_fields["fields"] = serializers.DictField(
    required=False, help_text="Per-field messages for invalid input."
)


class RecordSerializer(serializers.Serializer):
    kind = serializers.CharField()
    record = serializers.CharField(
        allow_blank=True, help_text="The moves in the kind's notation (Circles: 'c5d6c3...')."
    )
