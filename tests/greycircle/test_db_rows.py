"""Instances built from hand-written SQL are the instances the ORM builds from the same rows."""

import pytest
from django.db import connections

from accounts.models import User
from greycircle.db_rows import ModelColumns
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

# The wrapper itself (not the `connection` proxy), as the hot paths pass it.
connection = connections["default"]


def fetched(model, pk: int):
    columns = ModelColumns(model)
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns.select(connection)} FROM {quote(columns.alias)} WHERE id = %s", [pk]
        )
        row = cursor.fetchone()
    return columns.build(row, start=0, connection=connection)


def field_values(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.fields}


def test_a_user_reads_as_the_orm_reads_it(alice):
    built = fetched(User, alice.pk)
    from_orm = User.objects.get(pk=alice.pk)
    assert field_values(built) == field_values(from_orm)
    assert built.date_joined.tzinfo is not None  # datetimes converted as the ORM converts them
    assert built._state.adding is False
    assert built._state.db == "default"


def test_a_game_reads_with_its_json_and_dates_decoded(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    built = fetched(Game, game.pk)
    from_orm = Game.objects.get(pk=game.pk)
    assert field_values(built) == field_values(from_orm)
    assert isinstance(built.state, dict)
    assert built.state == from_orm.state
    assert built.move_deadline is not None
    assert built.move_deadline == from_orm.move_deadline


def test_a_row_slice_is_read_from_its_own_offset(alice, bob):
    columns = ModelColumns(User)
    row = ("padding", *[getattr(bob, field.attname) for field in columns.fields])
    assert columns.build(row, start=1, connection=connection).username == "bob"
