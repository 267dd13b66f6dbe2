"""Finished games between people move their players' Glicko-2 ratings, once per game."""

import pytest

from greycircle.games import services
from greycircle.games.services import SeatSpec
from greycircle.ratings.models import PlayerRating, RatingChange
from greycircle.ratings.services import pairwise_results
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

X_WINS = [0, 3, 1, 4, 2]  # X (seat 0) takes the top row


def play(game, cells) -> None:
    for cell in cells:
        game.refresh_from_db()
        player = game.seats.all()[game.to_move].user
        services.move_submit(
            game_id=game.pk, user=player, move={"cell": cell}, expected_version=game.version
        )


def rating(user) -> PlayerRating:
    return PlayerRating.objects.get(user=user, kind="tictactoe")


def test_the_winner_gains_what_the_loser_drops_between_new_players(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    play(game, X_WINS)

    assert rating(alice).rating == pytest.approx(1662.3, abs=0.1)
    assert rating(bob).rating == pytest.approx(1337.7, abs=0.1)
    assert rating(alice).games == rating(bob).games == 1
    assert rating(alice).provisional, "one game is not enough to be trusted"
    change = RatingChange.objects.get(game=game, user=alice)
    assert (change.rating_before, round(change.rating_after, 1)) == (1500, 1662.3)


def test_a_resignation_is_rated_as_a_loss(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    services.game_resign(game_id=game.pk, user=alice)

    assert rating(bob).rating > 1500 > rating(alice).rating


def test_games_against_computers_and_withdrawn_tables_are_not_rated(alice):
    against_computer = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    services.game_resign(game_id=against_computer.pk, user=alice)
    table = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec()])
    services.game_cancel(game_id=table.pk, user=alice)

    assert not PlayerRating.objects.exists()
    assert not RatingChange.objects.exists()


def test_ratings_carry_over_from_game_to_game(alice, bob):
    for _ in range(2):
        game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
        play(game, X_WINS)

    assert rating(alice).games == 2
    first, second = RatingChange.objects.filter(user=alice).order_by("pk")
    assert second.rating_before == first.rating_after
    assert 0 < second.rating_after - second.rating_before < first.rating_after - 1500


def test_several_players_count_as_pairwise_results():
    # Seat 2 won against three: it beats each; the others drew among themselves.
    results = pairwise_results(players=[0, 1, 2, 3], winners=[2])

    assert results[2] == [(0, 1.0), (1, 1.0), (3, 1.0)]
    assert results[0] == [(1, 0.5), (2, 0.0), (3, 0.5)]
    # A shared win is a draw between the winners.
    assert pairwise_results(players=[0, 1, 2], winners=[0, 1])[0] == [(1, 0.5), (2, 1.0)]
