"""CirKis rules engine: invariants of random legal games (hypothesis), replay and storage."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cirkis.board import (
    ALL_FIELDS_MASK,
    CENTER_RING_MASK,
    CENTER_STAR_MASK,
    PLACEMENTS,
    Placement,
    touching,
)
from cirkis.rules import GO_OUT_BONUS, PIECE_INDEX, RULES, GameState
from greycircle.games.engine import IllegalMove

MAX_PLACEMENTS = 4 * 20  # each seat places at most its 20 pieces in one round


def check_placement(before: GameState, move: Placement, after: GameState) -> None:
    """Every rule a placement must obey, checked from outside the engine."""
    seat = before.turn
    occupied = before.occupied
    assert not move.mask & occupied, "a field covered twice"
    if before.leader is None:
        assert move.mask & (CENTER_STAR_MASK | CENTER_RING_MASK), "first piece off the centre"
    elif before.free_turn:
        assert move.mask & touching(occupied), "free-turn piece touching nothing"
    else:
        assert move.mask & touching(before.leader.mask), "piece not touching the Leader"
    assert before.pieces_left[seat][PIECE_INDEX[move.piece]] > 0
    if after.round == before.round:
        assert after.covered[seat] == before.covered[seat] | move.mask
        assert after.leader == move
        assert after.leader_seat == seat
    gained = sum(
        points
        for event in after.events
        if event.completion is not None
        for _, points in event.completion.awards
    ) + sum(event.points or 0 for event in after.events if event.type == "went_out")
    assert sum(after.scores) - sum(before.scores) == gained


def check_state(state: GameState) -> None:
    total = 0
    for mask in state.covered:
        assert not total & mask, "a field covered by two seats"
        total |= mask
    assert total & ~ALL_FIELDS_MASK == 0
    assert all(count >= 0 for left in state.pieces_left for count in left)
    for left, mask in zip(state.pieces_left, state.covered, strict=True):
        placed = 20 - sum(left)
        assert placed <= mask.bit_count() <= 3 * placed
    seat = RULES.to_move(state)
    if seat is None:
        assert state.finished in ("target", "went_out", "blocked")
        assert RULES.legal_moves(state) == []
        outcome = RULES.outcome(state)
        assert outcome is not None
        assert outcome.winners
        assert outcome.scores == list(state.scores)
    else:
        assert RULES.legal_moves(state), "the seat to move always has a placement"
        assert max(state.scores) < state.target


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 4), center_ring=st.booleans(), data=st.data())
def test_random_legal_games_keep_every_rule_and_end(seats, center_ring, data):
    state = RULES.new_game(seats, seed=0, options={"center_ring": center_ring})
    for _ in range(MAX_PLACEMENTS + 1):
        check_state(state)
        if RULES.to_move(state) is None:
            break
        moves = RULES.legal_moves(state)
        move = moves[data.draw(st.integers(0, len(moves) - 1))]
        stored = RULES.encode(state)
        after = RULES.play(state, move)
        assert RULES.encode(state) == stored, "play mutated its input"
        check_placement(state, move, after)
        assert RULES.decode(json.loads(json.dumps(RULES.encode(after)))) == after
        state = after
    else:
        pytest.fail("the game did not end")
    assert RULES.to_move(state) is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 4))
def test_placements_outside_the_legal_list_are_refused(seed, seats):
    rng = random.Random(seed)
    every = [p for group in PLACEMENTS.values() for p in group]
    state = RULES.new_game(seats, seed=0, options={})
    while RULES.to_move(state) is not None:
        legal = set(RULES.legal_moves(state))
        for move in rng.sample(every, 30):
            if move in legal:
                assert RULES.placement_error(state, move) is None
            else:
                with pytest.raises(IllegalMove) as raised:
                    RULES.play(state, move)
                assert raised.value.code == "illegal_move"
        state = RULES.play(state, rng.choice(sorted(legal, key=lambda p: (p.piece, p.fields))))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 4))
def test_random_long_games_play_rounds_and_end(seed, seats):
    rng = random.Random(seed)
    state = RULES.new_game(seats, seed=0, options={"long_game": True})
    rounds = 0
    for _ in range(200 * MAX_PLACEMENTS):
        check_state(state)
        if RULES.to_move(state) is None:
            break
        move = rng.choice(RULES.legal_moves(state))
        after = RULES.play(state, move)
        check_placement(state, move, after)
        if after.round != state.round:
            rounds += 1
            assert after.round == state.round + 1
            assert after.occupied == 0
            assert RULES.to_move(after) == after.round % seats
            assert after.scores >= state.scores
        state = after
    else:
        pytest.fail("the long game did not end")
    assert state.round == rounds
    assert state.finished == "target" or (state.finished == "blocked" and not state.completed)


def test_replaying_the_json_moves_gives_the_same_state_and_the_log_adds_up():
    rng = random.Random(2009)
    state = RULES.new_game(3, seed=0, options={"center_ring": True})
    record = []
    went_out = 0
    while RULES.to_move(state) is not None:
        move = rng.choice(RULES.legal_moves(state))
        after = RULES.play(state, move)
        entry = RULES.log_entry(state, move, after)
        assert entry.private == {}
        public = json.loads(json.dumps(entry.public))
        assert public["seat"] == state.turn
        assert {"piece": public["piece"], "fields": public["fields"]} == RULES.move_to_json(move)
        assert public["fields"] == sorted(public["fields"])
        assert public["lost_turns"] == list(after.lost_turns)
        went_out += sum(e["points"] for e in public["events"] if e["type"] == "went_out")
        record.append(json.loads(json.dumps(RULES.move_to_json(move))))
        state = after
    replayed = RULES.new_game(3, seed=0, options={"center_ring": True})
    for data in record:
        replayed = RULES.play(replayed, RULES.parse_move(data))
    assert replayed == state
    assert RULES.encode(replayed) == RULES.encode(state)
    awarded = sum(points for c in state.completed for _, points in c.awards)
    assert sum(state.scores) == awarded + went_out
    assert went_out in (0, GO_OUT_BONUS)
    view = RULES.view(state, None)
    assert json.loads(json.dumps(view)) == view
