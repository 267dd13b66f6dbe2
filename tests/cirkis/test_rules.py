"""CirKis rules engine: every rule of rules/cirkis.md on hand-built positions.

Past 600 lines on purpose: one test module per rules module (cirkis/rules.py), its sections in the
rules' order, so that every rule is found next to its neighbours.

Field ids used below (see cirkis/board.py): the Center Star is 0-4, the Center Ring 5-14;
Circle C0 is 25, 35, 36, 55, 56; Star S1 is 90, 105, 106, 125, 126; the Sliver spaces are 155-164.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from cirkis.board import CENTER_RING, PLACEMENTS, TOUCH_MASKS, Placement, fields_of, placement
from cirkis.rules import FULL_SET, PIECE_KEYS, RULES, GameState, position
from greycircle.games.engine import IllegalMove, Rules

C0 = (25, 35, 36, 55, 56)


def at(piece: str, *fields: int) -> Placement:
    found = placement(piece, fields)
    assert found is not None, (piece, fields)
    return found


def refused(state: GameState, move: Placement, code: str = "illegal_move") -> str:
    with pytest.raises(IllegalMove) as raised:
        RULES.play(state, move)
    assert raised.value.code == code
    return raised.value.message


def event_types(state: GameState) -> list[str]:
    return [event.type for event in state.events]


def owners(state: GameState) -> list[int | None]:
    return RULES.view(state, None)["owners"]


# --- the protocol and a new game --------------------------------------------------------------


def test_rules_implements_the_protocol():
    assert isinstance(RULES, Rules)
    assert (RULES.kind, RULES.min_seats, RULES.max_seats) == ("cirkis", 2, 4)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_new_game_is_an_empty_board_full_sets_and_seat_0_to_move(seats):
    state = RULES.new_game(seats, seed=7, options={})
    assert state == RULES.new_game(seats, seed=8, options={})  # no chance in CirKis
    assert RULES.to_move(state) == 0
    assert state.scores == (0,) * seats
    assert owners(state) == [None] * 165
    assert all(sum(left) == 20 for left in state.pieces_left)
    assert state.pieces_of(0) == {
        "big_slice": 3,
        "small_slice": 3,
        "kite": 3,
        "arrow": 2,
        "wedge": 2,
        "triangle": 3,
        "hook": 2,
        "cube": 1,
        "sliver": 1,
    }
    assert RULES.outcome(state) is None


@pytest.mark.parametrize("seats", [1, 5])
def test_cirkis_is_for_two_to_four(seats):
    with pytest.raises(ValueError, match="2 to 4"):
        RULES.new_game(seats, seed=0, options={})


def test_options_are_center_ring_and_long_game():
    assert RULES.validate_options({}) == {"center_ring": False, "long_game": False}
    assert RULES.validate_options({"center_ring": True}) == {
        "center_ring": True,
        "long_game": False,
    }
    for bad in ({"target": 50}, {"center_ring": "yes"}, {"long_game": 1}):
        with pytest.raises(IllegalMove) as raised:
            RULES.validate_options(bad)
        assert raised.value.code == "malformed"
    assert RULES.new_game(2, seed=0, options={"long_game": True}).target == 100
    assert RULES.new_game(2, seed=0, options={}).target == 40


# --- where a piece may go ---------------------------------------------------------------------


def test_the_first_piece_must_cover_the_center_star_or_ring():
    state = RULES.new_game(2, seed=0, options={})
    message = refused(state, at("kite", 25))
    assert message == (
        "The first piece must cover at least one field of the Center Star or the Center Ring."
    )
    assert owners(RULES.play(state, at("arrow", 0)))[0] == 0
    assert owners(RULES.play(state, at("kite", 14)))[14] == 0
    # Every first move and only those: each placement with a field in 0-14, for every piece.
    expected = [p for key in PIECE_KEYS for p in PLACEMENTS[key] if min(p.fields) < 15]
    assert RULES.legal_moves(state) == expected
    assert Counter(p.piece for p in expected) == {
        "small_slice": 5,  # the ring's kites pair up around the star's five darts
        "kite": 10,
        "arrow": 5,
        "wedge": 5,
        "triangle": 5,
        "hook": 10,
        "cube": 5,
    }


def test_every_later_piece_must_touch_the_leader_by_an_edge_or_a_corner():
    # Seat 1 covered 8 earlier; the Leader is seat 0's kite on 5.
    state = position(covered=[[5], [8]], leader=("kite", [5]), to_move=1)
    edge = RULES.play(state, at("arrow", 15))  # the dart 15 shares an edge with 5
    point = RULES.play(state, at("kite", 25))  # 25 shares only a corner with 5
    assert owners(edge)[15] == owners(point)[25] == 1
    assert edge.leader == at("arrow", 15)
    assert edge.leader_seat == 1
    assert refused(state, at("kite", 9)) == (
        "Follow the Leader: the piece must touch the Leader, the Kite on field 5."
    )  # 9 touches seat 1's own 8, not the Leader
    assert refused(state, at("kite", 26)).startswith("Follow the Leader")
    moves = RULES.legal_moves(state)
    assert at("arrow", 15) in moves
    assert at("kite", 9) not in moves
    assert all(move.mask & TOUCH_MASKS[5] for move in moves)


def test_covered_fields_and_pieces_not_left_are_refused():
    state = position(
        covered=[[5, 6], [7]],
        leader=("small_slice", [5, 6]),
        to_move=1,
        pieces_left=[None, {"kite": 1}],
    )
    assert refused(state, at("kite", 6)) == "Field 6 is already covered."
    assert refused(state, at("cube", 6, 7)) == "You have no Cube left."
    with_cube = position(covered=[[5, 6], [7]], leader=("small_slice", [5, 6]), to_move=1)
    assert refused(with_cube, at("cube", 6, 7)) == "Fields 6 and 7 are already covered."
    # Fields 0, 1, 4 (darts) and 15, 16, 17, ... (not kites) touch the Leader too.
    assert RULES.legal_moves(state) == [at("kite", 14), at("kite", 25)]


def test_parse_move_tells_malformed_input_from_illegal_placements():
    assert RULES.parse_move({"piece": "big_slice", "fields": [36, 25, 35]}) == at(
        "big_slice", 25, 35, 36
    )
    assert RULES.move_to_json(at("big_slice", 36, 35, 25)) == {
        "piece": "big_slice",
        "fields": [25, 35, 36],
    }
    malformed = [
        [],
        "big_slice",
        {"piece": "big_slice"},
        {"piece": "big_slice", "fields": [25, 35, 36], "seat": 0},
        {"piece": "rhombus", "fields": [1]},
        {"piece": 3, "fields": [1]},
        {"piece": "kite", "fields": "5"},
        {"piece": "kite", "fields": []},
        {"piece": "kite", "fields": [5.0]},
        {"piece": "kite", "fields": [True]},
        {"piece": "kite", "fields": [165]},
        {"piece": "kite", "fields": [-1]},
        {"piece": "small_slice", "fields": [5, 5]},
    ]
    for data in malformed:
        with pytest.raises(IllegalMove) as raised:
            RULES.parse_move(data)
        assert raised.value.code == "malformed", data
    with pytest.raises(IllegalMove) as raised:
        RULES.parse_move({"piece": "rhombus", "fields": [1]})
    assert "big_slice" in raised.value.message
    with pytest.raises(IllegalMove) as raised:
        RULES.parse_move({"piece": "big_slice", "fields": [1, 7, 53]})
    assert (raised.value.code, raised.value.message) == (
        "illegal_move",
        "Those fields don't fit a Big Slice.",
    )
    with pytest.raises(IllegalMove) as raised:
        RULES.parse_move({"piece": "kite", "fields": [0]})  # a dart, not a kite
    assert raised.value.code == "illegal_move"
    state = RULES.new_game(2, seed=0, options={})
    assert refused(state, Placement("kite", (0,), 1), code="malformed")


# --- scoring ----------------------------------------------------------------------------------


def test_the_strict_majority_scores_10_and_the_completer_holding_it_gets_no_bonus():
    state = position(covered=[[25, 35], [36]], leader=("kite", [36]))
    after = RULES.play(state, at("small_slice", 55, 56))
    assert after.scores == (10, 0)
    (completion,) = after.completed
    assert completion.to_json() == {"shape": "C0", "by": 0, "majority": 0, "scores": {"0": 10}}
    assert RULES.to_move(after) == 1


def test_the_completer_gets_5_when_another_seat_holds_the_majority():
    state = position(covered=[[], [25, 35, 36]], leader=("big_slice", [25, 35, 36]))
    after = RULES.play(state, at("small_slice", 55, 56))
    assert after.scores == (5, 10)
    assert after.completed[0].to_json() == {
        "shape": "C0",
        "by": 0,
        "majority": 1,
        "scores": {"0": 5, "1": 10},
    }


def test_a_star_and_a_circle_completed_by_one_piece_are_both_scored():
    """The rules' example: Red (seat 0) completes a Star where it holds the majority and a Circle
    where seat 1 does: 10 + 5 for Red, 10 for the Circle's majority holder."""
    state = position(
        covered=[[105, 106, 125], [126, 25, 35, 36]], leader=("big_slice", [25, 35, 36])
    )
    after = RULES.play(state, at("triangle", 55, 56, 90))
    assert after.scores == (15, 10)
    assert [c.to_json() for c in after.completed] == [
        {"shape": "C0", "by": 0, "majority": 1, "scores": {"0": 5, "1": 10}},
        {"shape": "S1", "by": 0, "majority": 0, "scores": {"0": 10}},
    ]
    entry = RULES.log_entry(state, at("triangle", 55, 56, 90), after).public
    assert [c["shape"] for c in entry["scored"]] == ["C0", "S1"]


def test_a_tie_for_the_most_gives_only_the_completers_bonus():
    # 2-2-1: seats 0 and 1 hold two segments each, seat 2 completes with the fifth.
    state = position(covered=[[25, 35], [36, 55], []], leader=("kite", [55]), to_move=2)
    after = RULES.play(state, at("kite", 56))
    assert after.scores == (0, 0, 5)
    assert after.completed[0].majority is None
    assert after.completed[0].awards == ((2, 5),)


def test_the_center_ring_option_scores_15_for_its_majority():
    covered = [list(range(5, 11)), [11, 12, 13]]
    plain = position(covered=covered, leader=("kite", [13]), to_move=1)
    assert RULES.play(plain, at("kite", 14)).scores == (0, 0)
    ring = position(covered=covered, leader=("kite", [13]), to_move=1, center_ring=True)
    other = RULES.play(ring, at("kite", 14))
    assert other.scores == (15, 5)
    assert other.completed[0].to_json() == {
        "shape": "R",
        "by": 1,
        "majority": 0,
        "scores": {"0": 15, "1": 5},
    }
    # Seat 0 completes the ring where it holds the majority: 15, no bonus.
    same = position(
        covered=[[5, 6, 7, 8, 9, 14], [10, 11, 12]], leader=("kite", [12]), center_ring=True
    )
    assert RULES.play(same, at("kite", 13)).scores == (15, 0)
    assert set(CENTER_RING) == set(range(5, 15))


# --- free turns -------------------------------------------------------------------------------


def test_the_first_sliver_earns_a_free_turn_and_a_later_one_does_not():
    state = position(covered=[[125, 5], []], leader=("arrow", [125]), to_move=1)
    first = RULES.play(state, at("sliver", 155))
    assert first.first_sliver_played
    assert (RULES.to_move(first), first.free_turn) == (1, True)
    assert event_types(first) == ["free_turn"]
    assert first.events[0].to_json() == {"type": "free_turn", "seat": 1, "reason": "first_sliver"}
    # On the free turn any piece on the board will do, not only the Leader ...
    assert at("arrow", 15) in RULES.legal_moves(first)  # touches seat 0's 5, not the Sliver
    # ... but the piece must touch one.
    assert refused(first, at("kite", 9)) == (
        "On a free turn the piece must touch a piece already on the board."
    )
    free = RULES.play(first, at("arrow", 126))
    assert (RULES.to_move(free), free.free_turn, free.leader) == (0, False, at("arrow", 126))
    second = RULES.play(free, at("sliver", 156))
    assert RULES.to_move(second) == 1
    assert not second.free_turn
    assert "free_turn" not in event_types(second)


def test_filling_a_space_whose_touching_fields_are_all_covered_earns_a_free_turn():
    around_5 = [0, 6, 14, 15, 4, 16, 24, 25, 30]  # every field touching field 5
    state = position(covered=[[0, 4, 6], [14, 15, 16, 24, 25, 30]], leader=("arrow", [15]))
    after = RULES.play(state, at("kite", 5))
    assert after.events[0].to_json() == {"type": "free_turn", "seat": 0, "reason": "filled"}
    assert (RULES.to_move(after), after.free_turn) == (0, True)
    # One field left open next to the space: no free turn.
    open_one = position(covered=[[0, 4, 6], [14, 15, 16, 24, 25]], leader=("arrow", [15]))
    assert RULES.to_move(RULES.play(open_one, at("kite", 5))) == 1
    assert set(around_5) == set(fields_of(TOUCH_MASKS[5]))


def test_completing_the_center_star_earns_a_free_turn_and_scores_it():
    state = position(covered=[[0, 1], [2, 3]], leader=("wedge", [2, 3]))
    after = RULES.play(state, at("arrow", 4))
    assert after.scores == (10, 0)  # 3 of the 5 darts
    assert after.completed[0].shape == "S0"
    assert [e.to_json() for e in after.events] == [
        {"type": "completed", "shape": "S0", "by": 0, "majority": 0, "scores": {"0": 10}},
        {"type": "free_turn", "seat": 0, "reason": "center_star"},
    ]
    assert RULES.to_move(after) == 0
    assert after.free_turn


def test_a_free_turn_piece_can_earn_another_free_turn():
    hole = [0, 6, 14, 15, 4, 16, 24, 25, 30]  # seat 1 covers everything around field 5
    state = position(covered=[[], [125, *hole]], leader=("arrow", [125]))
    sliver = RULES.play(state, at("sliver", 155))
    assert (RULES.to_move(sliver), sliver.free_turn) == (0, True)
    filled = RULES.play(sliver, at("kite", 5))  # touches pieces, not the Leader: free turn
    assert filled.events[0].reason == "filled"
    assert (RULES.to_move(filled), filled.free_turn, filled.leader) == (0, True, at("kite", 5))
    done = RULES.play(filled, at("kite", 7))  # touches seat 1's 6; earns nothing
    assert (RULES.to_move(done), done.free_turn) == (1, False)


def test_a_free_turn_with_nothing_to_place_just_ends():
    # After the first Sliver, seat 0 has only a Big Slice: nothing touches 125 or 155.
    state = position(
        covered=[[], [125]],
        leader=("arrow", [125]),
        pieces_left=[{"sliver": 1, "big_slice": 1}, None],
    )
    after = RULES.play(state, at("sliver", 155))
    assert event_types(after) == ["free_turn", "free_turn_unused"]
    assert (RULES.to_move(after), after.free_turn, after.lost_turns) == (1, False, ())


# --- lost turns and the end -------------------------------------------------------------------


def test_a_seat_that_cannot_touch_the_leader_loses_its_turn_automatically():
    # No Big Slice touches the Center Star's dart 0.
    state = position(covered=[[], []], pieces_left=[None, {"big_slice": 3}])
    after = RULES.play(state, at("arrow", 0))
    assert RULES.to_move(after) == 0
    assert after.lost_turns == (1,)
    assert after.leader == at("arrow", 0)  # the Leader stays
    assert [e.to_json() for e in after.events] == [{"type": "lost_turn", "seat": 1}]
    entry = RULES.log_entry(state, at("arrow", 0), after).public
    assert entry["lost_turns"] == [1]
    assert entry["free_turn"] is None
    assert RULES.view(after, 1)["lost_turns"] == [1]
    again = RULES.play(after, at("arrow", 1))
    assert again.lost_turns == (1,)  # the Big Slices still touch nothing near the centre
    assert RULES.to_move(again) == 0


def test_when_every_seat_loses_its_turn_the_game_ends_blocked():
    state = position(
        covered=[[], [], []],
        pieces_left=[{"arrow": 1, "big_slice": 1}, {"big_slice": 3}, {"sliver": 1}],
    )
    after = RULES.play(state, at("arrow", 0))
    assert event_types(after) == ["lost_turn", "lost_turn", "lost_turn", "game_over"]
    assert after.lost_turns == (1, 2, 0)
    assert RULES.to_move(after) is None
    assert RULES.legal_moves(after) == []
    outcome = RULES.outcome(after)
    assert outcome is not None
    # 0-0-0: the most unplayed pieces wins (seat 1 has three).
    assert (outcome.scores, outcome.winners, outcome.reason) == ([0, 0, 0], [1], "blocked")
    assert refused(after, at("kite", 5)) == "The game is over."


def test_ties_go_to_the_most_unplayed_pieces_then_the_win_is_shared():
    shared = position(
        covered=[[], []], scores=[5, 5], pieces_left=[{"arrow": 1, "big_slice": 1}, {"sliver": 1}]
    )
    outcome = RULES.outcome(RULES.play(shared, at("arrow", 0)))
    assert outcome is not None
    assert (outcome.winners, outcome.reason) == ([0, 1], "blocked")
    more_pieces = position(
        covered=[[], []], scores=[5, 5], pieces_left=[{"arrow": 1, "big_slice": 1}, {"sliver": 2}]
    )
    outcome = RULES.outcome(RULES.play(more_pieces, at("arrow", 0)))
    assert outcome is not None
    assert (outcome.scores, outcome.winners) == ([5, 5], [1])
    more_points = position(
        covered=[[], []], scores=[6, 5], pieces_left=[{"arrow": 1, "big_slice": 1}, {"sliver": 9}]
    )
    outcome = RULES.outcome(RULES.play(more_points, at("arrow", 0)))
    assert outcome is not None
    assert outcome.winners == [0]  # the score decides before the pieces


def test_the_game_stops_as_soon_as_someone_reaches_40():
    state = position(covered=[[25, 35], [36]], leader=("kite", [36]), scores=[35, 0])
    after = RULES.play(state, at("small_slice", 55, 56))
    assert after.scores == (45, 0)
    assert (RULES.to_move(after), after.finished) == (None, "target")
    assert RULES.outcome(after) == RULES.outcome(after)
    outcome = RULES.outcome(after)
    assert outcome is not None
    assert (outcome.winners, outcome.reason) == ([0], "target")
    assert after.events[-1].to_json() == {"type": "game_over", "reason": "target"}


def test_reaching_40_with_the_last_piece_still_scores_the_going_out_bonus():
    state = position(
        covered=[[25, 35], [36]],
        leader=("kite", [36]),
        scores=[35, 0],
        pieces_left=[{"small_slice": 1}, None],
    )
    after = RULES.play(state, at("small_slice", 55, 56))
    # 35 + 10 for C0's majority + 10 for going out: the bonus is never lost.
    assert (after.scores, after.finished) == ((55, 0), "target")
    assert event_types(after) == ["completed", "went_out", "game_over"]
    assert after.events[1].to_json() == {"type": "went_out", "seat": 0, "points": 10}
    outcome = RULES.outcome(after)
    assert outcome is not None
    assert (outcome.scores, outcome.winners, outcome.reason) == ([55, 0], [0], "target")


def test_simultaneous_arrivals_at_40_go_to_the_highest_score():
    state = position(
        covered=[[], [25, 35, 36]], leader=("big_slice", [25, 35, 36]), scores=[38, 31]
    )
    after = RULES.play(state, at("small_slice", 55, 56))
    assert after.scores == (43, 41)
    outcome = RULES.outcome(after)
    assert outcome is not None
    assert (outcome.winners, outcome.reason) == ([0], "target")


def test_placing_the_last_piece_goes_out_for_10_and_ends_the_game():
    state = position(
        covered=[[], [5]], leader=("kite", [5]), pieces_left=[{"kite": 1}, None], scores=[3, 9]
    )
    after = RULES.play(state, at("kite", 6))
    assert after.scores == (13, 9)
    assert after.pieces_left[0] == (0,) * 9
    assert event_types(after) == ["went_out", "game_over"]
    assert after.events[0].to_json() == {"type": "went_out", "seat": 0, "points": 10}
    outcome = RULES.outcome(after)
    assert outcome is not None
    assert (outcome.scores, outcome.winners, outcome.reason) == ([13, 9], [0], "went_out")


def test_the_long_game_plays_rounds_until_someone_reaches_100():
    state = position(
        covered=[[], [5]],
        leader=("kite", [5]),
        pieces_left=[{"kite": 1}, None],
        scores=[50, 20],
        round_scores=[20, 5],
        long_game=True,
    )
    after = RULES.play(state, at("kite", 6))
    assert after.finished is None
    assert event_types(after) == ["went_out", "round_over"]
    assert after.events[1].to_json() == {"type": "round_over", "reason": "went_out", "round": 0}
    assert (after.round, after.scores, RULES.to_move(after)) == (1, (60, 20), 1)
    assert after.covered == (0, 0)
    assert after.pieces_left == (FULL_SET, FULL_SET)
    assert after.leader is None
    assert refused(after, at("kite", 25)).startswith("The first piece must cover")

    near = position(
        covered=[[], [5]],
        leader=("kite", [5]),
        pieces_left=[{"kite": 1}, None],
        scores=[95, 20],
        round_scores=[5, 0],
        long_game=True,
    )
    won = RULES.play(near, at("kite", 6))
    assert (won.finished, won.scores) == ("target", (105, 20))


def test_a_long_game_round_ends_at_40_points_in_the_round_and_the_totals_add_up():
    state = position(
        covered=[[25, 35], [36]],
        leader=("kite", [36]),
        scores=[35, 0],  # a position built by hand: every point scored in this round
        long_game=True,
    )
    after = RULES.play(state, at("small_slice", 55, 56))
    assert after.finished is None
    assert event_types(after) == ["completed", "round_over"]
    assert state.round_scores == (35, 0)
    assert after.events[1].to_json() == {"type": "round_over", "reason": "target", "round": 0}
    assert (after.round, after.scores, after.round_scores) == (1, (45, 0), (0, 0))
    assert RULES.to_move(after) == 1
    assert after.occupied == 0
    assert after.pieces_left == (FULL_SET, FULL_SET)

    # 40 in the round counts, not the total: 70 points from earlier rounds and 35 in this one.
    later = position(
        covered=[[25, 35], [36]],
        leader=("kite", [36]),
        scores=[70, 60],
        round_scores=[25, 0],
        long_game=True,
    )
    after = RULES.play(later, at("small_slice", 55, 56))
    assert (after.finished, after.scores, after.round_scores) == (None, (80, 60), (35, 0))
    assert RULES.to_move(after) == 1  # the round goes on at 35


def test_the_long_game_ends_after_the_round_in_which_a_total_reaches_100():
    state = position(
        covered=[[25, 35], [36]],
        leader=("kite", [36]),
        scores=[95, 20],
        round_scores=[5, 0],
        pieces_left=[None, {"kite": 1}],
        long_game=True,
    )
    after = RULES.play(state, at("small_slice", 55, 56))
    # 105 in total, but only 15 in this round: the round is played to its end.
    assert (after.finished, after.scores, after.round_scores) == (None, (105, 20), (15, 0))
    assert RULES.to_move(after) == 1
    ended = RULES.play(after, at("kite", 45))  # seat 1 goes out: the round, and the game, end
    assert event_types(ended) == ["went_out", "game_over"]
    assert (ended.finished, ended.scores, ended.round) == ("target", (105, 30), 0)
    outcome = RULES.outcome(ended)
    assert outcome is not None
    assert (outcome.scores, outcome.winners, outcome.reason) == ([105, 30], [0], "target")


def test_going_out_in_a_long_game_scores_10_and_ends_only_the_round():
    state = position(
        covered=[[25, 35], [36]],
        leader=("kite", [36]),
        scores=[25, 20],
        pieces_left=[{"small_slice": 1}, None],
        long_game=True,
    )
    after = RULES.play(state, at("small_slice", 55, 56))
    assert event_types(after) == ["completed", "went_out", "round_over"]
    assert after.events[2].to_json() == {"type": "round_over", "reason": "went_out", "round": 0}
    assert (after.finished, after.round, after.scores) == (None, 1, (45, 20))


def test_a_scoreless_long_game_round_starts_the_next_and_only_three_in_a_row_end_it():
    def blocked_at_once(**kwargs) -> GameState:
        # seat 0's arrow touches only the Center Star and Ring: nobody else can follow it.
        return position(
            covered=[[], [], []],
            pieces_left=[{"arrow": 1, "big_slice": 1}, {"big_slice": 3}, {"sliver": 1}],
            long_game=True,
            **kwargs,
        )

    after = RULES.play(blocked_at_once(), at("arrow", 0))
    assert after.finished is None, "one scoreless round does not end the long game"
    assert event_types(after)[-1] == "round_over"
    assert after.events[-1].to_json() == {"type": "round_over", "reason": "blocked", "round": 0}
    assert (after.round, after.scores, RULES.to_move(after)) == (1, (0, 0, 0), 1)
    assert after.scoreless_rounds == 1

    # Points from earlier rounds do not make this round a scoring one (65-35-60 in the issue).
    earlier = blocked_at_once(scores=[65, 35, 60], round_scores=[0, 0, 0])
    after = RULES.play(earlier, at("arrow", 0))
    assert (after.finished, after.round, after.scoreless_rounds) == (None, 1, 1)
    assert after.scores == (65, 35, 60)

    second = RULES.play(blocked_at_once(scoreless_rounds=1), at("arrow", 0))
    assert (second.finished, second.scoreless_rounds) == (None, 2)

    third = RULES.play(blocked_at_once(scoreless_rounds=2), at("arrow", 0))
    assert (third.finished, third.scoreless_rounds) == ("blocked", 3)
    assert event_types(third)[-1] == "game_over"
    outcome = RULES.outcome(third)
    assert outcome is not None
    assert outcome.reason == "blocked"


def test_a_round_in_which_somebody_scores_resets_the_scoreless_count():
    state = position(
        covered=[[], [], []],
        pieces_left=[{"arrow": 1, "big_slice": 1}, {"big_slice": 3}, {"sliver": 1}],
        scores=[10, 0, 0],
        round_scores=[10, 0, 0],  # seat 0 scored in this round
        scoreless_rounds=2,
        long_game=True,
    )
    after = RULES.play(state, at("arrow", 0))
    assert (after.finished, after.round, after.scoreless_rounds) == (None, 1, 0)


def test_each_new_round_is_started_by_the_next_seat():
    state = RULES.new_game(3, seed=0, options={"long_game": True})
    blocked = [{"arrow": 1, "big_slice": 1}, {"big_slice": 3}, {"sliver": 1}]
    for round_number in range(1, 4):
        seat = state.turn
        pieces = [blocked[(s - seat) % 3] for s in range(3)]
        start = replace(
            state,
            pieces_left=tuple(tuple(p.get(k, 0) for k in PIECE_KEYS) for p in pieces),
            scoreless_rounds=0,
        )
        state = RULES.play(start, at("arrow", 0))
        assert (state.round, RULES.to_move(state)) == (round_number, round_number % 3)


# --- views, the log, storage ------------------------------------------------------------------


def test_everybody_sees_the_same_whole_game():
    state = position(
        covered=[[105, 106, 125], [126, 25, 35, 36]], leader=("big_slice", [25, 35, 36])
    )
    after = RULES.play(state, at("triangle", 55, 56, 90))
    view = RULES.view(after, 0)
    assert view == RULES.view(after, 1) == RULES.view(after, None)
    assert view["owners"][90] == 0
    assert view["owners"][126] == 1
    assert view["owners"][0] is None
    assert view["leader"] == {"seat": 0, "piece": "triangle", "fields": [55, 56, 90]}
    assert view["scores"] == [15, 10]
    assert view["pieces_left"][0]["triangle"] == 2
    assert view["pieces_left"][1]["triangle"] == 3
    assert view["to_move"] == 1
    assert view["free_turn"] is False
    assert [c["shape"] for c in view["completed"]] == ["C0", "S1"]
    assert [e["type"] for e in view["last_events"]] == ["completed", "completed"]
    assert (view["target"], view["round"], view["finished"]) == (40, 0, None)
    assert (view["round_scores"], view["scoreless_rounds"]) == ([15, 10], 0)


def test_encode_and_decode_round_trip_and_play_never_mutates():
    state = position(covered=[[0, 1], [2, 3]], leader=("wedge", [2, 3]), first_sliver_played=True)
    encoded = RULES.encode(state)
    after = RULES.play(state, at("arrow", 4))
    assert RULES.encode(state) == encoded  # the input is untouched
    assert state.covered == (0b11, 0b1100)
    data = RULES.encode(after)
    assert data["covered"] == ["13", "c"]  # masks as hex strings
    assert RULES.decode(data) == after
    assert RULES.encode(RULES.decode(data)) == data


def test_states_stored_before_round_scores_existed_still_decode():
    def stored_by_the_old_engine(state: GameState) -> dict:
        data = RULES.encode(state)
        del data["round_scores"], data["scoreless_rounds"]
        return data

    state = position(covered=[[0, 1], [2, 3]], leader=("wedge", [2, 3]), scores=[15, 10])
    assert RULES.decode(stored_by_the_old_engine(state)) == state  # the game is the round
    # A long game in its second round: 60 and 20 from the first, C0 and S1 completed in this one.
    second_round = position(
        covered=[[105, 106, 125], [126, 25, 35, 36]],
        leader=("big_slice", [25, 35, 36]),
        scores=[60, 20],
        round_scores=[0, 0],
        long_game=True,
        round_number=1,
    )
    after = RULES.play(second_round, at("triangle", 55, 56, 90))
    assert (after.scores, after.round_scores) == ((75, 30), (15, 10))
    assert RULES.decode(stored_by_the_old_engine(after)) == after


def test_position_refuses_points_a_round_cannot_have():
    for kwargs, message in (
        ({"scores": [10, 0], "round_scores": [0, 0]}, "Outside the long game"),
        ({"scores": [10, 0], "round_scores": [20, 0], "long_game": True}, "between 0 and"),
        ({"scores": [45, 0], "long_game": True}, "A round ends when"),
        ({"scoreless_rounds": 3, "long_game": True}, "scoreless_rounds is 0 to 2"),
    ):
        with pytest.raises(ValueError, match=message):
            position(covered=[[], []], **kwargs)
