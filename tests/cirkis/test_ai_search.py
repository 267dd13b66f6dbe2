"""The hard player's lean copy of the rules agrees with `cirkis.rules`; its evaluation's parts."""

from __future__ import annotations

import random

import pytest

from cirkis.ai_search import Budget, Search, node_of, placement_of
from cirkis.board import placement
from cirkis.rules import PIECE_INDEX, RULES, GameState, position


def search_for(state: GameState) -> Search:
    budget = Budget(nodes=10**9, deadline=1.0, clock=lambda: 0.0, every=8)
    return Search(state, budget, random.Random(0))


def same_position(node, state: GameState) -> None:
    assert node.covered == state.covered
    assert node.occupied == state.occupied
    assert node.pieces == state.pieces_left
    assert node.scores == state.scores
    assert node.round_scores == state.round_scores


@pytest.mark.parametrize(
    ("seats", "options"),
    [(2, {}), (3, {"center_ring": True}), (4, {}), (2, {"long_game": True, "center_ring": True})],
)
def test_the_lean_rules_play_random_games_as_the_rules_do(seats, options):
    """Every position of random games: the same legal moves in the same order, and every move
    leads to the same points, pieces, seat to move and free turn, or ends the round as the
    rules do (a long game's next round lies past the search's horizon)."""
    rng = random.Random(seats)
    for _ in range(3):
        state = RULES.new_game(seats, seed=0, options=options)
        search = search_for(state)
        node = node_of(state)
        while RULES.to_move(state) is not None:
            legal = RULES.legal_moves(state)
            assert [placement_of(move) for move in search.moves(node)] == legal
            for move in legal:
                after = RULES.advance(state, move)
                lean = search.advance(node, PIECE_INDEX[move.piece], move.mask)
                ended = after.finished is not None or after.round != state.round
                assert lean.ended == ended
                if ended:
                    assert lean.scores == after.scores
                    assert search.game_over(lean) == (after.finished is not None)
                else:
                    same_position(lean, after)
                    assert (lean.turn, lean.free) == (after.turn, after.free_turn)
            move = rng.choice(legal)
            state = RULES.advance(state, move)
            if state.round != 0:
                break  # the long game's next round: searches start from a GameState again
            node = search.advance(node, PIECE_INDEX[move.piece], move.mask)
            search = search_for(state)
            search_node = node_of(state)
            same_position(node, state)
            assert (node.turn, node.free, node.leader) == (
                search_node.turn,
                search_node.free,
                search_node.leader,
            )


def test_the_strike_is_what_completing_a_shape_now_nets():
    """Seat 0 holds 3 of Star S1's darts; Circle C0 is split 2-1 between seats 1 and 2: the
    Triangle on 55, 56, 90 nets 15 (10 for the Star's majority, 5 for completing the Circle)."""
    state = position(
        covered=[[105, 106, 125], [126, 25, 35], [36]],
        leader=("kite", [36]),
        to_move=0,
    )
    search = search_for(state)
    assert search.strike(node_of(state)) == 15


def test_a_secure_majority_in_an_open_shape_is_worth_more_than_a_contested_one():
    """Seat 0 with 3 of Circle C0's 5 kites (25, 35, 36, 55, 56) against none holds a majority
    nobody can take from it; 2 against 1 it can still lose; 1 against 1 is nobody's. The Leader
    (an Arrow on 68, seat 1's) is far from the Circle, so no strike is on offer."""
    secure = position(covered=[[25, 35, 36], [68, 19, 20]], leader=("arrow", [68]), to_move=0)
    contested = position(covered=[[25, 35, 19], [36, 68, 20]], leader=("arrow", [68]), to_move=0)
    level = position(covered=[[25, 19, 20], [35, 68, 21]], leader=("arrow", [68]), to_move=0)
    values = [search_for(s).evaluate(node_of(s), 0) for s in (secure, contested, level)]
    assert values[0] > values[1] > values[2] == 0


def test_a_finished_game_is_won_or_lost_above_everything():
    state = position(covered=[[25, 35], [36]], leader=("kite", [36]), scores=[35, 38], to_move=0)
    search = search_for(state)
    node = node_of(state)
    kite = placement("kite", [55])
    assert kite is not None
    outcomes = {}
    for piece, mask in search.moves(node):
        after = search.advance(node, piece, mask)
        outcomes[placement_of((piece, mask))] = search.evaluate(after, 0)
    assert max(outcomes.values()) > 500
