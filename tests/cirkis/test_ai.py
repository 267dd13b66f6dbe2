"""CirKis computer players: legal, deterministic for a seed, and sensible."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from cirkis.ai import CLOCK_EVERY, LEVELS, MIN_NODES, best_strike, choose_move, greedy_value
from cirkis.board import Placement, placement
from cirkis.rules import RULES, GameState, position

BUDGET_MS = 5  # hard then searches MIN_NODES positions: quick and reproducible


def frozen() -> float:
    """A clock that never moves: only the count of positions stops a search."""
    return 0.0


class SteppingClock:
    """A clock that moves on `step` seconds at every reading, and counts its readings."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        self.now += self.step
        return self.now


def at(piece: str, *fields: int) -> Placement:
    found = placement(piece, fields)
    assert found is not None, (piece, fields)
    return found


def random_states(count: int, *, seed: int) -> Iterator[GameState]:
    """`count` positions from random games of 2-4 seats, free turns and first moves included."""
    rng = random.Random(seed)
    produced = 0
    game = 0
    while produced < count:
        state = RULES.new_game(2 + game % 3, seed=0, options={"center_ring": game % 2 == 1})
        game += 1
        while RULES.to_move(state) is not None and produced < count:
            if rng.random() < 0.25 or state.leader is None:
                produced += 1
                yield state
            state = RULES.play(state, rng.choice(RULES.legal_moves(state)))


def test_the_levels():
    assert LEVELS == ("easy", "normal", "hard")
    assert MIN_NODES > 0


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_legal_moves_and_is_deterministic_for_a_seed(level):
    for index, state in enumerate(random_states(25, seed=11)):
        move = choose_move(state, level=level, seed=index, budget_ms=BUDGET_MS, clock=frozen)
        assert move in RULES.legal_moves(state)
        again = choose_move(state, level=level, seed=index, budget_ms=BUDGET_MS, clock=frozen)
        assert again == move


def test_easy_is_random_by_seed():
    state = RULES.new_game(2, seed=0, options={})
    moves = {choose_move(state, level="easy", seed=seed, budget_ms=0) for seed in range(40)}
    assert len(moves) > 10


def test_a_whole_game_between_the_levels_ends():
    state = RULES.new_game(3, seed=0, options={})
    levels = LEVELS
    for ply in range(200):
        seat = RULES.to_move(state)
        if seat is None:
            break
        move = choose_move(state, level=levels[seat], seed=ply, budget_ms=BUDGET_MS)
        state = RULES.play(state, move)
    assert RULES.outcome(state) is not None


def test_no_move_in_a_finished_game_and_no_unknown_level():
    state = RULES.new_game(2, seed=0, options={})
    with pytest.raises(ValueError, match="easy, normal, hard"):
        choose_move(state, level="expert", seed=0, budget_ms=10)
    over = position(covered=[[], []], pieces_left=[{"arrow": 1}, None])
    over = RULES.play(over, at("arrow", 0))
    assert RULES.to_move(over) is None
    with pytest.raises(ValueError, match="over"):
        choose_move(over, level="easy", seed=0, budget_ms=10)


def completion_worth_15() -> GameState:
    """Seat 0 holds 3 of Star S1's darts; Circle C0 is split 2-1 between seats 1 and 2.

    The Triangle on 55, 56, 90 completes both: 10 for the Star's majority and, the Circle
    ending 2-2-1, the 5-point bonus — 15 for seat 0 and nothing for anybody else. A Hook on
    56 and 90 completes only the Star (10).
    """
    return position(
        covered=[[105, 106, 125], [126, 25, 35], [36]],
        leader=("kite", [36]),
        to_move=0,
    )


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_normal_and_hard_take_an_immediate_completion_worth_10_plus_5(level):
    state = completion_worth_15()
    triangle = at("triangle", 55, 56, 90)
    assert triangle in RULES.legal_moves(state)
    assert RULES.play(state, triangle).scores == (15, 0, 0)
    assert at("hook", 56, 90) in RULES.legal_moves(state)
    for seed in range(5):
        move = choose_move(state, level=level, seed=seed, budget_ms=BUDGET_MS, clock=frozen)
        assert move == triangle


def blunder_position() -> GameState:
    """Seat 1 holds 4 of Circle C0's kites (25, 35, 36, 55); 56 is open. Seat 1 has only Kites.

    Seat 0 must touch seat 1's Kite on 55. The Arrow on 90 touches 56, so seat 1 would answer
    with a Kite on 56 for 10; the Kite on 56 itself gives seat 1 the 10 and seat 0 only 5. Every
    other placement (Kites on 45 and 80, Arrows on 65 and 105) gives nothing away.
    """
    return position(
        covered=[[], [25, 35, 36, 55]],
        leader=("kite", [55]),
        pieces_left=[{"kite": 2, "arrow": 2}, {"kite": 3}],
    )


def test_the_blunders_really_are_blunders():
    state = blunder_position()
    assert set(RULES.legal_moves(state)) == {
        at("kite", 45),
        at("kite", 56),
        at("kite", 80),
        at("arrow", 65),
        at("arrow", 90),
        at("arrow", 105),
    }
    after = RULES.play(state, at("arrow", 90))
    assert at("kite", 56) in RULES.legal_moves(after)
    assert RULES.play(after, at("kite", 56)).scores == (0, 10)
    assert best_strike(after) == 10
    assert RULES.play(state, at("kite", 56)).scores == (5, 10)
    assert best_strike(RULES.play(state, at("kite", 80))) == 0
    assert greedy_value(state, at("arrow", 90)) < greedy_value(state, at("kite", 80))


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_normal_and_hard_avoid_handing_over_a_circle(level):
    state = blunder_position()
    for seed in range(5):
        move = choose_move(state, level=level, seed=seed, budget_ms=BUDGET_MS, clock=frozen)
        assert move not in (at("arrow", 90), at("kite", 56)), seed


def test_hard_takes_the_win_at_40():
    state = position(covered=[[25, 35], [36]], leader=("kite", [36]), scores=[35, 38], to_move=0)
    move = choose_move(state, level="hard", seed=3, budget_ms=BUDGET_MS, clock=frozen)
    after = RULES.play(state, move)
    outcome = RULES.outcome(after)
    assert outcome is not None
    assert outcome.winners == [0]


def test_hard_is_legal_and_reproducible_at_any_budget():
    state = next(s for s in random_states(40, seed=5) if len(RULES.legal_moves(s)) > 8)
    small = choose_move(state, level="hard", seed=1, budget_ms=1, clock=frozen)
    large = choose_move(state, level="hard", seed=1, budget_ms=60, clock=frozen)
    assert {small, large} <= set(RULES.legal_moves(state))
    assert choose_move(state, level="hard", seed=1, budget_ms=60, clock=frozen) == large


def crowded_state() -> GameState:
    """A position with many legal placements (a free turn late in a random game)."""
    return max(random_states(60, seed=7), key=lambda s: len(RULES.legal_moves(s)))


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_level_stops_at_the_first_reading_past_its_deadline(level):
    """A clock moving 1 ms a reading: a 5 ms budget's deadline (4.5 ms after the start) is
    passed at the fifth check; the level stops there, with a legal move, long before its count
    of positions would stop it (``normal`` values every move, ``hard`` MIN_NODES at least)."""
    state = crowded_state()
    assert len(RULES.legal_moves(state)) > 5 * CLOCK_EVERY
    clock = SteppingClock(0.001)
    move = choose_move(state, level=level, seed=4, budget_ms=5, clock=clock)
    assert move in RULES.legal_moves(state)
    assert clock.readings == 1 + 5  # the start, then a check every CLOCK_EVERY positions


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_budget_already_spent_still_gives_a_sensible_legal_move(level):
    """Past the deadline at the first check, a level plays the best (by ``normal``'s value) of
    the moves valued until then: the first CLOCK_EVERY - 1 legal moves."""
    state = crowded_state()
    clock = SteppingClock(1.0)
    move = choose_move(state, level=level, seed=0, budget_ms=0, clock=clock)
    assert clock.readings == 2  # the start and the first check
    valued = RULES.legal_moves(state)[: CLOCK_EVERY - 1]
    assert move in valued
    assert greedy_value(state, move) == max(greedy_value(state, m) for m in valued)


def test_hard_under_a_slow_clock_keeps_the_move_of_its_last_finished_search():
    """A clock moving 1 ms every CLOCK_EVERY positions cuts hard short at every budget (in its
    root's ordering at 5 ms, in a deeper search at 200 ms): the move it keeps is still sound."""
    state = blunder_position()
    for budget_ms in (5, 30, 200):
        move = choose_move(
            state, level="hard", seed=2, budget_ms=budget_ms, clock=SteppingClock(0.001)
        )
        assert move not in (at("arrow", 90), at("kite", 56)), budget_ms
