"""0011: the indexes no query reads are dropped (a move writes an entry in each index of its
game's row and its log's), and put back when the migration is reversed."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from greycircle.games.models import Game, Move

BEFORE = [("games", "0010_game_takebacks")]
AFTER = [("games", "0011_fewer_indexes")]


def indexed_columns(model) -> list[list[str]]:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, model._meta.db_table)
    return sorted(
        constraint["columns"]
        for constraint in constraints.values()
        if constraint["index"] or constraint["unique"]
    )


@pytest.mark.django_db(transaction=True)
def test_the_unread_indexes_are_dropped_and_come_back_when_reversed():
    after = (indexed_columns(Game), indexed_columns(Move))
    assert ["kind"] not in after[0]
    assert ["status", "kind"] in after[0]  # the open and live lists' index stays
    assert ["game_id"] not in after[1]
    # Lookups of a game's log are served by the unique (game, number) index.
    assert ["game_id", "number"] in after[1]
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        game_indexes, move_indexes = indexed_columns(Game), indexed_columns(Move)
        assert ["kind"] in game_indexes
        assert ["game_id"] in move_indexes
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert (indexed_columns(Game), indexed_columns(Move)) == after
