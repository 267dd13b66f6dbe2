"""Circles computer players: legal, deterministic for a seed, and sensible at each level."""

from __future__ import annotations

import pytest

from circles.ai import LEVELS, choose_move, evaluate
from circles.rules import RULES, SQUARE_NAMES, WHITE, GameState, Position
from greycircle.games import registry

# White to move. a1 (a corner, flipping only a2) is the obvious move; d8 flips the most (3).
CORNER_FREE = """
    . . . . . W . W
    B . . . . W W .
    W B W W W W W .
    . W B W B W . .
    . . W B W B . .
    . . . B . W . .
    . . . B . . W .
    . . . . . . . W
"""

POSITIONS = {
    "start": RULES.new_game(2, seed=0, options={}),
    "opening": RULES.from_record("c5"),  # black to move
    "midgame": RULES.from_record("e3f3d6c4b3f2c3c5f4f5f6d3g3g2f1b4a3g7h8a2h1d7"),
    "corner": RULES.from_position(Position.from_diagram(CORNER_FREE)),
}


def sq(name: str) -> int:
    return SQUARE_NAMES.index(name)


def test_the_midgame_position_is_the_corner_position():
    assert POSITIONS["midgame"].position == POSITIONS["corner"].position


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(POSITIONS))
def test_every_level_plays_a_legal_move(level, name):
    state = POSITIONS[name]
    move = choose_move(state, level=level, seed=7, budget_ms=1000)
    assert move in RULES.legal_moves(state)
    RULES.play(state, move)


@pytest.mark.parametrize("level", LEVELS)
def test_levels_are_deterministic_for_a_seed(level):
    state = RULES.from_record("e3d3c2f2")
    moves = [choose_move(state, level=level, seed=seed, budget_ms=1000) for seed in range(8)]
    again = [choose_move(state, level=level, seed=seed, budget_ms=1000) for seed in range(8)]
    assert moves == again


def test_easy_flips_the_most_discs():
    state = POSITIONS["corner"]
    assert {choose_move(state, level="easy", seed=seed, budget_ms=0) for seed in range(10)} == {
        sq("d8")
    }


def test_easy_picks_among_equals_with_the_seed():
    start = POSITIONS["start"]  # all four moves flip one disc
    picks = {choose_move(start, level="easy", seed=seed, budget_ms=0) for seed in range(40)}
    assert picks == set(RULES.legal_moves(start))


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_searching_levels_take_the_corner(level):
    state = POSITIONS["corner"]
    for seed in range(4):
        assert choose_move(state, level=level, seed=seed, budget_ms=1000) == sq("a1")


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_searching_levels_do_not_give_a_wipe_out_away(level):
    # a1 would take a corner, but black answers d6 and white is left with a1-c1 only: the game
    # ends 3-8. Searching levels see it; easy (most flips) does not look.
    state = RULES.from_position(
        Position.from_diagram(
            """
            . B W . . . . .
            . . . . . . . .
            . . . . . . . .
            . . . B B B . .
            . . . W B B . .
            . . . . B . . .
            . . . . . . . .
            . . . . . . . .
            """
        )
    )
    after_corner = RULES.play(state, sq("a1"))
    assert RULES.to_move(RULES.play(after_corner, sq("d6"))) is None
    assert choose_move(state, level=level, seed=0, budget_ms=1000) != sq("a1")


def test_a_single_legal_move_is_played_at_once():
    state = RULES.from_position(
        Position.from_diagram("W B . . . . . .\n" + "........\n" * 6 + ". . . . . . . B")
    )
    for level in LEVELS:
        assert choose_move(state, level=level, seed=1, budget_ms=1000) == sq("c1")


def test_a_tiny_budget_still_gives_a_legal_move():
    state = POSITIONS["midgame"]
    assert choose_move(state, level="hard", seed=3, budget_ms=0) in RULES.legal_moves(state)


def test_evaluation_counts_a_finished_game_by_discs():
    wiped = Position.from_diagram("WWWW....\n" + "........\n" * 7)
    assert evaluate(wiped.own, wiped.opponent) == 4 * 10_000
    assert evaluate(wiped.opponent, wiped.own) == -4 * 10_000


def test_unknown_levels_and_finished_games_are_refused():
    with pytest.raises(ValueError, match="easy, medium, hard"):
        choose_move(POSITIONS["start"], level="genius", seed=0, budget_ms=10)
    finished = GameState(Position.from_diagram("WWWW....\n" + "........\n" * 7), (), ())
    with pytest.raises(ValueError, match="game is over"):
        choose_move(finished, level="easy", seed=0, budget_ms=10)


def test_circles_is_registered_with_its_computer_levels():
    kind = registry.get("circles")
    assert kind.rules is RULES
    assert kind.computer is choose_move
    assert kind.ai_levels == ("easy", "medium", "hard")
    assert kind.title == "Circles"
    assert POSITIONS["start"].position.turn == WHITE
