"""How a game that is over ended, in words, for the viewer: won, lost or tied, the score and why."""

import pytest

from greycircle.games.results import GameResult, game_result_for, seat_result

TWO = [{"seat": 0, "name": "alice"}, {"seat": 1, "name": "bob"}]
THREE = [*TWO, {"seat": 2, "name": "carol"}]


def result(outcome, *, you, seats=TWO, kind="circles", status="finished") -> GameResult | None:
    return game_result_for(kind=kind, status=status, outcome=outcome, seats=seats, you=you)


@pytest.mark.parametrize(
    ("you", "expected"),
    [
        (0, GameResult(result="won", text="You won 40-24 on discs", scored=True)),
        (1, GameResult(result="lost", text="You lost 24-40 on discs", scored=True)),
        (None, GameResult(result=None, text="alice won 40-24 on discs", scored=True)),
    ],
)
def test_a_win_from_each_side_with_the_viewers_score_first(you, expected):
    outcome = {"scores": [40, 24], "winners": [0], "reason": "more_discs"}

    assert result(outcome, you=you) == expected


def test_a_spectator_reads_the_winners_score_first():
    outcome = {"scores": [24, 40], "winners": [1], "reason": "more_discs"}

    assert result(outcome, you=None).text == "bob won 40-24 on discs"


def test_a_tie_needs_no_reason():
    outcome = {"scores": [32, 32], "winners": [], "reason": "tie"}

    assert result(outcome, you=1) == GameResult(result="tied", text="Tied 32-32", scored=True)
    assert result(outcome, you=None).text == "Tied 32-32"


def test_a_resignation_names_who_resigned_and_shows_no_score():
    outcome = {"scores": [0, 0], "winners": [0], "reason": "resignation"}

    assert result(outcome, you=1) == GameResult(result="lost", text="You resigned", scored=False)
    assert result(outcome, you=0) == GameResult(
        result="won", text="You won: bob resigned", scored=False
    )
    assert result(outcome, you=None).text == "alice won: bob resigned"


def test_a_resignation_among_three_leaves_the_others_sharing_the_win():
    outcome = {"scores": [0, 0, 0], "winners": [0, 2], "reason": "resignation"}

    assert result(outcome, you=0, seats=THREE, kind="kingscorner") == GameResult(
        result="tied", text="You shared the win with carol: bob resigned", scored=False
    )
    assert (
        result(outcome, you=None, seats=THREE, kind="kingscorner").text
        == "alice and carol shared the win: bob resigned"
    )


def test_a_win_on_time_shows_no_score():
    outcome = {"scores": [0, 0], "winners": [1], "reason": "timeout"}

    assert result(outcome, you=0) == GameResult(
        result="lost", text="You lost on time", scored=False
    )
    assert result(outcome, you=1).text == "You won on time"


def test_each_kind_words_its_own_reasons():
    went_out = {"scores": [0, 17], "winners": [0], "reason": "went_out"}
    target = {"scores": [12, 101], "winners": [1], "reason": "target"}

    assert result(went_out, you=0, kind="kingscorner").text == "You won 0-17 by going out"
    assert result(target, you=0, kind="cirkis").text == "You lost 12-101 by reaching the target"


def test_a_win_at_an_equal_score_says_it_was_the_tie_break():
    outcome = {"scores": [0, 0], "winners": [0], "reason": "blocked"}

    assert result(outcome, you=1, kind="cirkis").text == "You lost 0-0 on the tie-break"


def test_more_than_two_seats_leave_the_scores_beside_the_names():
    outcome = {"scores": [3, 0, 9], "winners": [1], "reason": "went_out"}

    assert result(outcome, you=2, seats=THREE, kind="kingscorner") == GameResult(
        result="lost", text="You lost to bob by going out", scored=True
    )


def test_a_reason_the_kind_does_not_word_is_left_out(tictactoe):
    outcome = {"scores": [1, 0], "winners": [0], "reason": "line"}

    assert result(outcome, you=0, kind="tictactoe").text == "You won 1-0"
    assert result(outcome, you=0, kind="retired").text == "You won 1-0"


def test_an_aborted_game_says_why_and_games_not_over():
    assert result({"reason": "staff"}, you=0, status="aborted") == GameResult(
        result=None, text="Stopped by the staff", scored=False
    )
    late = {"reason": "no_first_move", "seat": 1}
    assert result(late, you=0, status="aborted") == GameResult(
        result=None, text="Aborted: bob did not make a first move in time", scored=False
    )
    assert result(late, you=1, status="aborted").text == (
        "Aborted: you did not make a first move in time"
    )
    assert result(None, you=0, status="aborted").text == "Aborted"  # aborted before it was kept
    for status in ("open", "active", "cancelled"):
        assert result(None, you=0, status=status) is None


@pytest.mark.parametrize(
    ("winners", "seat", "expected"),
    [([0], 0, "won"), ([0], 1, "lost"), ([], 0, "tied"), ([0, 1], 1, "tied"), ([0, 1], 2, "lost")],
)
def test_seat_result(winners, seat, expected):
    assert seat_result(seat=seat, outcome={"winners": winners}) == expected
