"""King's Corner's serializers against the engine: every move, view and log entry of random games
fits, each seat's view and the spectators'."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from greycircle.games import registry
from greycircle.games.engine import IllegalMove
from kingscorner.rules import RULES
from kingscorner.serializers import (
    KingsCornerMoveLogEntrySerializer,
    KingsCornerMoveSerializer,
    KingsCornerOptionsSerializer,
    KingsCornerStateSerializer,
)
from tests.games.contract import assert_fits, errors, log_entry

MAX_ACTIONS = 3000


def test_the_kind_is_registered_with_its_serializers():
    kind = registry.get("kingscorner")
    assert kind.move_serializer is KingsCornerMoveSerializer
    assert kind.options_serializer is KingsCornerOptionsSerializer
    assert kind.state_serializer is KingsCornerStateSerializer
    assert kind.log_entry_serializer is KingsCornerMoveLogEntrySerializer


@settings(max_examples=10, deadline=None)
@given(
    seats=st.integers(min_value=RULES.min_seats, max_value=RULES.max_seats),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
@example(seats=2, seed=91320)  # the first player goes out in the first turn: nobody draws
def test_random_games_fit_the_serializers(seats, seed):
    rng = random.Random(seed)
    state = RULES.new_game(seats, seed=seed, options=RULES.validate_options({}))
    viewers = [*range(seats), None]
    draws = turns_ended = 0
    for number in range(1, MAX_ACTIONS + 1):
        for viewer in viewers:
            view = RULES.view(state, viewer)
            assert_fits(KingsCornerStateSerializer, view)
        seat = RULES.to_move(state)
        if seat is None:
            break
        moves = RULES.legal_moves(state)
        for move in moves:
            data = RULES.move_to_json(move)
            assert_fits(KingsCornerMoveSerializer, data)
            assert RULES.parse_move(data) == move
        # Mostly play when something can be played, so that games end and piles grow.
        move = rng.choice(moves[:-1]) if len(moves) > 1 and rng.random() < 0.8 else moves[-1]
        after = RULES.play(state, move)
        logged = RULES.log_entry(state, move, after)
        # A card drawn at the end of a turn is the drawer's alone; nothing else is private.
        ended = logged.public.get("action") == "end_turn"
        drew = ended and logged.public["drew"]
        assert bool(logged.private) == drew
        turns_ended += ended
        draws += drew
        for viewer in viewers:
            assert_fits(KingsCornerMoveLogEntrySerializer, log_entry(number, seat, logged, viewer))
        state = after
    assert RULES.outcome(state) is not None
    assert "final_hands" in RULES.view(state, None)
    # Every game whose first turn ends draws from the full stock; the first player may also go
    # out in the first turn, before anyone draws.
    assert draws or not turns_ended


def test_the_options_are_none_at_all():
    assert_fits(KingsCornerOptionsSerializer, RULES.validate_options({}))
    assert "seats" in errors(KingsCornerOptionsSerializer, {"seats": 4})
    with pytest.raises(IllegalMove):
        RULES.validate_options({"seats": 4})


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"action": "discard", "card": "7D"}, "action"),
        ({"action": "play", "card": "7X", "to": "N"}, "card"),
        ({"action": "play", "card": "7D", "to": "X"}, "to"),
        ({"action": "play", "card": "7D"}, "to"),
        ({"action": "move_pile", "from": "E"}, "to"),
        ({"action": "end_turn", "card": "7D"}, "card"),
    ],
)
def test_moves_the_engine_refuses_do_not_fit(data, field):
    assert field in errors(KingsCornerMoveSerializer, data)
    with pytest.raises(IllegalMove):
        RULES.parse_move(data)


def test_a_spectator_sees_no_hand_and_a_view_with_an_extra_key_does_not_fit():
    state = RULES.new_game(3, seed=1, options={})
    spectators = RULES.view(state, None)
    assert "hand" not in spectators
    assert_fits(KingsCornerStateSerializer, spectators)
    assert "hands" in errors(KingsCornerStateSerializer, {**spectators, "hands": [[]] * 3})
    piles = {**spectators["piles"], "X": []}
    assert "piles" in errors(KingsCornerStateSerializer, {**spectators, "piles": piles})
