"""Rows read and written by SQL written once are the rows and instances the ORM reads and writes."""

import pytest
from django.db import DatabaseError, IntegrityError, connections, transaction
from django.db.models.signals import post_save, pre_save
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from greycircle.games.models import Game, Move
from greycircle.games.services import SeatSpec
from greycircle.runtime.db_rows import (
    ModelColumns,
    execute_prepared,
    row_insert,
    row_update,
    row_update_and_insert,
)
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


def test_an_inserted_row_is_what_save_would_have_written(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    entry = Move(game=game, number=1, seat=0, player=alice, data={"cell": 4}, public={"x": [1]})
    row_insert(entry)
    assert entry.pk is not None
    assert entry._state.adding is False
    stored = Move.objects.get(pk=entry.pk)
    assert field_values(stored) == field_values(entry)
    assert stored.created_at is not None  # auto_now_add, set as save() sets it


def test_an_insert_reads_its_new_key_back_in_the_same_statement(alice, bob):
    # The RETURNING clause is written here, not asked of Django's backend operations (whose
    # method for it was renamed in Django 6.0): one statement, and the key the database gave.
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    entries = [Move(game=game, number=n, seat=0, player=alice, data={}, public={}) for n in (1, 2)]
    with CaptureQueriesContext(connection) as queries:
        for entry in entries:
            row_insert(entry)
    assert len(queries) == 2
    assert all("RETURNING" in query["sql"] for query in queries)
    assert sorted(Move.objects.filter(game=game).values_list("pk", flat=True)) == [
        entry.pk for entry in entries
    ]


def test_an_update_writes_only_the_named_fields_and_touches_auto_now(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    before = game.updated_at
    game.state = {"changed": True}
    game.move_count = 99  # not among the fields written
    row_update(game, ["state", "updated_at"])
    stored = Game.objects.get(pk=game.pk)
    assert stored.state == {"changed": True}
    assert stored.move_count == 0
    assert stored.updated_at > before


def test_an_update_of_a_row_that_is_gone_fails_as_save_does(alice, bob):

    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    Game.objects.filter(pk=game.pk).delete()
    with pytest.raises(DatabaseError) as by_save, transaction.atomic():
        game.save(update_fields=["state"])  # (it marks its transaction for rollback)
    with pytest.raises(DatabaseError, match="did not affect any rows") as by_row_update:
        row_update(game, ["state"])
    # The same class: DatabaseError on Django 5.2, the model's NotUpdated since 6.0.
    assert type(by_row_update.value) is type(by_save.value)


def test_inserts_and_updates_send_the_model_signals(alice, bob):

    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    heard = []

    def listen(signal_name):
        def receiver(sender, instance, update_fields, **kwargs):
            heard.append((signal_name, instance.pk, update_fields))

        return receiver

    on_pre, on_post = listen("pre"), listen("post")
    pre_save.connect(on_pre, sender=Game)
    post_save.connect(on_post, sender=Game)
    try:
        row_update(game, ["state"])
    finally:
        pre_save.disconnect(on_pre, sender=Game)
        post_save.disconnect(on_post, sender=Game)
    assert heard == [("pre", game.pk, {"state"}), ("post", game.pk, {"state"})]


def test_a_move_writes_its_game_and_its_log_entry_in_one_statement_on_postgresql(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    before = game.updated_at
    game.state = {"moved": True}
    game.move_count = 1
    entry = Move(game=game, number=1, seat=0, player=alice, data={"cell": 4}, public={"x": [1]})
    with CaptureQueriesContext(connection) as queries:
        row_update_and_insert(game, ["state", "move_count", "updated_at"], entry)
    # SQLite's WITH takes no UPDATE: there it is the two statements.
    assert len(queries) == (1 if connection.vendor == "postgresql" else 2)
    stored = Game.objects.get(pk=game.pk)
    assert (stored.state, stored.move_count) == ({"moved": True}, 1)
    assert stored.updated_at > before
    assert entry.pk is not None
    assert entry._state.adding is False
    assert field_values(Move.objects.get(pk=entry.pk)) == field_values(entry)


def test_a_move_on_a_game_that_is_gone_fails_as_save_does_and_inserts_nothing(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    entry = Move(game=game, number=1, seat=0, player=alice, data={}, public={})
    Game.objects.filter(pk=game.pk).delete()
    with pytest.raises(DatabaseError, match="did not affect any rows"), transaction.atomic():
        row_update_and_insert(game, ["state"], entry)
    assert not Move.objects.exists()


def test_a_move_sends_both_rows_signals(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    entry = Move(game=game, number=1, seat=0, player=alice, data={}, public={})
    heard = []

    def receiver(signal_name):
        def heard_of(sender, instance, update_fields, **kwargs):
            heard.append((signal_name, sender.__name__, update_fields))

        return heard_of

    receivers = [
        (signal, receiver(name)) for signal, name in ((pre_save, "pre"), (post_save, "post"))
    ]
    for signal, heard_of in receivers:
        signal.connect(heard_of)
    try:
        row_update_and_insert(game, ["state"], entry)
    finally:
        for signal, heard_of in receivers:
            signal.disconnect(heard_of)
    assert sorted(heard) == [
        ("post", "Game", {"state"}),
        ("post", "Move", None),
        ("pre", "Game", {"state"}),
        ("pre", "Move", None),
    ]


# --- statements prepared once per database session (PostgreSQL) ------------------------------

needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="prepared statements: PostgreSQL (CI has it)"
)
# Tests that begin a new database session close the connection: outside a test's transaction.
new_session = pytest.mark.django_db(transaction=True)


def prepared_statements() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, statement FROM pg_prepared_statements")
        return dict(cursor.fetchall())


def sql_of_game_read() -> str:
    return 'SELECT "id", "version" FROM "games_game" WHERE "id" = %s'


def game_read(pk: int) -> list:
    with connection.cursor() as cursor:
        execute_prepared(connection, cursor, sql_of_game_read(), [pk])
        return cursor.fetchall()


def test_a_statement_runs_as_written_where_it_is_not_prepared(alice, bob):
    # SQLite (and psycopg's own server-side binding) run the SQL as it is; PostgreSQL with
    # client-side binding prepares it: either way the same rows, in one query.
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            assert game_read(game.pk) == [(game.pk, game.version)]
        assert len(queries) == 1


@needs_postgresql
@new_session
def test_a_statement_is_prepared_on_its_first_use_in_a_session_and_executed_after(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    connection.close()  # a new session: nothing prepared yet
    with CaptureQueriesContext(connection) as queries:
        first = game_read(game.pk)
        second = game_read(game.pk)
    assert first == second == [(game.pk, game.version)]
    sent = [query["sql"] for query in queries]
    # One query each: the PREPARE goes with the first EXECUTE.
    assert len(sent) == 2
    assert sent[0].startswith("PREPARE gc_")
    assert "; EXECUTE gc_" in sent[0]
    assert sent[1].startswith("EXECUTE gc_")
    [(name, statement)] = prepared_statements().items()
    assert sent[1] == f"EXECUTE {name}({game.pk})"
    assert f"AS {sql_of_game_read()}" in statement.replace("$1", "%s")


@needs_postgresql
@new_session
def test_a_new_session_prepares_the_statement_again(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    game_read(game.pk)
    connection.close()
    assert prepared_statements() == {}  # the session that had it is gone
    assert game_read(game.pk) == [(game.pk, game.version)]
    assert len(prepared_statements()) == 1


@needs_postgresql
@new_session
def test_a_first_use_that_fails_leaves_the_statement_usable(alice, bob):
    # The INSERT fails on the log's unique (game, number) after its PREPARE may have taken: the
    # next use prepares under another name, on its own, and runs.
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    Move.objects.create(game=game, number=1, seat=0, data={}, public={})
    sql = (
        'INSERT INTO "games_move" ("game_id", "number", "seat", "data", "public", "private", '
        '"idempotency_key", "imported", "created_at") '
        "VALUES (%s, %s, 0, '{}', '{}', '{}', '', false, now()) RETURNING \"number\""
    )
    connection.close()
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        execute_prepared(connection, cursor, sql, [game.pk, 1])
    for number in (2, 3):
        with transaction.atomic(), connection.cursor() as cursor:
            execute_prepared(connection, cursor, sql, [game.pk, number])
            assert cursor.fetchone() == (number,)
    assert sorted(Move.objects.filter(game=game).values_list("number", flat=True)) == [1, 2, 3]
    names = sorted(prepared_statements())
    assert len(names) == 2
    assert names[0].endswith("_0")
    assert names[1].endswith("_1")


@needs_postgresql
def test_a_move_and_the_locked_read_are_prepared_statements(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    captured = []
    for number in (1, 2):
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            locked = Game.objects.locked_with_seats(game.pk)
            locked.move_count = number
            entry = Move(game=locked, number=number, seat=0, player=alice, data={}, public={})
            row_update_and_insert(locked, ["move_count", "updated_at"], entry)
        captured.append([query["sql"][:11] for query in queries if query["sql"][:5] != "BEGIN"])
    # The second move (and every move after it on this session) only executes them.
    assert captured[1] == ["EXECUTE gc_"] * 2
    statements = prepared_statements().values()
    assert any("FOR UPDATE" in statement for statement in statements)
    assert any("WITH updated AS (UPDATE" in statement for statement in statements)
    assert list(Move.objects.filter(game=game).values_list("number", flat=True)) == [1, 2]
    assert Game.objects.get(pk=game.pk).move_count == 2


@needs_postgresql
@new_session
def test_behind_a_transaction_pooler_statements_are_sent_as_text(alice, bob, settings):
    # DATABASE_PREPARED_STATEMENTS=0 (a pooler in transaction mode): nothing is prepared.
    settings.DATABASE_PREPARED_STATEMENTS = False
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    connection.close()
    with CaptureQueriesContext(connection) as queries:
        assert game_read(game.pk) == game_read(game.pk) == [(game.pk, game.version)]
    assert [query["sql"][:6] for query in queries] == ["SELECT", "SELECT"]
    assert prepared_statements() == {}
