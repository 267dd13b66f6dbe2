"""Circles' fitted evaluation (the expert's): its data loads and is symmetric, the fast evaluation
is the model written in its data, finished games score the margin, the expert searches with it;
and the fit script's positions and data file read back as written."""

from __future__ import annotations

import random

import pytest

from bench import circles_fit
from circles.ai import choose_move, root_order
from circles.ai_eval import WIN
from circles.ai_fitted import (
    EDGE_TABLES,
    MODEL,
    PHASES,
    SCALARS,
    edge_class,
    features,
    fitted_evaluate,
    fitted_evaluate_with,
    parse_model,
    phase_of,
)
from circles.ai_search import Search
from circles.rules import RULES, flip_mask, move_mask
from tests.circles.test_ai import random_position, symmetries


def _positions(count: int, seed: int) -> list[tuple[int, int]]:
    """Unfinished positions from random games, every stage of the game."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = random_position(rng, rng.randint(0, 56))
        if not position.is_game_over():
            found.append((position.own, position.opponent))
    return found


def _reverse(bits: int) -> int:
    return int(f"{bits:08b}"[::-1], 2)


def test_the_packaged_table_loads_with_every_phase_and_fitted_edges():
    assert len(MODEL.bias) == len(MODEL.parity) == len(MODEL.scalars) == PHASES
    assert all(len(weights) == len(SCALARS) for weights in MODEL.scalars)
    assert len(MODEL.edges) > 500  # a fitted table, not an empty one
    assert any(line.startswith("# python -m bench.circles_fit") for line in MODEL.header)
    # a corner is worth having in the middle game, an X-square next to an empty corner is not
    # (the class of a lone corner is named by the other side's, the smallest spelling)
    assert edge_class(1, 0) == (".......o", -1)
    assert MODEL.edges[".......o"][4] < 0
    assert all(MODEL.scalars[phase][SCALARS.index("x_squares")] < 0 for phase in range(2, 7))


def test_the_edge_table_is_the_same_read_from_either_corner_and_minus_for_the_colours():
    for phase in (0, 4, 8):
        table = EDGE_TABLES[phase]
        for a in range(256):
            for b in range(0, 256, 7):
                if a & b:
                    continue
                value = table[a | b << 8]
                assert table[_reverse(a) | _reverse(b) << 8] == value
                assert table[b | a << 8] == -value


def test_the_evaluation_is_the_same_under_the_boards_symmetries():
    for own, opp in _positions(40, seed=3):
        scores = {
            fitted_evaluate(o, p) for o, p in zip(symmetries(own), symmetries(opp), strict=True)
        }
        assert len(scores) == 1


def test_swapping_the_colours_negates_all_but_the_side_to_move_term():
    for own, opp in _positions(60, seed=4):
        if not move_mask(own, opp) or not move_mask(opp, own):
            continue  # the swapped side to move must have a move too: same kind of position
        empties = 64 - (own | opp).bit_count()
        phase = phase_of(empties)
        side = MODEL.bias[phase] + (MODEL.parity[phase] if empties & 1 else -MODEL.parity[phase])
        assert fitted_evaluate(own, opp) + fitted_evaluate(opp, own) == 2 * side


def test_the_fast_evaluation_is_the_model_in_the_data_file():
    for own, opp in _positions(80, seed=5):
        empties, parity, scalars, edges = features(own, opp)
        phase = phase_of(empties)
        expected = MODEL.bias[phase] + MODEL.parity[phase] * parity
        expected += sum(w * f for w, f in zip(MODEL.scalars[phase], scalars, strict=True))
        expected += sum(
            sign * MODEL.edges.get(canon, (0,) * PHASES)[phase] for canon, sign in edges
        )
        expected = max(-WIN + 1, min(WIN - 1, expected))
        assert fitted_evaluate(own, opp) == expected
        assert fitted_evaluate_with(own, opp, move_mask(own, opp), move_mask(opp, own)) == expected


def test_a_finished_game_scores_its_margin():
    full_own = (1 << 40) - 1
    full_opp = ((1 << 64) - 1) ^ full_own
    assert fitted_evaluate(full_own, full_opp) == 16 * WIN
    assert fitted_evaluate(full_opp, full_own) == -16 * WIN
    wiped = 1 << 27 | 1 << 28  # only one colour left: nobody can move
    assert fitted_evaluate(wiped, 0) == 2 * WIN
    assert fitted_evaluate(0, wiped) == -2 * WIN


def test_an_unfinished_position_stays_inside_the_win_bound():
    for own, opp in _positions(200, seed=6):
        assert abs(fitted_evaluate(own, opp)) < WIN


def test_the_expert_searches_with_the_fitted_evaluation():
    """Out of the book, one ply deep: the expert's move is best by the fitted evaluation."""
    rng = random.Random(8)
    checked = 0
    while checked < 6:
        position = random_position(rng, rng.randint(14, 30))
        squares = position.legal_squares()
        if position.is_game_over() or len(squares) < 3:
            continue
        state = RULES.from_position(position)
        own, opp = position.own, position.opponent
        move = choose_move(state, level="expert", seed=1, budget_ms=60_000, max_depth=1)
        values = {}
        for square in squares:
            flips = flip_mask(square, own, opp)
            child_own, child_opp = opp ^ flips, own | flips | (1 << square)
            # the search's depth 0 with its pass rule: value of the child for its mover
            child = Search(max_nodes=10_000, evaluate=fitted_evaluate_with)
            values[square] = -child._pvs(
                child_own, child_opp, move_mask(child_own, child_opp), 0, -(1 << 30), 1 << 30
            )
        assert values[move] == max(values.values())
        assert move == next(s for s in root_order(own, opp, squares) if values[s] == values[move])
        checked += 1


# --- the fit script ----------------------------------------------------------------------------


def test_self_play_labels_the_endgame_exactly_and_is_seeded():
    game = circles_fit.self_play(random.Random(2), random_plies=6, epsilon=0.1, exact_empties=8)
    again = circles_fit.self_play(random.Random(2), random_plies=6, epsilon=0.1, exact_empties=8)
    assert game == again
    assert len(game) > 40
    for own, opp, label in game:
        if 64 - (own | opp).bit_count() <= 8:
            assert Search().solve(own, opp) == label


def test_the_fit_writes_a_data_file_that_reads_back(tmp_path):
    games = [
        circles_fit.self_play(random.Random(seed), random_plies=8, epsilon=0.1, exact_empties=6)
        for seed in range(4)
    ]
    positions = tmp_path / "positions.txt"
    circles_fit.write_positions(positions, games)
    assert circles_fit.read_positions(positions) == games
    fitted, report = circles_fit.fit(
        games, ridge=4.0, overlap=2, iterations=20, lookahead=8, exact_empties=6
    )
    assert len(report) == PHASES
    out = tmp_path / "fitted.txt"
    circles_fit.write_model(out, fitted, ["a test"])
    model = parse_model(out.read_text(encoding="utf-8"))
    assert "# a test" in model.header
    x, columns = fitted[3]
    assert model.bias[3] == round(100 * x[0])
    for canon, column in columns.items():
        assert model.edges.get(canon, (0,) * PHASES)[3] == round(100 * x[column])


def test_a_lookahead_label_is_the_value_later_in_the_game_seen_from_the_side_to_move():
    game = circles_fit.self_play(random.Random(3), random_plies=8, epsilon=0.0, exact_empties=10)
    assert game[0][2]  # not a tie (the labels' signs relate the sides)

    def empties(position):
        return 64 - (position[0] | position[1]).bit_count()

    index = next(i for i, p in enumerate(game) if empties(p) == 20)
    # 10 empties on the game is played perfectly: the label is its exact value, the game's margin
    assert (
        circles_fit._label(game, index, {}, phase=6, lookahead=10, exact_empties=10)
        == (game[index][2])
    )
    # 8 on, at 11 or 12 empties, phase 8's fitted weights value it (here: 5 discs for its mover)
    later = next(p for p in game[index:] if empties(p) <= 12)
    assert empties(later) > 10
    phase_8 = ([5.0] + [0.0] * (circles_fit.DENSE - 1), {})
    label = circles_fit._label(game, index, {8: phase_8}, phase=6, lookahead=8, exact_empties=10)
    assert label == (5.0 if (later[2] > 0) == (game[index][2] > 0) else -5.0)
    assert (
        circles_fit._label(game, index, {}, phase=6, lookahead=0, exact_empties=10)
        == (game[index][2])
    )


def test_a_broken_data_file_is_refused():
    with pytest.raises(ValueError, match="phases"):
        parse_model("phase 0 0 0 0 0 0 0 0\n")
    lines = [f"phase {p} 0 0 0 0 0 0 0" for p in range(PHASES)]
    with pytest.raises(ValueError, match="class"):
        parse_model("\n".join([*lines, "edge .......x " + " ".join(["1"] * PHASES)]))
