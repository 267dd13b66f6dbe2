"""CirKis's JSON shapes as DRF serializers: the move, the options, the view and the log entry.

Checked documentation, registered on the kind in `CirKisConfig.ready()`: `cirkis.rules` stays the
authority (`parse_move`, `validate_options`, `view`, `log_entry`), and the contract tests validate
everything the engine writes against these serializers. The API schema builds `CirKisGame` and
the other CirKis components from them.

Fields are numbered 0 to 164 (`cirkis.board`; the kind's page gets the geometry as client data).
Shapes are named by a label: `C0`-`C9` for the Circles, `S0`-`S5` for the Stars (`S0` is the
Center Star) and `R` for the Center Ring.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from cirkis.board import FIELD_COUNT, PIECES
from cirkis.rules import MAX_SEATS, MIN_SEATS, PIECE_KEYS
from cirkis.scoring import RING_LABEL, SHAPE_LABELS
from greycircle.games.serializers import (
    ConstField,
    EnumField,
    JsonBooleanField,
    JsonIntegerField,
    MoveLogEntrySerializer,
    OneOfSerializer,
    ShapeSerializer,
)

PIECE_LIST = ", ".join(f"`{key}` ({PIECES[key].name}, {PIECES[key].per_set})" for key in PIECE_KEYS)
FINISHED = ("target", "went_out", "blocked")
FREE_TURN_REASONS = ("filled", "center_star", "first_sliver")


def seat_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=MAX_SEATS - 1, **kwargs)


def seats_field(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=seat_field(), **kwargs)


def piece_field(**kwargs: Any) -> EnumField:
    return EnumField(PIECE_KEYS, enum_name="CirKisPieceEnum", **kwargs)


def field_ids(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(
        child=JsonIntegerField(min_value=0, max_value=FIELD_COUNT - 1),
        min_length=1,
        **kwargs,
    )


def per_seat(child: serializers.Field, **kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=child, min_length=MIN_SEATS, max_length=MAX_SEATS, **kwargs)


def finished_field(**kwargs: Any) -> EnumField:
    return EnumField(FINISHED, enum_name="CirKisFinishedEnum", **kwargs)


# --- the move and the options -------------------------------------------------------------------


class CirKisMoveSerializer(ShapeSerializer):
    """A CirKis move: a piece placed on the board, `{"piece": "big_slice", "fields": [25, 35, 36]}`.

    The fields must be exactly those of one placement of that piece (any order on input, sorted
    on output), all empty, and: cover the Center Star or Ring for the first piece of a round,
    touch the Leader otherwise, or touch any piece on a free turn.
    """

    piece = piece_field(help_text=f"The piece placed; the pieces of a set: {PIECE_LIST}.")
    fields = field_ids(help_text="The ids of the fields the piece covers (0 to 164), each once.")


class CirKisOptionsSerializer(ShapeSerializer):
    """CirKis's options; each one left out is false."""

    center_ring = JsonBooleanField(
        default=False,
        label="Center Ring",
        help_text="Center Ring scoring: covering the last of the ten Center Ring kites scores "
        "the ring (15 for the majority, 5 for another completer).",
    )
    long_game = JsonBooleanField(
        default=False,
        label="Long game (to 100)",
        help_text="The long game: rounds to 40 until a total reaches 100 (three scoreless rounds "
        "in a row also end it); each new round is started by the next seat.",
    )


# --- what everybody sees ------------------------------------------------------------------------


class CirKisLeaderSerializer(ShapeSerializer):
    """The Leader: the last piece placed, which the next piece must touch."""

    seat = seat_field(help_text="Whose piece it is.")
    piece = piece_field(help_text="The piece.")
    fields = field_ids(help_text="The fields it covers, ascending.")


class CirKisPiecesSerializer(ShapeSerializer):
    """How many of each piece a seat has left."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {
            key: serializers.IntegerField(
                min_value=0,
                max_value=PIECES[key].per_set,
                help_text=f"{PIECES[key].name}s left (of {PIECES[key].per_set}).",
            )
            for key in PIECE_KEYS
        }


def _shape_field(**kwargs: Any) -> EnumField:
    return EnumField(
        (*SHAPE_LABELS, RING_LABEL),
        enum_name="CirKisShapeEnum",
        help_text="The shape: `C0`-`C9` a Circle, `S0`-`S5` a Star (`S0` the Center Star), "
        "`R` the Center Ring.",
        **kwargs,
    )


class CirKisSeatPointsSerializer(ShapeSerializer):
    """Points scored, by seat number as a string (`{"0": 5, "1": 10}`); a seat that scored
    nothing is left out."""

    def get_fields(self) -> dict[str, serializers.Field]:
        # Seat numbers are not identifiers, so the fields cannot be declared as attributes.
        return {
            str(seat): serializers.IntegerField(
                min_value=1, required=False, help_text=f"Seat {seat}'s points."
            )
            for seat in range(MAX_SEATS)
        }


class _CompletionFields(serializers.Serializer):
    shape = _shape_field()
    by = seat_field(help_text="The seat whose placement completed the shape.")
    majority = seat_field(
        allow_null=True,
        help_text="The seat with strictly the most segments of the shape; null on a tie for the "
        "most (nobody takes the majority points).",
    )
    scores = CirKisSeatPointsSerializer(
        help_text='Points scored, by seat number as a string (`{"0": 5, "1": 10}`): 10 for '
        "the majority (15 for the Center Ring), 5 for a different completer; seats that scored "
        "nothing are left out.",
    )


class CirKisCompletionSerializer(ShapeSerializer, _CompletionFields):
    """A shape completed by a placement, and who scored what for it."""


class CirKisCompletedEventSerializer(ShapeSerializer, _CompletionFields):
    """A shape was completed (the fields of a completion)."""

    type = ConstField("completed")


class CirKisFreeTurnEventSerializer(ShapeSerializer):
    """The placer earned a free turn: it moves again, touching any piece on the board."""

    type = ConstField("free_turn")
    seat = seat_field(help_text="The placer.")
    reason = EnumField(
        FREE_TURN_REASONS,
        enum_name="CirKisFreeTurnReasonEnum",
        help_text="`filled`: the piece filled a hole (every field touching it is covered); "
        "`center_star`: it covered the last dart of the Center Star; `first_sliver`: the "
        "round's first Sliver.",
    )


class CirKisFreeTurnUnusedEventSerializer(ShapeSerializer):
    """The placer could not use its free turn (no piece fits anywhere); play passes on."""

    type = ConstField("free_turn_unused")
    seat = seat_field(help_text="The placer.")


class CirKisLostTurnEventSerializer(ShapeSerializer):
    """A seat could not touch the Leader and lost its turn (automatically)."""

    type = ConstField("lost_turn")
    seat = seat_field(help_text="The seat that lost its turn.")


class CirKisWentOutEventSerializer(ShapeSerializer):
    """The placer placed its last piece: it went out and scores the bonus."""

    type = ConstField("went_out")
    seat = seat_field(help_text="The placer.")
    points = serializers.IntegerField(help_text="The going-out bonus: 10.")


class CirKisRoundOverEventSerializer(ShapeSerializer):
    """Long game: a round ended and the next one begins (board cleared, totals kept)."""

    type = ConstField("round_over")
    reason = finished_field(help_text="How the round ended.")
    round = serializers.IntegerField(min_value=0, help_text="The round that ended (from 0).")


class CirKisGameOverEventSerializer(ShapeSerializer):
    """The game ended."""

    type = ConstField("game_over")
    reason = finished_field(
        help_text="`target`: a seat reached the target; `went_out`: a seat placed its last "
        "piece; `blocked`: nobody could place a piece (long game: three scoreless rounds)."
    )


class CirKisEventSerializer(OneOfSerializer):
    """Something a placement caused besides covering fields, told apart by `type`."""

    discriminator = "type"
    variants = {
        "completed": CirKisCompletedEventSerializer,
        "free_turn": CirKisFreeTurnEventSerializer,
        "free_turn_unused": CirKisFreeTurnUnusedEventSerializer,
        "lost_turn": CirKisLostTurnEventSerializer,
        "went_out": CirKisWentOutEventSerializer,
        "round_over": CirKisRoundOverEventSerializer,
        "game_over": CirKisGameOverEventSerializer,
    }


class CirKisStateSerializer(ShapeSerializer):
    """The whole game, the same for every seat and for spectators: CirKis hides nothing."""

    seats = serializers.IntegerField(
        min_value=MIN_SEATS, max_value=MAX_SEATS, help_text="How many play."
    )
    owners = serializers.ListField(
        child=seat_field(allow_null=True),
        min_length=FIELD_COUNT,
        max_length=FIELD_COUNT,
        help_text="By field id (165 entries): the seat covering that field, or null.",
    )
    leader = CirKisLeaderSerializer(
        allow_null=True, help_text="The Leader; null before the first piece of a round."
    )
    scores = per_seat(
        serializers.IntegerField(min_value=0), help_text="Each seat's points: the totals."
    )
    round_scores = per_seat(
        serializers.IntegerField(min_value=0),
        help_text="Each seat's points in the round being played (the same as `scores` outside "
        "the long game); a round ends when one reaches 40.",
    )
    pieces_left = per_seat(CirKisPiecesSerializer(), help_text="Each seat's pieces left.")
    to_move = seat_field(allow_null=True, help_text="The seat to move; null once the game is over.")
    free_turn = serializers.BooleanField(help_text="The seat to move is on a free turn.")
    first_sliver_played = serializers.BooleanField(
        help_text="The round's first Sliver (which earns a free turn) has been played."
    )
    completed = serializers.ListField(
        child=CirKisCompletionSerializer(),
        help_text="The shapes completed in this round, in order, with who scored what.",
    )
    lost_turns = seats_field(help_text="The seats that lost their turn after the last placement.")
    last_events = serializers.ListField(
        child=CirKisEventSerializer(), help_text="What the last placement caused, in order."
    )
    finished = finished_field(
        allow_null=True, help_text="Why the game ended; null while it goes on."
    )
    target = serializers.IntegerField(
        help_text="The total that ends the game: 40, or 100 in the long game."
    )
    center_ring = serializers.BooleanField(help_text="The Center Ring option.")
    long_game = serializers.BooleanField(help_text="The long game option.")
    round = serializers.IntegerField(min_value=0, help_text="The round being played (from 0).")
    scoreless_rounds = serializers.IntegerField(
        min_value=0,
        help_text="Long game: rounds in a row (up to the last one ended) in which nobody scored; "
        "three end the game.",
    )


# --- the log ------------------------------------------------------------------------------------


class CirKisMoveLogEntrySerializer(ShapeSerializer, MoveLogEntrySerializer):
    """One CirKis placement in the log (everything is public) and all it caused."""

    piece = piece_field(help_text="The piece placed.")
    fields = field_ids(help_text="The fields it covers, ascending.")
    scored = serializers.ListField(
        child=CirKisCompletionSerializer(), help_text="The shapes it completed, in order."
    )
    free_turn = EnumField(
        FREE_TURN_REASONS,
        enum_name="CirKisFreeTurnReasonEnum",
        allow_null=True,
        help_text="Why it earned a free turn, or null.",
    )
    lost_turns = seats_field(help_text="The seats that lost their turn after it.")
    events = serializers.ListField(
        child=CirKisEventSerializer(), help_text="Everything it caused, in order."
    )
