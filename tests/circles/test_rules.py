"""The Circles rules engine: perft, each rule on hand-built boards, JSON, records, properties.

Past 600 lines on purpose: one test module per rules module (circles/rules.py), its sections in the
engine's order, so that every rule is found next to its neighbours.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circles.rules import (
    BLACK,
    RULES,
    SQUARE_NAMES,
    WHITE,
    GameState,
    Position,
    RecordError,
    flip_mask,
    move_mask,
    parse_square,
    perft,
    squares_of,
)
from greycircle.games.engine import IllegalMove, Outcome, Rules

# Known perft counts from the start (a pass is one ply, a finished game one leaf), depths 1-9.
PERFT = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]

SHORTEST_GAME = "e3d3c2f2e2f3c5d2g2"  # white wipes black out in 9 moves
# A random game with one forced pass (white, after move 20) that ends with one square empty.
GAME_WITH_A_PASS = (
    "c5c6c7d3c3b5d2e3f3c8b7a6a5f2g1a4a8d7e7e8c4b6e6d6b4b3a3f7c2c1f8a2b8a7f4g4g6g7f5f6d1e2h4e1f1"
    "g3h1h6b2d8h3g8h7h5b1g5h8h2g2"
)


def sq(name: str) -> int:
    return SQUARE_NAMES.index(name)


def bb(*names: str) -> int:
    return sum(1 << sq(name) for name in names)


def names(bitboard: int) -> list[str]:
    return [SQUARE_NAMES[square] for square in squares_of(bitboard)]


def game(diagram: str, turn: int = WHITE) -> GameState:
    return RULES.from_position(Position.from_diagram(diagram, turn=turn))


# --- a reference implementation, one square at a time, to check the bitboard code against -------

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def reference_flips(cells: list[int | None], square: int, mover: int) -> set[int]:
    if cells[square] is not None:
        return set()
    flipped: set[int] = set()
    row, column = divmod(square, 8)
    for dr, dc in DIRECTIONS:
        line = []
        r, c = row + dr, column + dc
        while 0 <= r < 8 and 0 <= c < 8 and cells[8 * r + c] == 1 - mover:
            line.append(8 * r + c)
            r, c = r + dr, c + dc
        if line and 0 <= r < 8 and 0 <= c < 8 and cells[8 * r + c] == mover:
            flipped.update(line)
    return flipped


def cells_of(position: Position) -> list[int | None]:
    return [position.colour_at(square) for square in range(64)]


# --- perft ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("depth", "expected"), list(enumerate(PERFT, start=1)))
def test_perft_from_the_start(depth, expected):
    assert perft(Position.start(), depth) == expected


def test_perft_depth_zero_is_one_and_negative_depth_is_refused():
    assert perft(Position.start(), 0) == 1
    with pytest.raises(ValueError, match="negative"):
        perft(Position.start(), -1)


def test_rules_perft_counts_from_a_game_state():
    assert RULES.perft(RULES.new_game(2, seed=0, options={}), 5) == 1396


def test_perft_counts_a_pass_as_a_ply_and_a_finished_game_as_one_leaf():
    # Black to move has no move; white can play only h8, which wipes black out.
    position = Position.from_diagram(
        """
        W W W . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        W W W W W B B .
        """,
        turn=BLACK,
    )
    assert [perft(position, depth) for depth in range(1, 5)] == [1, 1, 1, 1]
    finished = Position.from_diagram("WWWWWWWW\n" * 8)
    assert [perft(finished, depth) for depth in range(1, 4)] == [1, 1, 1]


# --- squares and diagrams ---------------------------------------------------------------------


def test_square_numbering_puts_a1_top_left_in_reading_order():
    assert SQUARE_NAMES[0] == "a1"
    assert SQUARE_NAMES[7] == "h1"
    assert SQUARE_NAMES[8] == "a2"
    assert SQUARE_NAMES[63] == "h8"
    assert parse_square("C5") == 34
    assert parse_square(" c5 ") == 34


@pytest.mark.parametrize("text", ["", "i1", "a0", "a9", "c55", "5c", "cc", None, 34])
def test_parse_square_refuses_what_is_not_a_square(text):
    with pytest.raises(IllegalMove) as error:
        parse_square(text)
    assert error.value.code == "malformed"
    assert "a1 to h8" in error.value.message


def test_start_position():
    start = Position.start()
    assert start.white == bb("d4", "e5")
    assert start.black == bb("d5", "e4")
    assert start.turn == WHITE
    assert start.rows()[3:5] == ["...WB...", "...BW..."]
    assert names(start.legal_moves()) == ["c5", "d6", "e3", "f4"]
    assert start.legal_squares() == [sq("c5"), sq("d6"), sq("e3"), sq("f4")]
    black_start = Position(start.white, start.black, BLACK)
    assert names(black_start.legal_moves()) == ["c4", "d3", "e6", "f5"]


def test_diagrams_round_trip_and_bad_diagrams_are_refused():
    start = Position.start()
    assert Position.from_diagram(start.diagram()) == start
    assert Position.from_diagram(start.diagram().lower().replace(".", "-")) == start
    assert "White to move" in str(start)
    with pytest.raises(ValueError, match="8 rows"):
        Position.from_diagram("W.......")
    with pytest.raises(ValueError, match="'X' at c1"):
        Position.from_diagram("..X.....\n" + "........\n" * 7)


@pytest.mark.parametrize(
    ("white", "black", "turn"),
    [(1, 1, WHITE), (-1, 0, WHITE), (1 << 64, 0, WHITE), (0, 0, 2), (0, 0, True), ("1", 0, 0)],
)
def test_positions_refuse_impossible_boards(white, black, turn):
    with pytest.raises(ValueError, match=r"Position|square"):
        Position(white, black, turn)


# --- flipping -------------------------------------------------------------------------------------

ALL_EIGHT = """
    . . . . . . . .
    . W . W . W . .
    . . B B B . . .
    . W B . B W . .
    . . B B B . . .
    . W . W . W . .
    . . . . . . . .
    . . . . . . . .
"""


def test_one_move_flips_in_all_eight_directions():
    position = Position.from_diagram(ALL_EIGHT)
    assert names(position.flips(sq("d4"))) == ["c3", "c4", "c5", "d3", "d5", "e3", "e4", "e5"]
    after = position.play(sq("d4"))
    assert after.black == 0
    assert after.counts == (17, 0)
    assert after.turn == BLACK
    assert after.is_game_over()  # black is wiped out


@pytest.mark.parametrize(("dr", "dc"), DIRECTIONS)
@pytest.mark.parametrize("length", range(1, 7))
def test_a_line_of_any_length_flips_in_every_direction(dr, dc, length):
    # Start in the corner the direction leads away from, so the longest line fits.
    row = 0 if dr >= 0 else 7
    column = 0 if dc >= 0 else 7
    line = [8 * (row + dr * step) + column + dc * step for step in range(1, length + 1)]
    end = 8 * (row + dr * (length + 1)) + column + dc * (length + 1)
    move = 8 * row + column
    black = sum(1 << square for square in line)
    closed = Position(1 << end, black, WHITE)
    assert closed.flips(move) == black
    assert closed.play(move).white == (1 << end) | black | (1 << move)
    open_ended = Position(0, black, WHITE)  # nothing of white's beyond the line
    assert open_ended.flips(move) == 0
    broken = Position(1 << end, black & ~(1 << line[-1]), WHITE)  # an empty square in the line
    assert broken.flips(move) == 0


def test_several_discs_in_a_line_flip_and_only_lines_closed_by_the_mover_flip():
    position = Position.from_diagram(
        """
        . B B B W . . .
        B . . . . . . .
        B . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """
    )
    # East: b1 c1 d1 closed by e1. South: a2 a3 then an empty a4: no flip.
    assert names(position.flips(sq("a1"))) == ["b1", "c1", "d1"]


def test_flipped_discs_do_not_flip_further():
    position = Position.from_diagram(
        """
        . . . . . . . .
        . . . . . . . .
        . . W . . . . .
        . . B . . . . .
        . W B . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """
    )
    after = position.play(sq("d5"))
    assert names(after.white) == ["b5", "c3", "c5", "d5"]
    assert names(after.black) == ["c4"], "c4 now lies between white c3 and c5 but stays black"


def test_a_disc_next_to_the_square_of_the_movers_own_colour_flips_nothing():
    position = Position.from_diagram("W W B . . . . .\n" + "........\n" * 7, turn=BLACK)
    assert position.flips(sq("d1")) == 0
    assert position.flips(sq("c1")) == 0  # taken


@settings(max_examples=300, deadline=None)
@given(
    cells=st.lists(st.sampled_from([None, None, WHITE, BLACK]), min_size=64, max_size=64),
    turn=st.sampled_from([WHITE, BLACK]),
)
def test_bitboards_agree_with_a_square_by_square_reference(cells, turn):
    white = sum(1 << i for i, cell in enumerate(cells) if cell == WHITE)
    black = sum(1 << i for i, cell in enumerate(cells) if cell == BLACK)
    position = Position(white, black, turn)
    own, opp = position.own, position.opponent
    expected_moves = 0
    for square in range(64):
        expected = reference_flips(cells, square, turn)
        assert squares_of(position.flips(square)) == sorted(expected, key=lambda s: (s % 8, s // 8))
        if cells[square] is None:
            assert flip_mask(square, own, opp) == sum(1 << s for s in expected)
        if expected:
            expected_moves |= 1 << square
    assert move_mask(own, opp) == expected_moves == position.legal_moves()


# --- passing and the end --------------------------------------------------------------------------

PASS_AHEAD = """
    W B . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    W W W W W B B .
"""


def test_a_player_without_a_move_passes_automatically_and_it_is_logged():
    before = game(PASS_AHEAD)
    assert RULES.to_move(before) == WHITE
    assert RULES.legal_moves(before) == [sq("c1"), sq("h8")]
    after = RULES.play(before, sq("c1"))
    # Black's f8 and g8 cannot reach any white disc: black passes, white moves again.
    assert after.passed == (BLACK,)
    assert after.position.turn == WHITE
    assert RULES.to_move(after) == WHITE
    assert RULES.legal_moves(after) == [sq("h8")]
    assert RULES.outcome(after) is None
    entry = RULES.log_entry(before, sq("c1"), after)
    assert entry.public == {"square": "c1", "flipped": ["b1"], "passed": [BLACK]}
    assert entry.private == {}
    view = RULES.view(after, WHITE)
    assert view["passed"] == [BLACK]
    assert view["to_move"] == WHITE
    assert view["last_move"] == "c1"

    end = RULES.play(after, sq("h8"))  # wipes black out
    assert end.passed == ()
    assert RULES.to_move(end) is None
    assert RULES.legal_moves(end) == []
    assert RULES.outcome(end) == Outcome(scores=[11, 0], winners=[WHITE], reason="more_discs")
    assert RULES.log_entry(after, sq("h8"), end).public == {
        "square": "h8",
        "flipped": ["f8", "g8"],
        "passed": [],
    }


def test_at_ply_level_a_pass_is_a_move_of_its_own():
    position = Position.from_diagram(PASS_AHEAD).play(sq("c1"))
    assert position.turn == BLACK
    assert position.legal_moves() == 0
    assert position.must_pass()
    assert not position.is_game_over()
    passed = position.pass_turn()
    assert passed == Position(position.white, position.black, WHITE)
    assert not passed.must_pass()
    with pytest.raises(IllegalMove, match="White has a legal move and may not pass"):
        passed.pass_turn()


def test_a_game_whose_first_player_cannot_move_starts_with_a_pass():
    blocked = Position.from_diagram(PASS_AHEAD).play(sq("c1"))  # black to move, blocked
    state = RULES.from_position(blocked)
    assert state.passed == (BLACK,)
    assert RULES.to_move(state) == WHITE
    assert RULES.view(state, None)["last_move"] is None


def test_when_neither_side_can_move_the_game_ends_with_squares_left():
    before = game(
        """
        W B . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . B
        """
    )
    end = RULES.play(before, sq("c1"))
    assert end.position.empty.bit_count() == 60
    assert end.passed == (), "the game ends: nobody passes"
    assert RULES.to_move(end) is None
    assert end.position.is_game_over()
    assert RULES.outcome(end) == Outcome(scores=[3, 1], winners=[WHITE], reason="more_discs")
    with pytest.raises(IllegalMove) as error:
        end.position.pass_turn()
    assert error.value.message == "The game is over."


def test_a_tie_with_empty_squares_has_no_winner():
    end = RULES.play(game("W B . . . B B B\n" + "........\n" * 7), sq("c1"))
    assert RULES.to_move(end) is None
    assert RULES.outcome(end) == Outcome(scores=[3, 3], winners=[], reason="tie")


FULL_BOARD_BUT_A1 = """
    . B W W W W W W
    W W B B B B B B
    W W W W W W W W
    W W W W W W W W
    {row5}
    B B B B B B B B
    B B B B B B B B
    B B B B B B B B
"""


def test_a_full_board_32_32_is_a_tie():
    before = game(FULL_BOARD_BUT_A1.format(row5="W W W W W W B B"))
    assert before.position.counts == (30, 33)
    end = RULES.play(before, sq("a1"))
    assert end.position.empty == 0
    assert RULES.to_move(end) is None
    assert RULES.outcome(end) == Outcome(scores=[32, 32], winners=[], reason="tie")
    assert RULES.outcome(end).to_json() == {"scores": [32, 32], "winners": [], "reason": "tie"}


def test_a_full_board_is_won_by_more_discs():
    end = RULES.play(game(FULL_BOARD_BUT_A1.format(row5="W W W W W W W B")), sq("a1"))
    assert RULES.outcome(end) == Outcome(scores=[33, 31], winners=[WHITE], reason="more_discs")


def test_black_wins_with_more_discs():
    end = RULES.play(game(FULL_BOARD_BUT_A1.format(row5="B B B B B B B B")), sq("a1"))
    assert RULES.outcome(end) == Outcome(scores=[26, 38], winners=[BLACK], reason="more_discs")


def test_the_shortest_game_is_a_wipe_out():
    end = RULES.from_record(SHORTEST_GAME)
    assert len(end.record) == 9
    assert end.position.black == 0
    assert RULES.to_move(end) is None
    assert RULES.outcome(end) == Outcome(scores=[13, 0], winners=[WHITE], reason="more_discs")


# --- moves and errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"square": 34},
        {"square": None},
        {"square": "z9"},
        {"square": "c55"},
        {"square": ""},
        {"sq": "c5"},
        {"square": "c5", "flips": 1},
        "c5",
        None,
    ],
)
def test_malformed_moves_are_refused(data):
    with pytest.raises(IllegalMove) as error:
        RULES.parse_move(data)
    assert error.value.code == "malformed"
    assert error.value.message


def test_moves_parse_in_any_case_and_serialise_lower_case():
    assert RULES.parse_move({"square": "c5"}) == 34
    assert RULES.parse_move({"square": "C5"}) == 34
    assert RULES.move_to_json(34) == {"square": "c5"}
    for square in range(64):
        assert RULES.parse_move(RULES.move_to_json(square)) == square


@pytest.mark.parametrize(
    ("square", "message"),
    [
        ("d4", "d4 is taken."),
        ("e4", "e4 is taken."),
        ("a1", "a1 flips no discs."),
        ("c4", "c4 flips no discs."),
    ],
)
def test_illegal_moves_say_why(square, message):
    start = RULES.new_game(2, seed=0, options={})
    with pytest.raises(IllegalMove) as error:
        RULES.play(start, sq(square))
    assert error.value.code == "illegal_move"
    assert error.value.message == message


@pytest.mark.parametrize("move", [-1, 64, "c5", None, True, 3.0])
def test_moves_that_are_not_squares_are_malformed(move):
    with pytest.raises(IllegalMove) as error:
        RULES.play(RULES.new_game(2, seed=0, options={}), move)
    assert error.value.code == "malformed"


def test_no_move_is_legal_once_the_game_is_over():
    end = RULES.from_record(SHORTEST_GAME)
    with pytest.raises(IllegalMove) as error:
        RULES.play(end, sq("a1"))
    assert (error.value.code, error.value.message) == ("illegal_move", "The game is over.")


def test_play_never_changes_its_input():
    state = RULES.from_record("e3d3c2")
    snapshot = RULES.encode(state)
    copy = GameState(state.position, state.record, state.passed)
    after = RULES.play(state, RULES.legal_moves(state)[0])
    assert after != state
    assert state == copy
    assert RULES.encode(state) == snapshot
    with pytest.raises(IllegalMove):
        RULES.play(state, sq("a1"))
    assert RULES.encode(state) == snapshot


# --- options and new games ----------------------------------------------------------------------


def test_circles_takes_no_options():
    assert RULES.validate_options({}) == {}
    with pytest.raises(IllegalMove) as error:
        RULES.validate_options({"size": 10, "colour": "red"})
    assert error.value.code == "malformed"
    assert error.value.message == "Circles takes no options (got: colour, size)."
    with pytest.raises(IllegalMove):
        RULES.validate_options([("size", 10)])


def test_new_games_are_the_start_position_whatever_the_seed():
    first = RULES.new_game(2, seed=1, options={})
    assert first == RULES.new_game(2, seed=99, options={})
    assert first == GameState(Position.start(), (), ())
    assert RULES.to_move(first) == WHITE
    assert RULES.outcome(first) is None


@pytest.mark.parametrize("seats", [1, 3, 4])
def test_circles_is_for_two(seats):
    with pytest.raises(ValueError, match="2 players"):
        RULES.new_game(seats, seed=0, options={})


def test_rules_implement_the_protocol():
    assert isinstance(RULES, Rules)
    assert (RULES.kind, RULES.min_seats, RULES.max_seats) == ("circles", 2, 2)


# --- view, storage and records ----------------------------------------------------------------


def test_view_of_the_start_and_after_a_move():
    start = RULES.new_game(2, seed=0, options={})
    assert RULES.view(start, 0) == {
        "board": [
            "........",
            "........",
            "........",
            "...WB...",
            "...BW...",
            "........",
            "........",
            "........",
        ],
        "discs": [2, 2],
        "to_move": 0,
        "last_move": None,
        "passed": [],
        "record": "",
    }
    after = RULES.play(start, sq("c5"))
    view = RULES.view(after, None)
    assert view["board"][3:5] == ["...WB...", "..WWW..."]
    assert view["discs"] == [4, 1]
    assert view["to_move"] == BLACK
    assert view["last_move"] == "c5"
    assert view["record"] == "c5"
    assert RULES.view(after, 0) == RULES.view(after, 1) == view, "Circles hides nothing"
    json.dumps(view)


def test_view_of_a_finished_game_has_nobody_to_move():
    view = RULES.view(RULES.from_record(SHORTEST_GAME), 0)
    assert view["to_move"] is None
    assert view["discs"] == [13, 0]


def test_encode_is_small_json_with_hex_bitboards():
    state = RULES.play(RULES.new_game(2, seed=0, options={}), sq("c5"))
    data = RULES.encode(state)
    assert data == {
        "white": f"{bb('c5', 'd4', 'd5', 'e5'):016x}",
        "black": f"{bb('e4'):016x}",
        "turn": 1,
        "record": "c5",
        "passed": [],
    }
    assert json.loads(json.dumps(data)) == data
    assert RULES.decode(data) == state


def test_encode_decode_round_trips_through_a_whole_game_with_a_pass():
    state = RULES.new_game(2, seed=0, options={})
    for square in RULES.from_record(GAME_WITH_A_PASS).record:
        state = RULES.play(state, square)
        data = json.loads(json.dumps(RULES.encode(state)))
        assert RULES.decode(data) == state


@pytest.mark.parametrize(
    "change",
    [
        {"white": "xyz"},
        {"white": 12},
        {"black": "00000000000000000000"},
        {"white": "0000000810000000", "black": "0000000810000000"},
        {"turn": 2},
        {"turn": None},
        {"record": "c5d"},
        {"record": "zz"},
        {"record": 5},
        {"passed": [3]},
        {"passed": "1"},
    ],
)
def test_decode_refuses_data_encode_cannot_have_written(change):
    data = {**RULES.encode(RULES.new_game(2, seed=0, options={})), **change}
    with pytest.raises(ValueError, match=r"Circles|Position|square"):
        RULES.decode(data)


def test_records_export_and_replay():
    state = RULES.new_game(2, seed=0, options={})
    for square in ["e3", "d3", "c2"]:
        state = RULES.play(state, sq(square))
    assert RULES.record(state) == "e3d3c2"
    assert RULES.from_record("e3d3c2") == state
    assert RULES.from_record("E3D3C2") == state
    assert RULES.from_record(" e3 d3\nc2 ") == state
    assert RULES.from_record("") == RULES.new_game(2, seed=0, options={})


def test_a_replayed_record_infers_the_passes():
    end = RULES.from_record(GAME_WITH_A_PASS)
    assert RULES.record(end) == GAME_WITH_A_PASS
    assert len(end.record) == 59
    assert RULES.to_move(end) is None
    assert end.position.empty.bit_count() == 1
    assert RULES.outcome(end) == Outcome(scores=[31, 32], winners=[BLACK], reason="more_discs")
    # Replaying step by step: after move 20 white had to pass and black moved again.
    state = RULES.new_game(2, seed=0, options={})
    passes = []
    for number, square in enumerate(end.record, start=1):
        mover = RULES.to_move(state)
        state = RULES.play(state, square)
        if state.passed:
            passes.append((number, mover, state.passed))
    assert passes == [(20, BLACK, (WHITE,))]


@pytest.mark.parametrize(
    ("record", "code", "index", "message"),
    [
        ("e3zz", "malformed", 1, "Move 2 of the record, 'zz', is not a square a1 to h8."),
        ("e3d", "malformed", 1, "Move 2 of the record, 'd', is not a square a1 to h8."),
        ("e3e3", "illegal_move", 1, "Move 2 of the record, e3, is illegal: e3 is taken."),
        ("e3d3a8", "illegal_move", 2, "Move 3 of the record, a8, is illegal: a8 flips no discs."),
        (SHORTEST_GAME + "a1", "illegal_move", 9, "is illegal: The game is over."),
    ],
)
def test_a_bad_record_names_its_first_bad_move(record, code, index, message):
    with pytest.raises(RecordError) as error:
        RULES.from_record(record)
    assert isinstance(error.value, IllegalMove)
    assert error.value.code == code
    assert error.value.move_index == index
    assert message in error.value.message


# --- properties of random games -----------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(choices=st.lists(st.integers(min_value=0, max_value=1_000), min_size=70, max_size=70))
def test_random_games_keep_the_discs_counted_right_and_end_in_time(choices):
    state = RULES.new_game(2, seed=0, options={})
    placements = passes = 0
    for choice in choices:
        mover = RULES.to_move(state)
        moves = RULES.legal_moves(state)
        if mover is None:
            assert moves == []
            break
        assert moves, "the seat to move always has a move"
        square = moves[choice % len(moves)]
        flipped = state.position.flips(square).bit_count()
        assert flipped >= 1
        before = state.position.counts
        after_state = RULES.play(state, square)
        after = after_state.position.counts
        assert after[mover] == before[mover] + 1 + flipped
        assert after[1 - mover] == before[1 - mover] - flipped
        placements += 1
        passes += len(after_state.passed)
        assert sum(after) == 4 + placements
        assert after_state.position.white & after_state.position.black == 0
        assert after_state.passed in ((), (1 - mover,))
        next_mover = RULES.to_move(after_state)
        if after_state.passed:
            assert next_mover == mover
        elif next_mover is not None:
            assert next_mover == 1 - mover
        entry = RULES.log_entry(state, square, after_state)
        assert len(entry.public["flipped"]) == flipped
        state = after_state
    else:
        pytest.fail("a game lasted more than 70 turns")
    assert placements <= 60
    assert RULES.to_move(state) is None
    outcome = RULES.outcome(state)
    white, black = state.position.counts
    assert outcome.scores == [white, black]
    assert outcome.winners == ([] if white == black else [0 if white > black else 1])
    assert RULES.from_record(RULES.record(state)) == state
    assert RULES.decode(RULES.encode(state)) == state
    assert passes < placements
