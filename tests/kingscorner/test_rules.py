"""King's Corner rules engine: every rule on hand-built positions, the deal, the views, the log.

Past 600 lines on purpose: one test module per rules module (kingscorner/rules.py), its sections in
the rules' order, so that every rule is found next to its neighbours.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from greycircle.games.engine import IllegalMove, Outcome, Rules
from kingscorner.cards import (
    CORNERS,
    FOUNDATIONS,
    KING,
    KING_CORNER,
    PILE_NAMES,
    card_name,
    parse_card,
    parse_pile,
    rank_of,
)
from kingscorner.rules import END_TURN, RULES, EndTurn, GameState, MovePile, PlayCard, position


def card(name: str) -> int:
    parsed = parse_card(name)
    assert parsed is not None
    return parsed


def play(name: str, to: str) -> PlayCard:
    pile = parse_pile(to)
    assert pile is not None
    return PlayCard(card(name), pile)


def move_pile(source: str, target: str) -> MovePile:
    from_pile, to_pile = parse_pile(source), parse_pile(target)
    assert from_pile is not None
    assert to_pile is not None
    return MovePile(from_pile, to_pile)


def hand(state: GameState, seat: int) -> list[str]:
    return [card_name(c) for c in state.hands[seat]]


def pile(state: GameState, name: str) -> list[str]:
    index = parse_pile(name)
    assert index is not None
    return [card_name(c) for c in state.piles[index]]


def refused(state: GameState, move, code: str = "illegal_move") -> str:
    with pytest.raises(IllegalMove) as raised:
        RULES.play(state, move)
    assert raised.value.code == code
    return raised.value.message


def test_rules_implements_the_protocol():
    assert isinstance(RULES, Rules)
    assert (RULES.kind, RULES.min_seats, RULES.max_seats) == ("kingscorner", 2, 6)


# --- cards ------------------------------------------------------------------------------------


def test_card_notation_round_trips_and_sorts_by_rank_then_suit():
    names = [card_name(c) for c in range(52)]
    assert names[:5] == ["AC", "AD", "AH", "AS", "2C"]
    assert names[-1] == "KS"
    assert [parse_card(name) for name in names] == list(range(52))
    assert parse_card("td") == parse_card("10D") == card("TD")
    assert parse_card("1D") is None
    assert parse_card(7) is None
    assert [parse_pile(name) for name in PILE_NAMES] == list(range(8))
    assert parse_pile("X") is None


# --- card plays ---------------------------------------------------------------------------------


def test_red_goes_on_black_and_black_on_red_only():
    state = position(
        hands=[["7D", "7C", "7H", "7S"], ["2C"]], piles={"N": ["8C"], "E": ["8H"]}, stock=["3C"]
    )
    assert pile(RULES.play(state, play("7D", "N")), "N") == ["8C", "7D"]
    assert pile(RULES.play(state, play("7H", "N")), "N") == ["8C", "7H"]
    assert pile(RULES.play(state, play("7C", "E")), "E") == ["8H", "7C"]
    assert refused(state, play("7D", "E")) == "7D is red and 8H is red: play red on black."
    assert refused(state, play("7C", "N")) == "7C is black and 8C is black: play black on red."
    assert refused(state, play("7S", "N")) == "7S is black and 8C is black: play black on red."


def test_only_one_rank_lower_goes_on_a_top_card():
    state = position(hands=[["6D", "9D", "8D"], ["2C"]], piles={"N": ["8C"]}, stock=["3C"])
    message = refused(state, play("6D", "N"))
    assert message == "6D is not one rank lower than 8C: only a red 7 can go on 8C."
    assert "one rank lower" in refused(state, play("9D", "N"))
    assert "one rank lower" in refused(state, play("8D", "N"))


def test_nothing_can_be_played_on_an_ace():
    state = position(
        hands=[["KD", "2C"], ["3C"]],
        piles={"N": ["2H", "AS"], "E": ["2D"], "NE": ["KC", "QD", "JS", "TD", "9S", "8D", "AC"]},
        stock=["4C"],
    )
    assert refused(state, play("2C", "N")) == "Nothing can be played on an ace."
    assert refused(state, play("2C", "NE")) == "Nothing can be played on an ace."
    assert refused(state, move_pile("E", "N")) == "Nothing can be played on an ace."
    assert not any(
        isinstance(move, PlayCard) and move.to in (0, 4) for move in RULES.legal_moves(state)
    )


def test_only_a_king_goes_into_an_empty_corner():
    state = position(hands=[["KD", "QC"], ["3C"]], piles={"N": ["5C"]}, stock=["4C"])
    after = RULES.play(state, play("KD", "NE"))
    assert pile(after, "NE") == ["KD"]
    assert refused(state, play("QC", "NE")) == "Only a King can go into an empty corner."
    assert pile(RULES.play(after, play("QC", "NE")), "NE") == ["KD", "QC"]


def test_a_king_goes_on_no_card():
    state = position(hands=[["KD", "2C"], ["3C"]], piles={"N": ["QC"]}, stock=["4C"])
    message = refused(state, play("KD", "N"))
    assert message == "A King can go only into an empty corner or an empty foundation."


def test_any_card_goes_into_an_empty_foundation():
    cards = ["AC", "5H", "TD", "KS"]
    state = position(hands=[cards, ["3C"]], piles={"N": ["9C"]}, stock=["4C"])
    for name in cards:
        for foundation in ("E", "S", "W"):
            assert pile(RULES.play(state, play(name, foundation)), foundation) == [name]


def test_a_card_must_be_in_your_hand():
    state = position(hands=[["2C"], ["7D"]], piles={"N": ["8C"]}, stock=["4C"])
    assert refused(state, play("7D", "N")) == "7D is not in your hand."
    assert refused(state, play("9H", "E")) == "9H is not in your hand."


# --- pile moves ---------------------------------------------------------------------------------


def test_a_whole_pile_moves_when_its_bottom_card_fits():
    state = position(
        hands=[["2C", "3C"], ["4C"]],
        piles={"N": ["TC"], "E": ["9D", "8C", "7H"]},
        stock=["5C"],
    )
    after = RULES.play(state, move_pile("E", "N"))
    assert pile(after, "N") == ["TC", "9D", "8C", "7H"]
    assert pile(after, "E") == []
    assert after.plays_this_turn == 1
    assert after.hands == state.hands


def test_a_pile_move_is_judged_by_the_bottom_card_not_the_top():
    state = position(
        hands=[["2C", "3C"], ["4C"]], piles={"N": ["9S"], "E": ["9C", "8D"]}, stock=["5C"]
    )
    message = refused(state, move_pile("E", "N"))
    assert message.startswith("E has 9C at the bottom, which does not go on 9S")
    red_on_red = position(
        hands=[["2C"], ["4C"]], piles={"N": ["TH"], "E": ["9D", "8C"]}, stock=["5C"]
    )
    assert "does not go on TH" in refused(red_on_red, move_pile("E", "N"))


def test_a_pile_with_a_king_at_the_bottom_moves_into_an_empty_corner():
    state = position(
        hands=[["2C"], ["4C"]], piles={"E": ["KD", "QC"], "S": ["QH", "JS"]}, stock=["5C"]
    )
    after = RULES.play(state, move_pile("E", "SW"))
    assert pile(after, "SW") == ["KD", "QC"]
    assert pile(after, "E") == []
    assert refused(state, move_pile("S", "SW")).startswith(
        "Only a pile with a King at the bottom can move into an empty corner"
    )


def test_a_pile_never_moves_into_an_empty_foundation_or_onto_itself():
    state = position(hands=[["2C"], ["4C"]], piles={"E": ["KD", "QC"]}, stock=["5C"])
    assert "never into an empty foundation" in refused(state, move_pile("E", "N"))
    assert refused(state, move_pile("E", "E")) == "A pile cannot move onto itself."
    assert refused(state, move_pile("S", "NE")) == "S is empty: there is no pile to move."


def test_corner_piles_never_move():
    state = position(
        hands=[["2C"], ["4C"]], piles={"NE": ["KD"], "N": [], "E": ["KC"]}, stock=["5C"]
    )
    assert refused(state, move_pile("NE", "SE")) == "Corner piles never move."
    assert refused(state, move_pile("NE", "N")) == "Corner piles never move."
    assert all(
        not (isinstance(move, MovePile) and move.source in CORNERS)
        for move in RULES.legal_moves(state)
    )


# --- turns --------------------------------------------------------------------------------------


def test_ending_the_turn_draws_the_top_stock_card_and_passes_on():
    state = position(
        hands=[["9C", "7D"], ["4C"]], piles={"N": ["8C"]}, stock=["5C", "9H"], to_move=0
    )
    played = RULES.play(state, play("7D", "N"))
    assert played.plays_this_turn == 1
    ended = RULES.play(played, END_TURN)
    assert hand(ended, 0) == ["5C", "9C"]
    assert [card_name(c) for c in ended.stock] == ["9H"]
    assert RULES.to_move(ended) == 1
    assert ended.plays_this_turn == 0


def test_no_draw_from_an_empty_stock():
    state = position(hands=[["9C"], ["4C"]], piles={"N": ["8C"]}, stock=[])
    ended = RULES.play(state, END_TURN)
    assert hand(ended, 0) == ["9C"]
    assert ended.stock == ()
    assert RULES.to_move(ended) == 1
    assert ended.idle_turns == 1


def test_turn_order_wraps_around():
    state = position(hands=[["2C"], ["3C"], ["4C"]], stock=["5C", "6C", "7C", "8C"], to_move=1)
    seats = []
    for _ in range(4):
        state = RULES.play(state, END_TURN)
        seats.append(RULES.to_move(state))
    assert seats == [2, 0, 1, 2]


def test_going_out_wins_at_once_before_drawing():
    state = position(
        hands=[["7D"], ["4C", "5C"], ["6C"]], piles={"N": ["8C"]}, stock=["2C"], to_move=0
    )
    after = RULES.play(state, play("7D", "N"))
    assert RULES.to_move(after) is None
    assert RULES.legal_moves(after) == []
    assert [card_name(c) for c in after.stock] == ["2C"]
    assert RULES.outcome(after) == Outcome(scores=[0, 2, 1], winners=[0], reason="went_out")
    assert refused(after, END_TURN) == "The game is over."


def test_the_score_counts_kings_as_ten():
    state = position(
        hands=[["7D"], ["KC", "KH", "5C"]], piles={"N": ["8C"]}, stock=["2C"], to_move=0
    )
    after = RULES.play(state, play("7D", "N"))
    assert RULES.outcome(after) == Outcome(scores=[0, 21], winners=[0], reason="went_out")


STUCK_PILES = {
    "N": ["AC"],
    "E": ["AD"],
    "S": ["AH"],
    "W": ["AS"],
    "NE": ["KC"],
    "SE": ["KH"],
    "SW": ["KS"],
    "NW": ["QC"],
}


def test_stalemate_when_every_seat_in_turn_ends_without_playing():
    state = position(hands=[["KD", "2C"], ["3C", "4C"], ["5H", "9C"]], piles=STUCK_PILES, stock=[])
    assert RULES.legal_moves(state) == [END_TURN]
    for expected_idle in (1, 2):
        state = RULES.play(state, END_TURN)
        assert state.idle_turns == expected_idle
        assert RULES.outcome(state) is None
    state = RULES.play(state, END_TURN)
    assert RULES.to_move(state) is None
    assert RULES.outcome(state) == Outcome(scores=[11, 2, 2], winners=[1, 2], reason="stalemate")


def test_a_play_or_a_draw_breaks_the_run_of_empty_turns():
    piles = {**STUCK_PILES, "N": ["3D"]}
    state = position(hands=[["KD"], ["2C", "4C"], ["5H"]], piles=piles, stock=[], to_move=2)
    state = RULES.play(state, END_TURN)
    state = RULES.play(state, END_TURN)
    assert (state.idle_turns, RULES.to_move(state)) == (2, 1)
    state = RULES.play(state, play("2C", "N"))  # seat 1 plays: the run starts again
    state = RULES.play(state, END_TURN)
    assert state.idle_turns == 0
    drawing = position(hands=[["KD"], ["4C"]], piles=STUCK_PILES, stock=["5S"], idle_turns=1)
    assert RULES.play(drawing, END_TURN).idle_turns == 0


def test_a_single_lowest_total_wins_a_stalemate_alone():
    state = position(hands=[["KD"], ["2C", "4C"]], piles=STUCK_PILES, stock=[], idle_turns=1)
    state = RULES.play(state, END_TURN)
    assert RULES.outcome(state) == Outcome(scores=[10, 2], winners=[1], reason="stalemate")


# --- the deal -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_the_deal_is_seven_each_then_four_up_from_the_seeded_shuffle(seats):
    for seed in range(20):
        state = RULES.new_game(seats, seed=seed, options={})
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        dealt = 7 * seats
        assert state.hands == tuple(tuple(sorted(deck[s:dealt:seats])) for s in range(seats))
        for foundation, turned in zip(FOUNDATIONS, deck[dealt : dealt + 4], strict=True):
            if rank_of(turned) == KING:
                assert state.piles[foundation] == ()
                assert state.piles[KING_CORNER[foundation]] == (turned,)
            else:
                assert state.piles[foundation] == (turned,)
        assert state.stock == tuple(deck[dealt + 4 :])
        assert all(len(h) == 7 for h in state.hands)
        every = [c for h in state.hands for c in h] + [c for p in state.piles for c in p]
        assert sorted(every + list(state.stock)) == list(range(52))
        assert (RULES.to_move(state), state.plays_this_turn, state.idle_turns) == (0, 0, 0)


def test_a_dealt_king_goes_to_its_corner():
    corners_seen = set()
    for seed in range(400):
        state = RULES.new_game(4, seed=seed, options={})
        for foundation, corner in KING_CORNER.items():
            if state.piles[corner]:
                (king,) = state.piles[corner]
                assert rank_of(king) == KING
                assert state.piles[foundation] == ()
                corners_seen.add(PILE_NAMES[corner])
    assert corners_seen == {"NE", "SE", "SW", "NW"}
    assert (KING_CORNER[0], KING_CORNER[1], KING_CORNER[2], KING_CORNER[3]) == (7, 4, 5, 6)


def test_the_same_seed_deals_the_same_game():
    assert RULES.new_game(4, seed=42, options={}) == RULES.new_game(4, seed=42, options={})
    deals = {RULES.new_game(4, seed=seed, options={}) for seed in range(50)}
    assert len(deals) == 50


def test_seat_counts_and_options_are_checked():
    with pytest.raises(ValueError, match="2 to 6"):
        RULES.new_game(7, seed=1, options={})
    with pytest.raises(ValueError, match="2 to 6"):
        RULES.new_game(1, seed=1, options={})
    assert RULES.validate_options({}) == {}
    with pytest.raises(IllegalMove) as raised:
        RULES.validate_options({"jokers": True})
    assert raised.value.code == "malformed"


# --- legal moves --------------------------------------------------------------------------------


def test_legal_moves_are_every_legal_action_in_documented_order():
    state = position(
        hands=[["6C", "7D", "KH"], ["2C"]],
        piles={"N": ["8C"], "E": ["8S"], "S": ["7H"], "W": [], "SE": ["KD", "QC"], "NE": ["KC"]},
        stock=["3C"],
    )
    assert RULES.legal_moves(state) == [
        play("6C", "S"),
        play("6C", "W"),
        play("7D", "N"),
        play("7D", "E"),
        play("7D", "W"),
        play("KH", "W"),
        play("KH", "SW"),
        play("KH", "NW"),
        move_pile("S", "N"),
        move_pile("S", "E"),
        END_TURN,
    ]


def test_legal_moves_agree_with_play_on_every_possible_action():
    state = position(
        hands=[["6C", "7D", "KH", "JH", "AS"], ["2C"]],
        piles={"N": ["8C"], "E": ["KS", "QH"], "S": ["7H"], "SE": ["KD", "QC"], "W": ["2H"]},
        stock=["3C"],
    )
    legal = set(RULES.legal_moves(state))
    every = [PlayCard(c, p) for c in range(52) for p in range(8)]
    every += [MovePile(s, t) for s in range(8) for t in range(8)]
    for move in every:
        try:
            RULES.play(state, move)
        except IllegalMove:
            assert move not in legal
        else:
            assert move in legal
    assert END_TURN in legal


# --- parsing, JSON, storage ---------------------------------------------------------------------


def test_moves_parse_from_and_to_json():
    for data in (
        {"action": "play", "card": "7D", "to": "N"},
        {"action": "move_pile", "from": "E", "to": "NE"},
        {"action": "end_turn"},
    ):
        assert RULES.move_to_json(RULES.parse_move(data)) == data
    assert RULES.parse_move({"action": "play", "card": "10d", "to": "sw"}) == play("TD", "SW")


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"action": "draw"},
        {"action": "play", "card": "7D"},
        {"action": "play", "card": "1D", "to": "N"},
        {"action": "play", "card": 7, "to": "N"},
        {"action": "play", "card": "7D", "to": "X"},
        {"action": "play", "card": "7D", "to": "N", "extra": 1},
        {"action": "move_pile", "from": "Q", "to": "N"},
        {"action": "end_turn", "card": "7D"},
        ["end_turn"],
    ],
)
def test_malformed_moves_are_refused(data):
    with pytest.raises(IllegalMove) as raised:
        RULES.parse_move(data)
    assert raised.value.code == "malformed"
    assert raised.value.message


def test_play_never_mutates_its_input():
    state = RULES.new_game(3, seed=7, options={})
    stored = json.dumps(RULES.encode(state))
    for move in RULES.legal_moves(state):
        RULES.play(state, move)
    assert json.dumps(RULES.encode(state)) == stored
    assert refused(state, "end_turn", code="malformed")


def test_encode_decode_round_trip_through_json():
    state = RULES.new_game(5, seed=3, options={})
    state = RULES.play(state, END_TURN)
    data = json.loads(json.dumps(RULES.encode(state)))
    assert RULES.decode(data) == state
    won = RULES.play(
        position(hands=[["7D"], ["2C"]], piles={"N": ["8C"]}, stock=[]), play("7D", "N")
    )
    assert RULES.decode(json.loads(json.dumps(RULES.encode(won)))) == won


def test_positions_refuse_duplicate_or_unknown_cards():
    with pytest.raises(ValueError, match="more than once"):
        position(hands=[["7D"], ["7D"]])
    with pytest.raises(ValueError, match="not a card"):
        position(hands=[["7X"], ["2C"]])
    with pytest.raises(ValueError, match="no pile"):
        position(hands=[["7D"], ["2C"]], piles={"Z": ["3C"]})


# --- what each seat sees ------------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_counts_and_every_pile():
    state = position(
        hands=[["7D", "2C"], ["4C", "5C", "6C"]],
        piles={"N": ["9S", "8H"], "NE": ["KD"]},
        stock=["3C", "9H"],
        to_move=1,
        plays_this_turn=2,
    )
    assert RULES.view(state, 0) == {
        "seats": 2,
        "hand": ["2C", "7D"],
        "hand_sizes": [2, 3],
        "stock": 2,
        "piles": {
            "N": ["9S", "8H"],
            "E": [],
            "S": [],
            "W": [],
            "NE": ["KD"],
            "SE": [],
            "SW": [],
            "NW": [],
        },
        "to_move": 1,
        "plays_this_turn": 2,
        "idle_turns": 0,
    }
    assert RULES.view(state, 1)["hand"] == ["4C", "5C", "6C"]
    spectator = RULES.view(state, None)
    assert "hand" not in spectator
    for hidden in ("4C", "5C", "6C", "3C", "9H"):
        assert hidden not in json.dumps(RULES.view(state, 0))
        assert hidden not in json.dumps(spectator)


def test_while_the_game_is_on_no_view_shows_other_hands_or_penalties():
    state = position(
        hands=[["7D", "KC"], ["4C", "5C"], ["6H"]], piles={"N": ["8C"]}, stock=["3C", "9H"]
    )
    state = RULES.play(state, play("7D", "N"))
    assert RULES.to_move(state) == 0
    for seat in (0, 1, 2, None):
        view = RULES.view(state, seat)
        assert "final_hands" not in view
        assert "penalties" not in view
        others = {"KC", "4C", "5C", "6H"} - set(view.get("hand", []))
        assert not cards_in(view) & (others | {"3C", "9H"})


def test_after_a_seat_goes_out_every_view_shows_every_hand_and_its_penalty():
    state = position(
        hands=[["7D"], ["KC", "4C"], ["5C", "6H", "9S"]],
        piles={"N": ["8C"]},
        stock=["3C", "9H"],
    )
    over = RULES.play(state, play("7D", "N"))
    outcome = RULES.outcome(over)
    assert outcome == Outcome(scores=[0, 11, 3], winners=[0], reason="went_out")
    for seat in (0, 1, 2, None):
        view = RULES.view(over, seat)
        assert view["final_hands"] == [[], ["4C", "KC"], ["5C", "6H", "9S"]]
        assert view["penalties"] == outcome.scores
        assert view["to_move"] is None
        assert view["stock"] == 2
        assert not cards_in(view) & {"3C", "9H"}, "the stock stays hidden"
    assert RULES.view(over, 1)["hand"] == ["4C", "KC"]
    assert "hand" not in RULES.view(over, None)


def test_after_a_stalemate_every_view_shows_every_hand_and_its_penalty():
    state = position(hands=[["KC", "2C"], ["3C"]], piles={"N": ["AS"]}, idle_turns=1)
    assert "final_hands" not in RULES.view(state, None)
    over = RULES.play(state, END_TURN)
    outcome = RULES.outcome(over)
    assert outcome is not None
    assert outcome.reason == "stalemate"
    for seat in (0, 1, None):
        view = RULES.view(over, seat)
        assert view["final_hands"] == [["2C", "KC"], ["3C"]]
        assert view["penalties"] == [11, 1] == outcome.scores


def test_the_drawn_card_is_logged_only_for_the_drawer():
    state = position(hands=[["9C"], ["4C"]], piles={"N": ["8C"]}, stock=["5C", "9H"])
    after = RULES.play(state, END_TURN)
    entry = RULES.log_entry(state, END_TURN, after)
    assert entry.public == {"action": "end_turn", "drew": True}
    assert entry.private == {0: {"card": "5C"}}
    assert "5C" not in json.dumps(entry.public)

    empty = position(hands=[["9C"], ["4C"]], piles={"N": ["8C"]}, stock=[])
    entry = RULES.log_entry(empty, END_TURN, RULES.play(empty, END_TURN))
    assert entry.public == {"action": "end_turn", "drew": False}
    assert entry.private == {}


def test_plays_and_pile_moves_are_logged_in_public():
    state = position(hands=[["7D", "2C"], ["4C"]], piles={"N": ["8C"], "E": ["7H"]}, stock=["5C"])
    move = play("7D", "N")
    assert RULES.log_entry(state, move, RULES.play(state, move)).public == {
        "action": "play",
        "card": "7D",
        "to": "N",
    }
    state = position(hands=[["2C"], ["4C"]], piles={"N": ["8C"], "E": ["7H"]}, stock=["5C"])
    entry = RULES.log_entry(state, move_pile("E", "N"), RULES.play(state, move_pile("E", "N")))
    assert entry.public == {"action": "move_pile", "from": "E", "to": "N"}
    assert entry.private == {}


# --- properties of random play ------------------------------------------------------------------

CARD_TOKEN = re.compile(r'"([A2-9TJQK][CDHS])"')
# Every action is irreversible: at most 48 card plays, 52 pile moves, 41 draws, and a run of empty
# turns is broken only by a play. So a game always ends, and well within this many actions.
MAX_ACTIONS = 1_000


def cards_in(data: object) -> set[str]:
    return set(CARD_TOKEN.findall(json.dumps(data)))


def check_invariants(state: GameState) -> None:
    every = [c for h in state.hands for c in h] + [c for p in state.piles for c in p]
    assert sorted(every + list(state.stock)) == list(range(52))
    pile_cards = {card_name(c) for p in state.piles for c in p}
    # Once the game is over, every view shows every hand (never the stock).
    if state.over:
        pile_cards |= {card_name(c) for h in state.hands for c in h}
    for seat in range(state.seats):
        view = RULES.view(state, seat)
        own = {card_name(c) for c in state.hands[seat]}
        assert view["hand"] == sorted(view["hand"], key=card)
        assert set(view["hand"]) == own
        assert cards_in(view) <= own | pile_cards
        assert ("final_hands" in view) is state.over
        assert view["hand_sizes"] == [len(h) for h in state.hands]
        assert view["stock"] == len(state.stock)
    spectator = RULES.view(state, None)
    assert "hand" not in spectator
    assert cards_in(spectator) <= pile_cards
    assert RULES.decode(json.loads(json.dumps(RULES.encode(state)))) == state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    chooser=st.randoms(use_true_random=False),
    patience=st.floats(min_value=0.0, max_value=0.5),
)
def test_random_legal_play_keeps_every_invariant_and_ends(seats, seed, chooser, patience):
    state = RULES.new_game(seats, seed=seed, options={})
    for _ in range(MAX_ACTIONS):
        check_invariants(state)
        if RULES.to_move(state) is None:
            break
        moves = RULES.legal_moves(state)
        assert moves[-1] == END_TURN
        actions = moves[:-1]
        move = END_TURN if not actions or chooser.random() < patience else chooser.choice(actions)
        before = RULES.encode(state)
        after = RULES.play(state, move)
        assert RULES.encode(state) == before
        entry = RULES.log_entry(state, move, after)
        assert cards_in(entry.public) <= {card_name(c) for p in after.piles for c in p}
        if isinstance(move, EndTurn) and state.stock:
            assert entry.private == {state.turn: {"card": card_name(state.stock[0])}}
        state = after
    else:
        pytest.fail(f"no end after {MAX_ACTIONS} actions")
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome.winners
    assert outcome.scores == [sum(10 if rank_of(c) == KING else 1 for c in h) for h in state.hands]
    if outcome.reason == "went_out":
        assert [len(h) for h in state.hands].count(0) == 1
        assert outcome.scores[outcome.winners[0]] == 0
    else:
        assert outcome.reason == "stalemate"
        assert state.stock == ()
        assert {outcome.scores[w] for w in outcome.winners} == {min(outcome.scores)}
