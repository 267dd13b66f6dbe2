"""Circles computer players: legal, seeded, sensible, exact in the endgame, and on time."""

from __future__ import annotations

import random
import time

import pytest

from bench import circles_match
from circles.ai import LEVELS, choose_move, evaluate, evaluate_simple, hard_move
from circles.ai_eval import EDGE_TABLE, WIN, _edge_stable_masks, evaluate_with, final_score
from circles.ai_search import OutOfTime, Search
from circles.rules import BLACK, FULL, RULES, SQUARE_NAMES, WHITE, GameState, Position
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

# White to move: d6, e3, f2 or g2. g2 flips the most (4) but hands black the h1 corner.
X_SQUARE_TRAP = """
    . . . . . . . .
    . . . . . . . .
    . . . . . B . .
    . . . W B W . .
    W W W B W . . .
    . . B . . . . .
    W W W W W . . .
    B . B . B . . .
"""

POSITIONS = {
    "start": RULES.new_game(2, seed=0, options={}),
    "opening": RULES.from_record("c5"),  # black to move
    "midgame": RULES.from_record("e3f3d6c4b3f2c3c5f4f5f6d3g3g2f1b4a3g7h8a2h1d7"),
    "corner": RULES.from_position(Position.from_diagram(CORNER_FREE)),
}

# Late positions (white to move) with their exact results for white under perfect play.
LATE = [
    (
        """
        W W W W . W . B
        W B B W W W W W
        W B B W B B W B
        W B B W B W B .
        W B B W W B B B
        W B B W B B B B
        W B B B B B B B
        . W B B W . . .
        """,
        -4,
    ),
    (
        """
        W W W B W . B B
        W W B B B B B B
        W B W B B B W B
        W W W W W B W B
        W W B B B W B B
        . . W W W W W B
        . B W W W W B .
        B . B W . B B B
        """,
        -12,
    ),
    (
        """
        . . . B W W W W
        W B B W W W W W
        . B B B B B B B
        W B W W W B B B
        . W B W W B B B
        W W W B W B B .
        W W B W B B B B
        W W W W W . W B
        """,
        36,
    ),
    (
        """
        W . . . B B B B
        . W W W . B W .
        W . W W B W B B
        . W B B B W W B
        W W B W W B W B
        W W B B W W W B
        W W W B B W W B
        B W W W W W W W
        """,
        8,
    ),
    (  # white has no move and passes first
        """
        W W W W W W W W
        W W W B B B W .
        W W W B B B B W
        W W W B B B B B
        . W W B B B B B
        . . W B W B B B
        . W B W W B B B
        . B B . W W W B
        """,
        -28,
    ),
]


def sq(name: str) -> int:
    return SQUARE_NAMES.index(name)


def brute_force(position: Position) -> int:
    """Exact final disc difference for the side to move, by plain minimax over `Position`."""
    if position.is_game_over():
        white, black = position.counts
        return white - black if position.turn == WHITE else black - white
    squares = position.legal_squares()
    if not squares:
        return -brute_force(position.pass_turn())
    return max(-brute_force(position.play(square)) for square in squares)


def plain_negamax(position: Position, depth: int) -> int:
    """Fixed-depth negamax over `evaluate`, no pruning, no table, with the search's pass rule."""
    own, opp = position.own, position.opponent
    if position.is_game_over():
        return final_score(own, opp)
    squares = position.legal_squares()
    if not squares:
        return -plain_negamax(position.pass_turn(), depth)  # a pass costs no depth
    if depth == 0:
        return evaluate(own, opp)
    return max(-plain_negamax(position.play(square), depth - 1) for square in squares)


def random_position(rng: random.Random, plies: int) -> Position:
    position = Position.start()
    for _ in range(plies):
        if position.is_game_over():
            break
        squares = position.legal_squares()
        position = position.play(rng.choice(squares)) if squares else position.pass_turn()
    return position


def symmetries(bitboard: int) -> list[int]:
    """`bitboard` under the 8 symmetries of the square."""
    maps = [
        lambda r, c: (r, c),
        lambda r, c: (c, 7 - r),
        lambda r, c: (7 - r, 7 - c),
        lambda r, c: (7 - c, r),
        lambda r, c: (r, 7 - c),
        lambda r, c: (7 - r, c),
        lambda r, c: (c, r),
        lambda r, c: (7 - c, 7 - r),
    ]
    result = []
    for transform in maps:
        image = 0
        for square in range(64):
            if bitboard >> square & 1:
                row, column = transform(*divmod(square, 8))
                image |= 1 << (8 * row + column)
        result.append(image)
    return result


# --- every level ---------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(POSITIONS))
def test_every_level_plays_a_legal_move(level, name):
    state = POSITIONS[name]
    move = choose_move(state, level=level, seed=7, budget_ms=100)
    assert move in RULES.legal_moves(state)
    RULES.play(state, move)


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_easy_and_medium_are_deterministic_for_a_seed(level):
    state = RULES.from_record("e3d3c2f2")
    moves = [choose_move(state, level=level, seed=seed, budget_ms=1000) for seed in range(8)]
    again = [choose_move(state, level=level, seed=seed, budget_ms=1000) for seed in range(8)]
    assert moves == again


def test_hard_is_deterministic_with_a_node_limit():
    state = POSITIONS["midgame"]
    for max_nodes in (500, 3_000):
        moves = {
            choose_move(state, level="hard", seed=5, budget_ms=60_000, max_nodes=max_nodes)
            for _ in range(3)
        }
        assert len(moves) == 1
        assert moves <= set(RULES.legal_moves(state))
    position = state.position
    info: dict = {}
    hard_move(
        position.own,
        position.opponent,
        position.legal_squares(),
        deadline=None,
        max_depth=4,
        info=info,
    )
    assert info["depth"] == 4
    info = {}
    hard_move(
        position.own,
        position.opponent,
        position.legal_squares(),
        deadline=None,
        max_nodes=3_000,
        info=info,
    )
    assert 3_000 <= info["nodes"] < 3_100  # stopped by the node limit (no clock involved)
    assert 1 < info["depth"] < 10


def test_the_seed_breaks_ties_between_equal_moves_only():
    start = POSITIONS["start"]  # four symmetric moves, all equally good
    for level in ("medium", "hard"):
        picks = {
            choose_move(start, level=level, seed=seed, budget_ms=60_000, max_depth=3)
            for seed in range(40)
        }
        assert picks == set(RULES.legal_moves(start))
    corner = POSITIONS["corner"]  # one move is best: every seed finds it
    picks = {
        choose_move(corner, level="hard", seed=seed, budget_ms=60_000, max_depth=3)
        for seed in range(10)
    }
    assert picks == {sq("a1")}


def test_a_single_legal_move_is_played_at_once():
    state = RULES.from_position(
        Position.from_diagram("W B . . . . . .\n" + "........\n" * 6 + ". . . . . . . B")
    )
    for level in LEVELS:
        assert choose_move(state, level=level, seed=1, budget_ms=1000) == sq("c1")


def test_unknown_levels_and_finished_games_are_refused():
    with pytest.raises(ValueError, match="easy, medium, hard, expert"):
        choose_move(POSITIONS["start"], level="genius", seed=0, budget_ms=10)
    finished = GameState(Position.from_diagram("WWWW....\n" + "........\n" * 7), (), ())
    with pytest.raises(ValueError, match="game is over"):
        choose_move(finished, level="easy", seed=0, budget_ms=10)


def test_circles_is_registered_with_its_computer_levels():
    kind = registry.get("circles")
    assert kind.rules is RULES
    assert kind.computer is choose_move
    assert kind.ai_levels == ("easy", "medium", "hard", "expert")
    assert kind.title == "Circles"
    assert POSITIONS["start"].position.turn == WHITE


# --- easy ------------------------------------------------------------------------------------


def test_easy_flips_the_most_discs():
    state = POSITIONS["corner"]
    assert {choose_move(state, level="easy", seed=seed, budget_ms=0) for seed in range(10)} == {
        sq("d8")
    }


def test_easy_picks_among_equals_with_the_seed():
    start = POSITIONS["start"]  # all four moves flip one disc
    picks = {choose_move(start, level="easy", seed=seed, budget_ms=0) for seed in range(40)}
    assert picks == set(RULES.legal_moves(start))
    assert len({choose_move(start, level="easy", seed=3, budget_ms=0) for _ in range(5)}) == 1


# --- medium and hard: judgement -----------------------------------------------------------


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_searching_levels_take_the_corner(level):
    state = POSITIONS["corner"]
    for seed in range(3):
        assert choose_move(state, level=level, seed=seed, budget_ms=300) == sq("a1")


def test_the_x_square_trap_is_a_trap():
    state = RULES.from_position(Position.from_diagram(X_SQUARE_TRAP))
    assert RULES.legal_moves(state) == [sq("d6"), sq("e3"), sq("f2"), sq("g2")]
    after = RULES.play(state, sq("g2"))
    assert after.position.turn == BLACK
    assert sq("h1") in RULES.legal_moves(after)
    for square in (sq("d6"), sq("e3"), sq("f2")):
        assert sq("h1") not in RULES.legal_moves(RULES.play(state, square))
    assert {choose_move(state, level="easy", seed=seed, budget_ms=0) for seed in range(5)} == {
        sq("g2")
    }


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_searching_levels_do_not_give_a_corner_away(level):
    state = RULES.from_position(Position.from_diagram(X_SQUARE_TRAP))
    for seed in range(3):
        assert choose_move(state, level=level, seed=seed, budget_ms=300) != sq("g2")


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
    assert choose_move(state, level=level, seed=0, budget_ms=300) != sq("a1")


# --- evaluations ---------------------------------------------------------------------------


def test_evaluations_count_a_finished_game_by_discs():
    wiped = Position.from_diagram("WWWW....\n" + "........\n" * 7)
    for function in (evaluate, evaluate_simple):
        assert function(wiped.own, wiped.opponent) == 4 * WIN
        assert function(wiped.opponent, wiped.own) == -4 * WIN


def test_the_hard_evaluation_is_the_same_under_every_symmetry_and_colour():
    rng = random.Random(11)
    for _ in range(30):
        position = random_position(rng, rng.randint(4, 55))
        own, opp = position.own, position.opponent
        values = {evaluate(o, p) for o, p in zip(symmetries(own), symmetries(opp), strict=True)}
        assert len(values) == 1


def test_the_hard_evaluation_prefers_corners_and_shuns_x_and_c_squares():
    def static(diagram: str) -> int:  # the evaluation without its mobility terms
        position = Position.from_diagram(diagram)
        return evaluate_with(position.own, position.opponent, 0, 0)

    rest = "........\n" * 6
    corner = static("W.......\n........\n" + rest)
    c_square = static(".W......\n........\n" + rest)
    x_square = static("........\n.W......\n" + rest)
    x_square_safe = static("B.......\n.W......\n" + rest)  # the corner is taken already
    assert corner > 0 > c_square > x_square
    assert x_square_safe - static("B.......\n........\n" + rest) > x_square
    assert EDGE_TABLE[0b1] > 0  # a corner of ours on an edge (index: ours | theirs << 8)
    assert EDGE_TABLE[0b1 << 8] < 0
    assert EDGE_TABLE[0b111] > 3 * EDGE_TABLE[0b1000] > 0  # a stable run beats loose discs


def test_edge_stability_is_exact_for_small_cases():
    stable = _edge_stable_masks()
    assert stable[(0b00000111, 0)] == 0b00000111  # a run from a corner
    assert stable[(0b11111111, 0)] == 0b11111111  # a full edge
    assert stable[(0b01111110, 0)] == 0  # no corner: everything can be taken
    assert stable[(0b11110000, 0b00001111)] == 0b11111111  # full edge, two colours
    assert stable[(0b00000011, 0b00001100)] == 0b00000011  # white e1 flanks b's c1-d1 run
    assert stable[(0b00000001, 0b00000110)] == 0b00000001  # only the corner is safe


# --- hard: the search ------------------------------------------------------------------------


def test_table_and_ordering_do_not_change_the_minimax_value():
    rng = random.Random(2024)
    checked = 0
    for depth, count in ((3, 6), (4, 3)):
        for _ in range(count):
            position = random_position(rng, rng.randint(6, 40))
            if position.is_game_over() or not position.legal_squares():
                continue
            progress: list[tuple[int, int, int]] = []
            Search().think(
                position.own,
                position.opponent,
                position.legal_squares(),
                max_depth=depth,
                progress=progress,
            )
            for done, _best, value in progress:
                assert value == plain_negamax(position, done), (position, done)
                checked += 1
    assert checked >= 20


def test_a_node_limit_stops_the_search():
    position = POSITIONS["midgame"].position
    search = Search(max_nodes=200)
    best, _value, depth = search.think(
        position.own, position.opponent, position.legal_squares(), max_depth=20
    )
    assert 1 <= depth < 20
    assert best in position.legal_squares()
    with pytest.raises(OutOfTime):
        Search(max_nodes=50).solve(late_position(0).own, late_position(0).opponent)


def late_position(index: int) -> Position:
    return Position.from_diagram(LATE[index][0])


@pytest.mark.parametrize("index", range(len(LATE)))
def test_the_endgame_solver_is_exact(index):
    diagram, expected = LATE[index]
    position = Position.from_diagram(diagram)
    exact = brute_force(position)
    if expected is not None:
        assert exact == expected
    own, opp = position.own, position.opponent
    assert Search().solve(own, opp) == exact
    # windows: exact inside, a bound outside
    assert Search().solve(own, opp, exact - 1, exact + 1) == exact
    assert Search().solve(own, opp, exact, exact + 1) <= exact
    assert Search().solve(own, opp, exact - 1, exact) >= exact
    # the hard player's move reaches the exact result (after the automatic pass, if any)
    state = RULES.from_position(position)
    move = choose_move(state, level="hard", seed=0, budget_ms=2_000)
    assert -brute_force(state.position.play(move)) == brute_force(state.position)


def test_the_solver_matches_brute_force_on_random_late_positions():
    rng = random.Random(8)
    checked = 0
    while checked < 12:
        position = random_position(rng, 60 - rng.randint(3, 7))
        if position.is_game_over():
            continue
        exact = brute_force(position)
        assert Search().solve(position.own, position.opponent) == exact
        assert (Search().solve(position.own, position.opponent, -1, 1) > 0) == (exact > 0)
        checked += 1


def test_the_solver_scores_a_finished_game_without_its_empty_squares():
    wiped = Position.from_diagram("WWWW....\n" + "........\n" * 7)
    assert wiped.is_game_over()
    assert Search().solve(wiped.own, wiped.opponent) == 4
    assert Search().solve(wiped.opponent, wiped.own) == -4
    passing = late_position(4)  # white must pass, then black plays on
    assert passing.legal_squares() == []
    assert not passing.is_game_over()
    assert Search().solve(passing.own, passing.opponent) == brute_force(passing) == -28


# --- hard: the clock -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "state",
    [
        POSITIONS["start"],
        POSITIONS["midgame"],
        RULES.from_record(
            "e3f5d6e2f2c6e1d3c3e6f6c4c7f1g1d7f4g5b6e7d8c8b8a6b4b5c5a3d2b3h6h4g4f7e8f8g8f3"
        ),
    ],
    ids=["start", "midgame", "22-empties"],
)
def test_hard_answers_within_its_budget(state):
    # The CPU time the search spent, not the time on the clock: on a machine whose cores are busy
    # the clock runs on while the search waits for a core, and the search stops at its deadline
    # with less thought done. Thinking past the budget shows in either.
    started = time.thread_time()
    move = choose_move(state, level="hard", seed=1, budget_ms=200)
    thought = time.thread_time() - started
    assert move in RULES.legal_moves(state)
    assert thought < 0.3


def test_hard_solves_and_answers_in_time_near_the_end():
    # 16 empty squares: a midgame search for part of the budget, then the solver
    rng = random.Random(4)
    position = random_position(rng, 44)
    while (
        position.is_game_over()
        or not position.legal_squares()
        or (FULL & ~(position.white | position.black)).bit_count() != 16
    ):
        position = random_position(rng, 44)
    info: dict = {}
    started, thinking_started = time.perf_counter(), time.thread_time()
    move = hard_move(
        position.own,
        position.opponent,
        position.legal_squares(),
        deadline=started + 0.2,
        info=info,
    )
    assert time.thread_time() - thinking_started < 0.3  # CPU time, as above
    assert move in position.legal_squares()
    assert "depth" in info


# --- the match runner ------------------------------------------------------------------------


def test_the_match_runner_plays_paired_openings_and_reports(capsys):
    argv = ["--a", "medium", "--b", "classic", "--pairs", "1", "--seed", "3"]
    argv += ["--classic-depth", "1", "--classic-exact", "4", "--opening-plies", "2"]
    assert circles_match.main(argv) == 0
    first = capsys.readouterr().out
    games = [line for line in first.splitlines() if line.startswith("game")]
    assert len(games) == 2
    assert "A (white)" in games[0]
    assert "A (black)" in games[1]
    assert games[0].split()[2] == games[1].split()[2]  # one opening, colours swapped
    assert "A (medium) against B (classic 1/4): score" in first
    assert "95% interval" in first
    assert "load average" in first
    circles_match.main(argv)
    again = capsys.readouterr().out
    assert games == [line for line in again.splitlines() if line.startswith("game")]
