"""CirKis's serializers against the engine: every move, view and log entry of random games fits,
in short and long games, with and without the Center Ring."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cirkis.rules import RULES
from cirkis.serializers import (
    CirKisEventSerializer,
    CirKisMoveLogEntrySerializer,
    CirKisMoveSerializer,
    CirKisOptionsSerializer,
    CirKisStateSerializer,
)
from greycircle.games import registry
from greycircle.games.engine import IllegalMove
from tests.games.contract import assert_fits, errors, log_entry

MAX_PLACEMENTS = 2000
# Legal moves are many (hundreds at the start): check every one on a sample of turns only.
ALL_MOVES_EVERY = 7


def test_the_kind_is_registered_with_its_serializers():
    kind = registry.get("cirkis")
    assert kind.move_serializer is CirKisMoveSerializer
    assert kind.options_serializer is CirKisOptionsSerializer
    assert kind.state_serializer is CirKisStateSerializer
    assert kind.log_entry_serializer is CirKisMoveLogEntrySerializer


@settings(max_examples=6, deadline=None)
@given(
    seats=st.integers(min_value=RULES.min_seats, max_value=RULES.max_seats),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    options=st.fixed_dictionaries(
        {}, optional={"center_ring": st.booleans(), "long_game": st.booleans()}
    ),
)
def test_random_games_fit_the_serializers(seats, seed, options):
    assert_fits(CirKisOptionsSerializer, options)
    normalised = RULES.validate_options(options)
    assert_fits(CirKisOptionsSerializer, normalised)
    rng = random.Random(seed)
    state = RULES.new_game(seats, seed=seed, options=normalised)
    viewers = [*range(seats), None]
    event_types = set()
    for number in range(1, MAX_PLACEMENTS + 1):
        for viewer in viewers:
            assert_fits(CirKisStateSerializer, RULES.view(state, viewer))
        seat = RULES.to_move(state)
        if seat is None:
            break
        moves = RULES.legal_moves(state)
        checked = moves if number % ALL_MOVES_EVERY == 1 else rng.sample(moves, min(5, len(moves)))
        for move in checked:
            data = RULES.move_to_json(move)
            assert_fits(CirKisMoveSerializer, data)
            assert RULES.parse_move(data) == move
        move = rng.choice(moves)
        after = RULES.play(state, move)
        logged = RULES.log_entry(state, move, after)
        event_types |= {event["type"] for event in logged.public["events"]}
        for viewer in viewers:
            assert_fits(CirKisMoveLogEntrySerializer, log_entry(number, seat, logged, viewer))
        state = after
    assert RULES.outcome(state) is not None
    assert "game_over" in event_types
    assert event_types <= set(CirKisEventSerializer.variants)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"piece": "rhombus", "fields": [1, 2]}, "piece"),
        ({"piece": "cube", "fields": []}, "fields"),
        ({"piece": "cube", "fields": [165]}, "fields"),
        ({"piece": "cube", "fields": ["1"]}, "fields"),
        ({"piece": "cube"}, "fields"),
        ({"piece": "cube", "fields": [1], "seat": 0}, "seat"),
    ],
)
def test_moves_the_engine_refuses_do_not_fit(data, field):
    assert field in errors(CirKisMoveSerializer, data)
    with pytest.raises(IllegalMove):
        RULES.parse_move(data)


@pytest.mark.parametrize(
    ("options", "field"), [({"center_ring": "yes"}, "center_ring"), ({"short": True}, "short")]
)
def test_options_the_engine_refuses_do_not_fit(options, field):
    assert field in errors(CirKisOptionsSerializer, options)
    with pytest.raises(IllegalMove):
        RULES.validate_options(options)


def test_an_unknown_event_does_not_fit():
    assert "type" in errors(CirKisEventSerializer, {"type": "earthquake"})
    assert "extra" in errors(CirKisEventSerializer, {"type": "lost_turn", "seat": 1, "extra": 0})
