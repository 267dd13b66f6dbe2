"""The King's Corner rules page's diagrams are what the engine makes, and what the captions say."""

import json

from kingscorner.rules import END_TURN, RULES, position
from kingscorner.rules_page import DEAL_SEED, TURN_HANDS, TURN_STOCK, TURN_TABLE, rules_diagrams


def state_of(name: str) -> dict:
    return rules_diagrams()[name]["envelope"]["state"]


def test_the_diagrams_are_json_and_each_is_a_seats_or_a_spectators_view():
    diagrams = rules_diagrams()
    json.dumps(diagrams)
    for name, diagram in diagrams.items():
        envelope = diagram["envelope"]
        assert envelope["kind"] == "kingscorner"
        assert ("hand" in envelope["state"]) == (envelope["you"] is not None), name
        # 52 cards in all: hands, piles and stock.
        state = envelope["state"]
        piles = sum(len(cards) for cards in state["piles"].values())
        assert piles + sum(state["hand_sizes"]) + state["stock"] <= 52, name


def test_the_deal_is_a_real_deal_that_turned_up_a_king_for_west():
    deal = rules_diagrams()["deal"]["envelope"]

    assert deal["state"] == RULES.view(RULES.new_game(3, seed=DEAL_SEED, options={}), None)
    piles = deal["state"]["piles"]
    assert piles["W"] == []
    assert piles["SW"] == ["KD"]
    assert all(piles[name] for name in ("N", "E", "S"))
    assert deal["state"]["hand_sizes"] == [7, 7, 7]
    assert deal["state"]["stock"] == 27


def test_the_turn_is_played_by_the_engine_action_by_action():
    start = position(hands=TURN_HANDS, piles=TURN_TABLE, stock=TURN_STOCK)
    before = rules_diagrams()["pile-before"]
    assert before["envelope"]["state"] == RULES.view(start, 0)
    assert before["envelope"]["legal_moves"] == [{"action": "move_pile", "from": "E", "to": "N"}]

    steps = [
        ("pile-after", [{"action": "move_pile", "from": "E", "to": "N"}]),
        (
            "cards-after",
            [
                {"action": "play", "card": "7D", "to": "S"},
                {"action": "play", "card": "2H", "to": "E"},
                {"action": "play", "card": "KD", "to": "SE"},
            ],
        ),
        ("king-pile-after", [{"action": "move_pile", "from": "W", "to": "SW"}]),
        ("end-turn", [{"action": "end_turn"}]),
    ]
    state = start
    for name, moves in steps:
        for move in moves:
            state = RULES.play(state, RULES.parse_move(move))
        assert state_of(name) == RULES.view(state, 0), name

    assert state_of("pile-after")["piles"]["N"] == ["9S", "8H", "7C", "6H"]
    assert state_of("pile-after")["piles"]["E"] == []
    assert state_of("king-pile-after")["piles"]["SW"] == ["KS", "QD"]
    assert rules_diagrams()["king-pile-after"]["expanded"] == ["N"]
    assert "4H" in state_of("end-turn")["hand"]
    assert state_of("end-turn")["to_move"] == 1


def test_going_out_wins_at_once():
    envelope = rules_diagrams()["went-out"]["envelope"]

    assert envelope["outcome"] == {"scores": [0, 12], "winners": [0], "reason": "went_out"}
    assert envelope["state"]["final_hands"][0] == []
    assert envelope["state"]["piles"]["N"][-1] == "5D"


def test_the_stalemate_is_one_where_nobody_can_play_anything():
    envelope = rules_diagrams()["stalemate"]["envelope"]
    state = envelope["state"]

    assert envelope["outcome"] == {"scores": [2, 3], "winners": [0], "reason": "stalemate"}
    assert state["stock"] == 0
    hands = state["final_hands"]
    for seat in (0, 1):
        seated = position(hands=hands, piles=state["piles"], to_move=seat)
        assert RULES.legal_moves(seated) == [END_TURN], seat
