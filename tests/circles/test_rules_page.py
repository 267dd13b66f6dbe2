"""The Circles rules page's diagrams are positions of real games, and say what the captions say."""

import json

from circles.rules import RULES
from circles.rules_page import (
    CAPTURE_RECORD,
    PASS_RECORD,
    TIE_RECORD,
    WIPEOUT_RECORD,
    rules_context,
    rules_diagrams,
)


def test_every_diagram_is_the_view_of_a_game_replayed_from_its_record():
    diagrams = rules_diagrams()
    json.dumps(diagrams)  # they go into the page as JSON
    records = {
        "start": "",
        "capture-before": CAPTURE_RECORD,
        "capture-after": CAPTURE_RECORD + "c5",
        "pass": PASS_RECORD,
        "wipeout": WIPEOUT_RECORD,
        "tie": TIE_RECORD,
    }
    assert set(diagrams) == set(records)
    for name, record in records.items():
        state = RULES.from_record(record)
        envelope = diagrams[name]["envelope"]
        assert envelope["state"] == RULES.view(state, envelope["you"]), name
        assert envelope["to_move"] == RULES.to_move(state), name
        legal = [RULES.move_to_json(move) for move in RULES.legal_moves(state)]
        assert all(move in legal for move in envelope["legal_moves"]), name


def test_the_start_shows_whites_four_first_moves():
    start = rules_diagrams()["start"]

    assert start["helpers"]
    assert [m["square"] for m in start["envelope"]["legal_moves"]] == ["c5", "d6", "e3", "f4"]
    assert start["envelope"]["state"]["discs"] == [2, 2]


def test_the_capture_flips_four_discs_in_four_directions():
    before = rules_diagrams()["capture-before"]["envelope"]
    after = rules_diagrams()["capture-after"]

    assert before["to_move"] == 0, "white plays c5"
    assert before["legal_moves"] == [{"square": "c5"}]
    assert after["marks"] == ["c4", "d4", "d5", "d6"]
    assert after["envelope"]["state"]["last_move"] == "c5"
    board = after["envelope"]["state"]["board"]
    for square in ["c5", *after["marks"]]:
        assert board[int(square[1]) - 1]["abcdefgh".index(square[0])] == "W", square
    assert rules_context()["capture_moves"] == ["d6", "c4", "c3", "c6", "e3", "e6", "e7", "d3"]


def test_the_pass_is_whites_after_blacks_a6():
    envelope = rules_diagrams()["pass"]["envelope"]

    assert PASS_RECORD.endswith("a6")
    assert envelope["state"]["passed"] == [0]
    assert envelope["to_move"] == 1
    assert [m["square"] for m in envelope["legal_moves"]] == ["c4", "f3"]


def test_the_endings_are_a_wipeout_and_a_tie():
    wipeout = rules_diagrams()["wipeout"]["envelope"]
    tie = rules_diagrams()["tie"]["envelope"]

    assert len(WIPEOUT_RECORD) == 2 * 9
    assert WIPEOUT_RECORD.endswith("b7")
    assert wipeout["outcome"] == {"scores": [13, 0], "winners": [0], "reason": "more_discs"}
    assert len(TIE_RECORD) == 2 * 60
    assert tie["outcome"] == {"scores": [32, 32], "winners": [], "reason": "tie"}
