"""Circles' expert computer player: its opening book, its exact endgame, legal and reproducible;
and the classic engine the benchmarks measure it against."""

from __future__ import annotations

import random

import pytest

from bench.circles_classic import ClassicEngine
from circles.ai import EXPERT_SOLVE_EMPTIES, choose_move
from circles.ai_book import SYMMETRIES, book_lines, book_moves, book_table, transform
from circles.rules import RULES, SQUARE_NAMES, Position
from tests.circles.test_ai import LATE, brute_force, random_position


def sq(name: str) -> int:
    return SQUARE_NAMES.index(name)


def test_every_book_move_is_legal_where_the_book_plays_it():
    table = book_table()
    assert len(table) > 40
    for (own, opp), moves in table.items():
        position = Position(own, opp)  # the colour does not matter to legality
        assert moves
        assert all(position.is_legal(square) for square in moves)


def test_the_book_is_the_same_under_the_start_positions_symmetries():
    start = Position.start()
    first = book_moves(start.own, start.opponent)
    assert first == {sq("c5"), sq("d6"), sq("e3"), sq("f4")}  # every first move, by symmetry
    for line in book_lines():
        for symmetry in SYMMETRIES:
            position = start
            for square in line:
                moved = transform(square, symmetry)
                assert moved in book_moves(position.own, position.opponent)
                position = position.play(moved)


def test_the_symmetries_keep_the_start_position():
    start = Position.start()
    for symmetry in SYMMETRIES:
        white = sum(1 << transform(s, symmetry) for s in range(64) if start.white >> s & 1)
        black = sum(1 << transform(s, symmetry) for s in range(64) if start.black >> s & 1)
        assert (white, black) == (start.white, start.black)


def test_in_book_the_seed_picks_among_the_books_moves():
    start = RULES.new_game(2, seed=0, options={})
    picks = {choose_move(start, level="expert", seed=seed, budget_ms=0) for seed in range(40)}
    assert picks == set(RULES.legal_moves(start))
    after = RULES.play(start, sq("c5"))
    position = after.position
    for seed in range(5):
        move = choose_move(after, level="expert", seed=seed, budget_ms=0)
        assert move in book_moves(position.own, position.opponent)


def test_the_expert_plays_legal_moves_through_whole_games():
    rng = random.Random(11)
    for game in range(2):
        state = RULES.new_game(2, seed=0, options={})
        while RULES.to_move(state) is not None:
            if state.position.turn == game % 2:
                move = choose_move(
                    state, level="expert", seed=rng.getrandbits(32), budget_ms=60_000, max_nodes=300
                )
            else:
                move = rng.choice(RULES.legal_moves(state))
            assert move in RULES.legal_moves(state)
            state = RULES.play(state, move)


def test_the_expert_is_reproducible_with_a_node_cap():
    rng = random.Random(5)
    position = random_position(rng, 24)
    while position.is_game_over() or len(position.legal_squares()) < 3:
        position = random_position(rng, 24)
    state = RULES.from_position(position)
    moves = {
        choose_move(state, level="expert", seed=7, budget_ms=60_000, max_nodes=2_000)
        for _ in range(3)
    }
    assert len(moves) == 1
    assert moves <= set(RULES.legal_moves(state))


@pytest.mark.parametrize("index", range(len(LATE)))
def test_the_expert_plays_the_endgame_exactly(index):
    position = Position.from_diagram(LATE[index][0])
    state = RULES.from_position(position)
    assert state.position.empty.bit_count() <= EXPERT_SOLVE_EMPTIES
    move = choose_move(state, level="expert", seed=0, budget_ms=60_000, max_nodes=200_000)
    assert -brute_force(state.position.play(move)) == brute_force(state.position)


def test_the_classic_engine_solves_exactly_and_plays_legal_moves():
    for diagram, _expected in LATE:
        position = RULES.from_position(Position.from_diagram(diagram)).position
        engine = ClassicEngine(depth=2, exact_empties=18)
        own, opp = position.own, position.opponent
        exact = brute_force(position)
        assert engine.solve(own, opp, -65, 65) == exact
        assert -brute_force(position.play(engine.choose(own, opp))) == exact
    rng = random.Random(2)
    midgame = random_position(rng, 20)
    while midgame.is_game_over() or not midgame.legal_squares():
        midgame = random_position(rng, 20)
    assert midgame.is_legal(
        ClassicEngine(depth=3, exact_empties=4).choose(midgame.own, midgame.opponent)
    )
