"""King's Corner's JSON shapes as DRF serializers: moves, options, a seat's view and log entries.

Checked documentation, registered on the kind in `KingsCornerConfig.ready()`: `kingscorner.rules`
stays the authority (`parse_move`, `validate_options`, `view`, `log_entry`), and the contract tests
validate everything the engine writes against these serializers. The API schema builds
`KingsCornerGame` and the other King's Corner components from them.

Cards are a rank `A23456789TJQK` and a suit `CDHS` (`7D`, `TD`, `KS`). The eight piles are the
foundations `N E S W` and the corners `NE SE SW NW`, always listed in that order.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from greycircle.games.serializers import (
    ConstField,
    EnumField,
    MoveLogEntrySerializer,
    OneOfSerializer,
    ShapeSerializer,
)
from kingscorner.cards import PILE_NAMES
from kingscorner.rules import MAX_SEATS, MIN_SEATS

CARD_PATTERN = r"^[A2-9TJQK][CDHS]$"
"""A card as the engine writes it: rank `A23456789TJQK`, then suit `CDHS`."""
CARD_INPUT_PATTERN = r"^\s*([A2-9TJQKatjqk]|10)[CDHScdhs]\s*$"
"""A card as the engine reads it: also lower case, and `10` for `T`."""


def card_field(**kwargs: Any) -> serializers.RegexField:
    return serializers.RegexField(CARD_PATTERN, **kwargs)


def cards_field(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=card_field(), **kwargs)


def pile_field(**kwargs: Any) -> EnumField:
    return EnumField(PILE_NAMES, enum_name="KingsCornerPileEnum", **kwargs)


def seat_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=MAX_SEATS - 1, **kwargs)


def per_seat(child: serializers.Field, **kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=child, min_length=MIN_SEATS, max_length=MAX_SEATS, **kwargs)


# --- moves --------------------------------------------------------------------------------------


class KingsCornerPlayCardSerializer(ShapeSerializer):
    """Play a card from your hand onto a pile: `{"action": "play", "card": "7D", "to": "N"}`.

    On a pile: one rank lower and the other colour than its top card (never on an ace). Into an
    empty foundation: any card; into an empty corner: only a King.
    """

    action = ConstField("play")
    card = serializers.RegexField(
        CARD_INPUT_PATTERN,
        help_text="The card: rank `A23456789TJQK` and suit `CDHS` (`7D`, `TD`, `KS`); the "
        "engine also reads lower case and `10` for `T`.",
    )
    to = pile_field(help_text="The pile to play it on.")


class KingsCornerMovePileSerializer(ShapeSerializer):
    """Move a whole foundation pile: `{"action": "move_pile", "from": "E", "to": "N"}`.

    The pile moves onto another pile when its bottom card is one rank lower and of the other
    colour than that pile's top card, or into an empty corner when a King is at its bottom; never
    into an empty foundation. Corner piles never move.
    """

    action = ConstField("move_pile")
    to = pile_field(help_text="The pile it moves onto (or the empty corner it moves into).")

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        source = pile_field(help_text="The foundation pile that moves: `N`, `E`, `S` or `W`.")
        return {"action": fields["action"], "from": source, "to": fields["to"]}


class KingsCornerEndTurnSerializer(ShapeSerializer):
    """End your turn: `{"action": "end_turn"}`. You draw the top card of the stock (nothing when
    it is empty) and the next seat plays. Always legal while the game is on."""

    action = ConstField("end_turn")


class KingsCornerMoveSerializer(OneOfSerializer):
    """A King's Corner move, told apart by `action`: play a card, move a pile or end the turn.

    `legal_moves` lists every card play (hand order, then pile order), then every pile move, then
    `end_turn`.
    """

    discriminator = "action"
    variants = {
        "play": KingsCornerPlayCardSerializer,
        "move_pile": KingsCornerMovePileSerializer,
        "end_turn": KingsCornerEndTurnSerializer,
    }


# --- options --------------------------------------------------------------------------------------


class KingsCornerOptionsSerializer(ShapeSerializer):
    """King's Corner has no options (2 to 6 players): send `{}` or leave `options` out; any option
    is refused."""


# --- what a seat sees ---------------------------------------------------------------------------


class KingsCornerPilesSerializer(ShapeSerializer):
    """Every pile in full, bottom card first, top card last (`[]` when empty)."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {
            name: cards_field(
                help_text=f"The {'foundation' if index < 4 else 'corner'} pile {name}, "
                "bottom to top."
            )
            for index, name in enumerate(PILE_NAMES)
        }


class KingsCornerStateSerializer(ShapeSerializer):
    """What a seat (or a spectator) sees: its own hand only, every other hand and the stock as
    counts, every pile in full. Once the game is over nothing is hidden: `final_hands` and
    `penalties` are added to every view."""

    seats = serializers.IntegerField(
        min_value=MIN_SEATS, max_value=MAX_SEATS, help_text="How many play."
    )
    hand = cards_field(
        required=False,
        help_text="Your cards, sorted (rank, then suit `CDHS`); only in a seat's own view, "
        "never in a spectator's.",
    )
    hand_sizes = per_seat(
        serializers.IntegerField(min_value=0), help_text="How many cards each seat holds."
    )
    stock = serializers.IntegerField(min_value=0, help_text="How many cards are left to draw.")
    piles = KingsCornerPilesSerializer()
    to_move = seat_field(allow_null=True, help_text="The seat to act; null once the game is over.")
    plays_this_turn = serializers.IntegerField(
        min_value=0, help_text="Cards played and piles moved by the seat to act this turn."
    )
    idle_turns = serializers.IntegerField(
        min_value=0,
        help_text="Turns in a row ended with nothing played and nothing drawn (the stock being "
        "empty); when every seat has had one, the game ends in a stalemate.",
    )
    final_hands = per_seat(
        cards_field(),
        required=False,
        help_text="Once the game is over: every seat's remaining cards, sorted.",
    )
    penalties = per_seat(
        serializers.IntegerField(min_value=0),
        required=False,
        help_text="Once the game is over: each seat's penalty points for the cards left in hand "
        "(King 10, any other card 1), the same as the outcome's scores; lower is better.",
    )


# --- the log ------------------------------------------------------------------------------------


class KingsCornerPlayCardLogEntrySerializer(ShapeSerializer, MoveLogEntrySerializer):
    """A card played onto a pile."""

    action = ConstField("play")
    card = card_field(help_text="The card played.")
    to = pile_field(help_text="The pile it went on.")


class KingsCornerMovePileLogEntrySerializer(ShapeSerializer, MoveLogEntrySerializer):
    """A foundation pile moved onto another pile (or into an empty corner)."""

    action = ConstField("move_pile")
    to = pile_field(help_text="The pile it moved onto.")

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        to = fields.pop("to")
        return {**fields, "from": pile_field(help_text="The pile that moved."), "to": to}


class KingsCornerEndTurnLogEntrySerializer(ShapeSerializer, MoveLogEntrySerializer):
    """A turn ended, with a draw from the stock unless it was empty. Everybody sees that a card
    was drawn; only the drawer sees which (`card`)."""

    action = ConstField("end_turn")
    drew = serializers.BooleanField(help_text="Whether a card was drawn from the stock.")
    card = card_field(
        required=False, help_text="The card drawn: only in the drawer's own log, only if drew."
    )


class KingsCornerMoveLogEntrySerializer(OneOfSerializer):
    """One King's Corner action in the log, told apart by `action`."""

    discriminator = "action"
    variants = {
        "play": KingsCornerPlayCardLogEntrySerializer,
        "move_pile": KingsCornerMovePileLogEntrySerializer,
        "end_turn": KingsCornerEndTurnLogEntrySerializer,
    }
