"""The CirKis rules page's diagrams: real games played by the engine, as the captions say."""

import json

import pytest

from cirkis.board import placement
from cirkis.rules import RULES, position
from cirkis.rules_page import GAMES, Replay, rules_diagrams, shape_fields
from cirkis.state import PIECE_KEYS


def events_of(name: str) -> list[dict]:
    return rules_diagrams()[name]["envelope"]["state"]["last_events"]


def completed(name: str) -> dict[str, dict]:
    return {e["shape"]: e for e in events_of(name) if e["type"] == "completed"}


def test_the_diagrams_are_json_with_log_entries_that_are_placements():
    diagrams = rules_diagrams()
    json.dumps(diagrams)
    for name, diagram in diagrams.items():
        owners = diagram["envelope"]["state"]["owners"]
        covered = set()
        for entry in diagram["moves"]:
            assert placement(entry["piece"], entry["fields"]) is not None, name
            assert all(owners[i] == entry["seat"] for i in entry["fields"]), name
            covered |= set(entry["fields"])
        # Every covered field belongs to a piece of the log: the renderer outlines each piece.
        assert covered == {i for i, owner in enumerate(owners) if owner is not None}, name
        assert all(0 <= i < len(owners) for i in diagram["focus"]), name


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_example_game_is_legal_from_the_start(name):
    seats, options, moves = GAMES[name]
    state = RULES.new_game(seats, seed=0, options=options)
    for piece, fields in moves:
        move = RULES.parse_move({"piece": piece, "fields": list(fields)})
        assert RULES.placement_error(state, move) is None, (piece, fields)
        state = RULES.play(state, move)
    assert Replay(name).states[-1] == state


def test_the_piece_gallery_shows_each_piece_alone():
    diagrams = rules_diagrams()
    for key in PIECE_KEYS:
        diagram = diagrams[f"piece-{key}"]
        (entry,) = diagram["moves"]
        assert entry["piece"] == key
        state = position(covered=[entry["fields"], []], leader=(key, entry["fields"]), to_move=1)
        assert diagram["envelope"]["state"] == RULES.view(state, None)
        assert set(entry["fields"]) <= set(diagram["focus"])
    big = diagrams["piece-big_slice"]["moves"][0]["fields"]
    assert set(big) <= set(shape_fields("C2")), "the Big Slice is shown inside a Circle"
    assert diagrams["piece-sliver"]["moves"][0]["fields"][0] >= 155


def test_the_first_piece_covers_the_centre_and_the_next_touches_the_leader():
    first = rules_diagrams()["first-piece"]["moves"][0]
    assert set(first["fields"]) & set(shape_fields("S0", "R"))

    follow = rules_diagrams()["follow-leader"]
    envelope = follow["envelope"]
    assert follow["helpers"]
    assert envelope["you"] == envelope["to_move"] == 0
    assert envelope["state"]["leader"]["piece"] == "hook"
    assert envelope["legal_moves"] == [
        RULES.move_to_json(move) for move in RULES.legal_moves(Replay("double").states[2])
    ]


def test_the_free_turns():
    assert {"type": "free_turn", "seat": 1, "reason": "filled"} in events_of("free-filled-after")
    assert completed("free-filled-after")["C7"]["scores"] == {"0": 10, "1": 5}
    before = rules_diagrams()["free-filled-before"]["envelope"]["state"]
    assert before["owners"][148] is None
    assert {"type": "free_turn", "seat": 0, "reason": "center_star"} in events_of(
        "free-center-star"
    )
    assert completed("free-center-star")["S0"]["scores"] == {"0": 10}
    assert {"type": "free_turn", "seat": 0, "reason": "first_sliver"} in events_of("free-sliver")
    for name in ("free-filled-after", "free-center-star", "free-sliver"):
        diagram = rules_diagrams()[name]
        assert diagram["envelope"]["state"]["free_turn"], name
        assert diagram["envelope"]["to_move"] == diagram["moves"][-1]["seat"], name


def test_the_lost_turn():
    envelope = rules_diagrams()["lost-turn"]["envelope"]

    assert {"type": "lost_turn", "seat": 0} in envelope["state"]["last_events"]
    assert envelope["state"]["leader"] == {"seat": 1, "piece": "arrow", "fields": [72]}
    assert envelope["to_move"] == 1


def test_the_scoring_examples():
    assert completed("score-split")["C3"] == {
        "type": "completed",
        "shape": "C3",
        "by": 1,
        "majority": 0,
        "scores": {"0": 10, "1": 5},
    }
    tie = completed("score-tie")["C4"]
    assert tie["majority"] is None
    assert tie["scores"] == {"1": 5}
    owners = rules_diagrams()["score-tie"]["envelope"]["state"]["owners"]
    assert sorted(owners[i] for i in shape_fields("C4")) == [0, 1, 1, 2, 2]
    double = completed("score-double")
    assert double["C3"]["majority"] == 1
    assert double["C3"]["scores"] == {"0": 5, "1": 10}
    assert double["S4"]["majority"] == 0
    assert double["S4"]["scores"] == {"0": 10}
    assert rules_diagrams()["score-double"]["envelope"]["state"]["scores"] == [15, 10]


def test_the_center_ring_option():
    envelope = rules_diagrams()["option-ring"]["envelope"]

    assert envelope["state"]["center_ring"] is True
    assert completed("option-ring")["R"]["scores"] == {"0": 15}
    owners = envelope["state"]["owners"]
    assert [owners[i] for i in shape_fields("R")].count(0) == 6
