"""A game read with its seats (one query) is the game `with_seats` would have read."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


def seats_of(game):
    return [(seat.index, seat.user_id, seat.user.username) for seat in game.seats.all()]


def test_a_game_with_seats_reads_as_with_seats_reads_it_in_one_query(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    expected = Game.objects.with_seats().get(pk=game.pk)

    with CaptureQueriesContext(connection) as queries:
        read = Game.objects.get_with_seats(game.pk)
        seats = seats_of(read)
        assert all(seat.game is read for seat in read.seats.all())

    assert len(queries) == 1
    assert seats == seats_of(expected) == [(0, alice.pk, "alice"), (1, bob.pk, "bob")]
    columns = ("kind", "version", "state", "created_at")
    assert [getattr(read, name) for name in columns] == [
        getattr(expected, name) for name in columns
    ]


def test_a_filter_chained_onto_the_seats_asks_for_this_games_seats_only(alice, bob, carol):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    game_started(creator=carol, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    read = Game.objects.get_with_seats(game.pk)

    assert [seat.user_id for seat in read.seats.filter(user=bob)] == [bob.pk]
    assert read.seats.count() == 2


def test_a_game_that_does_not_exist_reads_as_none(db):
    assert Game.objects.get_with_seats(999_999) is None


def test_a_locked_read_inside_a_transaction_is_the_same_game(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    with transaction.atomic():
        locked = Game.objects.locked_with_seats(game.pk)

    assert locked.pk == game.pk
    assert seats_of(locked) == [(0, alice.pk, "alice"), (1, bob.pk, "bob")]
