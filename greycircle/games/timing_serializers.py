"""The shapes of a game's timing in the games API: days per move (correspondence games) and a
live game's time control and clocks (greycircle.games.clocks)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from greycircle.api.errors import ApiError
from greycircle.games.clocks import TimeControl, time_control_check
from greycircle.games.models import DaysPerMove


class DaysPerMoveField(serializers.ChoiceField):
    """The time per move in days (1, 3 or 7), refused as `bad_days_per_move`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=DaysPerMove.choices, **kwargs)

    def run_validation(self, data: Any = serializers.empty) -> Any:
        try:
            return super().run_validation(data)
        except serializers.ValidationError:
            message = f"The time per move is {', '.join(map(str, DaysPerMove.values))} days."
            raise ApiError(
                code="bad_days_per_move",
                detail=message,
                extra={"fields": {self.field_name: [message]}},
            ) from None


DAYS_PER_MOVE_HELP = (
    "Days each player has for each move, in a game between people (none against computers). "
    "A day before it runs out the player is reminded; then the others may claim the win, or, "
    "in King's Corner with three or more seats, a computer takes the absent player's seat over."
)


class TimeControlSerializer(serializers.Serializer):
    """A live game's time control: minutes each (1 to 60), seconds added after each turn (0 to
    60). Refused as `bad_time_control`."""

    minutes = serializers.IntegerField(help_text="Each player's time at the start, in minutes.")
    increment = serializers.IntegerField(help_text="Seconds added after each of a player's turns.")

    def run_validation(self, data: Any = serializers.empty) -> Any:
        try:
            attrs = super().run_validation(data)
            if attrs is None:
                return None
            return time_control_check(minutes=attrs["minutes"], increment=attrs["increment"])
        except (serializers.ValidationError, ValueError) as error:
            message = (
                str(error)
                if isinstance(error, ValueError)
                else 'A time control is {"minutes": 1-60, "increment": 0-60}.'
            )
            raise ApiError(
                code="bad_time_control",
                detail=message,
                extra={"fields": {self.field_name: [message]}},
            ) from None

    def to_representation(self, instance: TimeControl) -> dict[str, int]:
        return {"minutes": instance.minutes, "increment": instance.increment}


class GameClockSerializer(serializers.Serializer):
    """A live game's clocks (greycircle.games.clocks). A client shows the running seat's time as
    `remaining_ms[running]` less the time since `running_since`, on the server's clock: its own
    clock's offset from the server's is `server_time` less when the envelope arrived."""

    time_control = serializers.CharField(help_text='Minutes + increment seconds, e.g. "3+2".')
    initial_ms = serializers.IntegerField(help_text="Each seat's time at the start.")
    increment_ms = serializers.IntegerField(help_text="Added to a seat's time after its turn.")
    remaining_ms = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Each seat's time, as of `running_since` for the running seat.",
    )
    running = serializers.IntegerField(
        allow_null=True, help_text="The seat whose clock runs; null when none does."
    )
    running_since = serializers.DateTimeField(
        allow_null=True, help_text="When the running seat's clock started this stretch."
    )
    first_move_deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="In the running seat's first turn, its clock does not run: it must move by "
        "this time, or the game is aborted (unrated).",
    )
    flag_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When the running seat's time is up, the lag allowance included: the server "
        "then ends the game on its own (a loss on time; in King's Corner with three or more "
        "seats a computer takes the seat over).",
    )
    server_time = serializers.DateTimeField(help_text="The server's clock as this was written.")
    lag_allowance_ms = serializers.IntegerField(
        help_text="Each move is charged this much less than the time it took to arrive."
    )
