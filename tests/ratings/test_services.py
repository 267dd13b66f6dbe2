"""Finished games between people move their players' Glicko-2 ratings at the game's kind and speed
(live and correspondence apart), once per game — when they were meant to be (not casual) and
really played: every person made a few moves, and the same two accounts have not had their day's
rated games yet. The outcome says whether the game was rated, and why not."""

from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.games import services
from greycircle.games.clocks import TimeControl
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from greycircle.ratings import services as ratings
from greycircle.ratings.models import PlayerRating, RatingChange
from greycircle.ratings.services import pairwise_results
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

X_WINS = [0, 3, 1, 4, 2]  # X (seat 0) takes the top row
O_WINS = [0, 3, 1, 4, 8, 5]  # O (seat 1) takes the middle row with its third move
TWO_EACH = [0, 3, 1, 4]  # then somebody resigns


def play(game, cells) -> None:
    for cell in cells:
        game.refresh_from_db()
        player = game.seats.all()[game.to_move].user
        services.move_submit(
            game_id=game.pk, user=player, move={"cell": cell}, expected_version=game.version
        )


def rating(user, speed="correspondence") -> PlayerRating:
    return PlayerRating.objects.get(user=user, kind="tictactoe", speed=speed)


def live_game(alice, bob, **options):
    return game_started(
        creator=alice,
        kind="tictactoe",
        opponents=[SeatSpec(user=bob)],
        time_control=TimeControl(3, 2),
        **options,
    )


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
    play(game, TWO_EACH)

    services.game_resign(game_id=game.pk, user=alice)

    assert rating(bob).rating > 1500 > rating(alice).rating
    assert outcome_rating(game) == {
        "rated": True,
        "reason": None,
        "detail": "Rated.",
        "changes": [
            {"seat": 0, "before": 1500, "after": 1338},
            {"seat": 1, "before": 1500, "after": 1662},
        ],
    }


def outcome_rating(game) -> dict:
    return Game.objects.get(pk=game.pk).outcome["rating"]


def test_a_game_resigned_before_anybody_played_is_not_rated(alice, bob):
    # Spare accounts farmed a rating from 1500 to 2399 with 180 games resigned at move 0.
    for _ in range(3):
        game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
        services.game_resign(game_id=game.pk, user=bob)

    assert not PlayerRating.objects.exists()
    assert not RatingChange.objects.exists()
    assert outcome_rating(game) == {
        "rated": False,
        "reason": "too_short",
        "detail": "Not rated: a game is rated once every player has made 2 moves.",
        "changes": [],
    }


def test_every_person_must_have_made_the_minimum_of_moves(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    play(game, [0, 3, 1])  # alice has made two moves, bob one

    services.game_resign(game_id=game.pk, user=bob)

    assert outcome_rating(game)["reason"] == "too_short"
    assert not RatingChange.objects.exists()


def test_the_move_that_ends_the_game_counts(alice, bob, monkeypatch):
    monkeypatch.setitem(ratings.RATED_MIN_MOVES_BY_KIND, "tictactoe", 3)
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    play(game, O_WINS)  # bob's third move wins

    assert outcome_rating(game)["rated"] is True
    assert rating(bob).rating > 1500


def test_the_minimum_is_per_kind():
    assert ratings.rated_min_moves("circles") == 2
    assert ratings.rated_min_moves("kingscorner") == 3


def test_a_pair_is_rated_at_most_five_times_a_day(alice, bob, carol):
    for _ in range(ratings.PAIR_RATED_GAMES):
        game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
        play(game, X_WINS)
    assert outcome_rating(game)["rated"] is True
    before = rating(alice).rating

    sixth = game_started(creator=bob, kind="tictactoe", opponents=[SeatSpec(user=alice)])
    play(sixth, X_WINS)

    assert outcome_rating(sixth) == {
        "rated": False,
        "reason": "pair_limit",
        "detail": "Not rated: bob and alice have played 5 rated games against each other in the "
        "last 24 hours, the most that count.",
        "changes": [],
    }
    assert rating(alice).rating == before
    assert RatingChange.objects.filter(game=sixth).count() == 0
    # Each of them is still rated against others, and against each other a day later.
    with_carol = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=carol)])
    play(with_carol, X_WINS)
    assert outcome_rating(with_carol)["rated"] is True
    RatingChange.objects.update(created_at=timezone.now() - timedelta(hours=25))
    next_day = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    play(next_day, X_WINS)
    assert outcome_rating(next_day)["rated"] is True


def test_a_live_game_moves_the_live_rating_and_not_the_correspondence_one(alice, bob):
    play(game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]), X_WINS)
    correspondence = rating(alice).rating

    game = live_game(alice, bob)
    play(game, O_WINS)

    assert rating(alice).rating == correspondence, "the correspondence rating stays"
    assert rating(alice).games == 1
    # A fresh live rating: as if the correspondence game had not been played.
    assert rating(alice, "live").rating == pytest.approx(1337.7, abs=0.1)
    assert rating(bob, "live").rating == pytest.approx(1662.3, abs=0.1)
    assert RatingChange.objects.get(game=game, user=bob).speed == "live"
    assert outcome_rating(game)["changes"] == [
        {"seat": 0, "before": 1500, "after": 1338},
        {"seat": 1, "before": 1500, "after": 1662},
    ]


def test_a_casual_game_is_not_rated(alice, bob):
    game = live_game(alice, bob, rated=False)

    play(game, X_WINS)

    assert outcome_rating(game) == {
        "rated": False,
        "reason": "casual",
        "detail": "Not rated: a casual game.",
        "changes": [],
    }
    assert not PlayerRating.objects.exists()
    assert not RatingChange.objects.exists()


def test_the_pair_limit_counts_both_speeds(alice, bob, monkeypatch):
    # Alternating speeds would otherwise double a pair's rated games a day.
    monkeypatch.setattr(ratings, "PAIR_RATED_GAMES", 1)
    play(game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]), X_WINS)

    game = live_game(alice, bob)
    play(game, X_WINS)

    assert outcome_rating(game)["reason"] == "pair_limit"
    assert not PlayerRating.objects.filter(speed="live").exists()


def test_games_against_computers_and_withdrawn_tables_are_not_rated(alice):
    against_computer = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    services.game_resign(game_id=against_computer.pk, user=alice)
    table = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec()])
    services.game_cancel(game_id=table.pk, user=alice)

    assert not PlayerRating.objects.exists()
    assert not RatingChange.objects.exists()
    assert outcome_rating(against_computer) == {
        "rated": False,
        "reason": "computers",
        "detail": "Not rated: only games between people are rated.",
        "changes": [],
    }


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
