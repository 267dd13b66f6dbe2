"""Circles' JSON shapes as DRF serializers: the move, the options, the view, the log entry and
the engine's analysis of a finished game.

Checked documentation, registered on the kind in `CirclesConfig.ready()`: `circles.rules` stays
the authority (`parse_move`, `validate_options`, `view`, `log_entry`), and the contract tests
validate everything the engine writes against these serializers. The API schema builds
`CirclesGame` and the other Circles components from them.

Columns `a`-`h` run left to right and rows `1`-`8` top to bottom, so `a1` is the top-left
corner. Seat 0 plays white and moves first; seat 1 plays black.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from greycircle.games.replay_serializers import AnalysisPositionSerializer, GameAnalysisSerializer
from greycircle.games.serializers import MoveLogEntrySerializer, ShapeSerializer

SQUARE_PATTERN = r"^[a-hA-H][1-8]$"
"""A square name: column `a`-`h`, row `1`-`8` (`a1` top left, `h8` bottom right)."""

SEAT_HELP = "A seat: 0 (white) or 1 (black)."


RECORD_PATTERN = r"^([a-h][1-8])*$"
"""A game record: squares back to back; empty before the first move."""


class RecordField(serializers.CharField):
    """A record, which may be empty: RECORD_PATTERN says so on its own.

    Not `allow_blank`: drf-spectacular documents a blank-allowed field with a pattern as `oneOf`
    the pattern and an empty string, the empty record every game starts with matches both, and a
    strict validator refuses a value that matches two branches of a `oneOf`. (A response shape
    only, so the schema gets no `minLength` either.)
    """

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if data == "":
            return ""  # the record before the first move; the pattern allows it
        return super().run_validation(data)


def square_field(**kwargs) -> serializers.RegexField:
    return serializers.RegexField(SQUARE_PATTERN, min_length=2, max_length=2, **kwargs)


def seat_field(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=1, **kwargs)


class CirclesMoveSerializer(ShapeSerializer):
    """A Circles move: the square to play, e.g. `{"square": "c5"}`.

    A pass is never a move: a player who cannot move passes automatically.
    """

    square = square_field(
        help_text="The square to place a disc on, a1 (top left) to h8 (bottom right); any case "
        "on input, lower case on output."
    )


class CirclesOptionsSerializer(ShapeSerializer):
    """Circles has no options: send `{}` or leave `options` out; any option is refused."""


class CirclesStateSerializer(ShapeSerializer):
    """The whole game, the same for every seat and for spectators: Circles hides nothing."""

    board = serializers.ListField(
        child=serializers.RegexField(r"^[WB.]{8}$", min_length=8, max_length=8),
        min_length=8,
        max_length=8,
        help_text="8 rows, row 1 (top) first; each 8 cells from column a to h: `W` white, "
        "`B` black, `.` empty.",
    )
    discs = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=64),
        min_length=2,
        max_length=2,
        help_text="[white discs, black discs] on the board.",
    )
    to_move = seat_field(allow_null=True, help_text="The seat to move; null once the game is over.")
    last_move = square_field(
        allow_null=True, help_text="The square played last; null before any move."
    )
    passed = serializers.ListField(
        child=seat_field(),
        help_text="The seats that had to pass right after the last move (or, for a game that "
        "starts blocked, before the first); almost always empty.",
    )
    record = RecordField(
        validators=[RegexValidator(RECORD_PATTERN)],
        help_text="The game record: the squares played, back to back (`c5d6c3`); passes are not "
        "written.",
    )


class CirclesMoveLogEntrySerializer(ShapeSerializer, MoveLogEntrySerializer):
    """One Circles move in the log: the square played, the discs it flipped, who had to pass."""

    square = square_field(help_text="The square played (lower case).")
    flipped = serializers.ListField(
        child=square_field(),
        help_text="The discs the move flipped, in square-name order (a1, a2, ..., h8).",
    )
    passed = serializers.ListField(
        child=seat_field(),
        help_text="The seat that had to pass straight after this move (empty almost always).",
    )


# --- the engine's analysis of a finished game (`/api/v1/games/{id}/analysis/`) -------------------


class CirclesAnalysisPositionSerializer(AnalysisPositionSerializer):
    """One move of the game as the hard engine judges it, from the position before it.

    Scores are disc margins for the player who moved (positive: ahead) at the end of the game
    with the best play from both sides: exact from 16 empty squares down (`exact`), the search's
    estimate before that. `loss` is `best_score - played_score`: 4 discs or more is a `mistake`,
    10 or more a `blunder`.
    """

    played = square_field(help_text="The square played.")
    best = square_field(help_text="The engine's best move (the square played, if it was as good).")
    best_score = serializers.IntegerField(help_text="The margin the best move keeps, in discs.")
    played_score = serializers.IntegerField(help_text="The margin the move played keeps.")
    exact = serializers.BooleanField(
        help_text="Solved to the end of the game (true), or the midgame search's estimate."
    )
    forced = serializers.BooleanField(help_text="The only legal move.")


class CirclesAnalysisSeatSerializer(serializers.Serializer):
    seat = seat_field()
    moves = serializers.IntegerField(help_text="Moves of this seat analysed.")
    mistakes = serializers.IntegerField()
    blunders = serializers.IntegerField()
    average_loss = serializers.FloatField(help_text="Discs lost per move, on average.")


class CirclesAnalysisSerializer(GameAnalysisSerializer):
    """A Circles game analysed by the hard engine: for each move, the best move in the position
    before it, both moves' scores and what the move played lost; per seat, the totals, once the
    whole game is analysed."""

    positions = CirclesAnalysisPositionSerializer(
        many=True, help_text="One per move analysed so far, the first move first."
    )
    seats = CirclesAnalysisSeatSerializer(
        many=True,
        allow_null=True,
        help_text="White (seat 0), then black; null until `status` is `ready`.",
    )
