"""The words of each notification, for every seat of games of two and more players."""

from __future__ import annotations

import pytest

from accounts.models import User
from greycircle.games.models import Game, GameStatus, Seat
from greycircle.notifications.texts import draft_for, game_over_text, names

pytestmark = pytest.mark.usefixtures("tictactoe")

PLAYERS = ["ann", "ben", "cat"]


def table(*, outcome=None, status=GameStatus.FINISHED, computer: bool = False):
    """A three-seat game (not saved): ann, ben and cat, or ann, ben and a computer."""
    game = Game(pk=7, kind="tictactoe", status=status, outcome=outcome)
    seats = []
    for index, name in enumerate(PLAYERS):
        if computer and index == 2:
            seats.append(Seat(game=game, index=index, ai_level="first"))
        else:
            seats.append(Seat(game=game, index=index, user=User(pk=index + 1, username=name)))
    return game, seats


def over(outcome, user_id: int, **options) -> str:
    game, seats = table(outcome=outcome, **options)
    return game_over_text(game, seats, recipient_id=user_id)


def test_names_are_joined_as_a_sentence_does():
    assert names([]) == ""
    assert names(["ann"]) == "ann"
    assert names(["ann", "ben"]) == "ann and ben"
    assert names(["ann", "ben", "cat"]) == "ann, ben and cat"


def test_each_seat_of_a_three_player_game_reads_its_own_result():
    outcome = {"scores": [3, 1, 1], "winners": [0], "reason": "out"}
    assert over(outcome, 1) == "You won against ben and cat at Tic-tac-toe"
    assert over(outcome, 2) == "You lost to ann at Tic-tac-toe"
    assert over(outcome, 3) == "You lost to ann at Tic-tac-toe"


def test_a_shared_win_and_a_tie_of_three():
    shared = {"scores": [2, 2, 0], "winners": [0, 1], "reason": "score"}
    assert over(shared, 1) == "You shared the win with ben at Tic-tac-toe"
    assert over(shared, 2) == "You shared the win with ann at Tic-tac-toe"
    assert over(shared, 3) == "You lost to ann and ben at Tic-tac-toe"
    tie = {"scores": [1, 1, 1], "winners": [], "reason": "score"}
    assert over(tie, 3) == "Tied with ann and ben at Tic-tac-toe"


def test_a_resignation_among_three_names_who_resigned():
    resigned = {"scores": [0, 0, 0], "winners": [0, 2], "reason": "resignation"}
    assert over(resigned, 1) == "You shared the win with cat at Tic-tac-toe: ben resigned"
    assert over(resigned, 2) == "You resigned your game of Tic-tac-toe against ann and cat"


def test_a_computer_is_named_like_any_player():
    outcome = {"scores": [0, 0, 1], "winners": [2], "reason": "out"}
    assert over(outcome, 2, computer=True) == "You lost to Computer (first) at Tic-tac-toe"


def test_an_invitation_to_a_table_of_three_says_who_else_plays():
    game, seats = table(status=GameStatus.OPEN)
    draft = draft_for(
        recipient_id=2, event="invitation", data={"by": "ann"}, game=game, seats=seats
    )
    assert draft.text == "ann invites you to play Tic-tac-toe with cat"
    assert draft.link == "/games/7/"


def test_invitation_answers_are_written_for_the_inviter():
    game, seats = table(status=GameStatus.OPEN)
    expired = draft_for(
        recipient_id=1,
        event="invitation_expired",
        data={"player": "cat"},
        game=game,
        seats=seats,
    )
    assert expired.text == "cat did not answer your invitation to play Tic-tac-toe in time"


def test_an_event_about_a_game_that_is_gone_keeps_nothing():
    assert draft_for(recipient_id=1, event="your_turn", data={"game": 7}) is None
