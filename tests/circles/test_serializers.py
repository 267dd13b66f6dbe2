"""Circles' serializers against the engine: every move, view and log entry of random games fits."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circles.rules import RULES
from circles.serializers import (
    CirclesMoveLogEntrySerializer,
    CirclesMoveSerializer,
    CirclesOptionsSerializer,
    CirclesStateSerializer,
)
from greycircle.games import registry
from greycircle.games.engine import IllegalMove
from tests.games.contract import assert_fits, errors, log_entry


def test_the_kind_is_registered_with_its_serializers():
    kind = registry.get("circles")
    assert kind.move_serializer is CirclesMoveSerializer
    assert kind.options_serializer is CirclesOptionsSerializer
    assert kind.state_serializer is CirclesStateSerializer
    assert kind.log_entry_serializer is CirclesMoveLogEntrySerializer


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_fit_the_serializers(seed):
    rng = random.Random(seed)
    state = RULES.new_game(2, seed=seed, options=RULES.validate_options({}))
    number = 0
    while True:
        for viewer in (0, 1, None):
            assert_fits(CirclesStateSerializer, RULES.view(state, viewer))
        seat = RULES.to_move(state)
        if seat is None:
            break
        moves = RULES.legal_moves(state)
        for move in moves:
            data = RULES.move_to_json(move)
            assert_fits(CirclesMoveSerializer, data)
            assert RULES.parse_move(data) == move
        move = rng.choice(moves)
        after = RULES.play(state, move)
        number += 1
        logged = RULES.log_entry(state, move, after)
        for viewer in (0, 1, None):
            assert_fits(CirclesMoveLogEntrySerializer, log_entry(number, seat, logged, viewer))
        state = after
    assert RULES.outcome(state) is not None


def test_the_options_are_none_at_all():
    assert_fits(CirclesOptionsSerializer, RULES.validate_options({}))
    assert "long_game" in errors(CirclesOptionsSerializer, {"long_game": True})
    with pytest.raises(IllegalMove):
        RULES.validate_options({"long_game": True})


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"square": "i9"}, "square"),
        ({"square": "c5", "pass": True}, "pass"),
        ({}, "square"),
    ],
)
def test_moves_the_engine_refuses_do_not_fit(data, field):
    assert field in errors(CirclesMoveSerializer, data)
    with pytest.raises(IllegalMove):
        RULES.parse_move(data)


def test_a_move_in_upper_case_fits_as_the_engine_reads_it():
    assert_fits(CirclesMoveSerializer, {"square": "C5"})
    assert RULES.parse_move({"square": "C5"}) == RULES.parse_move({"square": "c5"})


def test_a_view_with_an_extra_key_does_not_fit():
    view = RULES.view(RULES.new_game(2, seed=0, options={}), None)
    assert_fits(CirclesStateSerializer, view)
    assert "secret" in errors(CirclesStateSerializer, {**view, "secret": 1})
    del view["record"]
    assert "record" in errors(CirclesStateSerializer, view)
