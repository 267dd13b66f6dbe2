"""The lobby's JSON shapes: a seek asked for and shown, a pool's counts (also in `ws/lobby/`'s
frames)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from greycircle.api.errors import ApiError
from greycircle.games.models import GameSpeed
from greycircle.games.serializers import EnumField, KindField
from greycircle.games.timing_serializers import DaysPerMoveField, TimeControlSerializer
from greycircle.lobby.models import SeekStatus


class RatingRangeSerializer(serializers.Serializer):
    """The ratings of opponents a custom seek accepts, both ends included."""

    min = serializers.IntegerField()
    max = serializers.IntegerField()

    def run_validation(self, data: Any = serializers.empty) -> Any:
        try:
            attrs = super().run_validation(data)
        except serializers.ValidationError:
            detail = 'A rating range is {"min": ..., "max": ...}, whole numbers.'
            raise ApiError(
                code="bad_rating_range", detail=detail, extra={"fields": {"rating_range": [detail]}}
            ) from None
        return None if attrs is None else (attrs["min"], attrs["max"])

    def to_representation(self, instance: Any) -> dict[str, int]:
        return instance


class SeekCreateSerializer(serializers.Serializer):
    kind = KindField()
    seats = serializers.IntegerField(
        required=False, default=None, allow_null=True, help_text="Default: the kind's fewest."
    )
    time_control = TimeControlSerializer(
        required=False,
        allow_null=True,
        default=None,
        help_text="A live game with this clock (the kind's presets are the busy pools); without "
        "it, a correspondence game of `days_per_move`.",
    )
    days_per_move = DaysPerMoveField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A correspondence seek's time per move (3 days when neither this nor "
        "`time_control` is given).",
    )
    rated = serializers.BooleanField(
        required=False, default=True, help_text="False: casual (the only kind guests may seek)."
    )
    rating_range = RatingRangeSerializer(
        required=False,
        allow_null=True,
        default=None,
        help_text="A custom seek: only opponents rated within it. Without it, opponents within "
        "±100 of your rating, widening by 50 each 5 s of waiting up to ±500, then anyone after "
        "60 s.",
    )


class TimeControlJsonSerializer(serializers.Serializer):
    minutes = serializers.IntegerField()
    increment = serializers.IntegerField()


class RatingRangeJsonSerializer(serializers.Serializer):
    min = serializers.IntegerField()
    max = serializers.IntegerField()


class _PoolFieldsSerializer(serializers.Serializer):
    pool = serializers.CharField(
        help_text='The pool\'s name: kind, time control (or days per move: "3d"), seats, '
        'rated or casual, as in "circles:3+2:2:rated".'
    )
    kind = KindField()
    seats = serializers.IntegerField()
    speed = EnumField(GameSpeed.choices, enum_name="SeekSpeedEnum")
    time_control = TimeControlJsonSerializer(allow_null=True)
    days_per_move = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField()


class SeekSerializer(_PoolFieldsSerializer):
    """A seek: a player waiting in a pool. Once `matched`, `game` is the game it started."""

    id = serializers.IntegerField()
    rating_range = RatingRangeJsonSerializer(allow_null=True)
    player = serializers.CharField(help_text="Who seeks (their display name).")
    rating = serializers.IntegerField(help_text="Their rating at the pool's kind and speed.")
    mine = serializers.BooleanField()
    status = EnumField(SeekStatus.choices, enum_name="SeekStatusEnum")
    game = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class PoolSerializer(_PoolFieldsSerializer):
    """A pool with players in it: how many wait, how many play a game it paired."""

    waiting = serializers.IntegerField()
    playing = serializers.IntegerField()
