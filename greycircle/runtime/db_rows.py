"""Model rows read and written by SQL written once, for the few queries every move runs.

Library seam (UPGRADING.md, "Django"): Django==5.2.19. Outside Django's documented API it uses
`Model._meta.concrete_fields`, `local_concrete_fields` and `auto_field`, `Field.get_col`, the
compiler's converter step (`connection.ops.get_db_converters` and the column's
`get_db_converters`), `instance._state`, `connection.vendor`,
`features.can_return_columns_from_insert` and `ops.last_insert_id`, and repeats what
`Model.save_base` does around an INSERT or UPDATE. Every one of these names is in Django 6.0 and
6.1 too (checked on 6.1.3: tests/greycircle/runtime/test_db_rows.py passes; UPGRADING.md, "Path to
Python 3.12 / Django 6"); the INSERT's `RETURNING` clause is written here, since Django renamed
the method that writes it (`ops.return_insert_columns` in 5.2, `ops.returning_columns` in 6.0),
and an UPDATE that finds no row raises what `save()` raises (`DatabaseError`; since 6.0 the
model's `NotUpdated`, a subclass). Why: compiling costs ≈0.2 ms of CPU for a user by primary key
and ≈0.5 ms for a game with its seats, against ≈0.04 ms for SQL written once; with it a move costs
5.1 ms of CPU on PostgreSQL + Redis and 3.25 ms on SQLite (commits 719df64, 8615f55).

Django compiles a query's SQL again each time it runs it, and on the hot paths that costs more
CPU than the query: ≈0.2 ms for a user by primary key, ≈0.5 ms for a game joined to its seats
and their users, against ≈0.04 ms to run the same SQL and build the same instances
(bench/README.md, "Server CPU per request"); an INSERT or UPDATE through `save()` is much the
same. `ModelColumns` writes a model's select list once and turns a row's slice back into an
instance exactly as the ORM does (the backend's and the fields' converters, then
`Model.from_db`); `row_insert` and `row_update` write an instance as `save()` does: its
`pre_save` and `post_save` signals around, each field's `pre_save` (so `auto_now` fields are set)
and `get_db_prep_save`; `row_update_and_insert` writes a move's two rows (its game's UPDATE, its
log entry's INSERT) in one statement on PostgreSQL, one round trip fewer a move.

On PostgreSQL the move's two statements (its locked read, greycircle.games.models, and its write)
are prepared once per database session (`execute_prepared`): parsing and planning them was most
of the database's CPU for a move (the locked read: ≈330 µs a transaction sent as text against
≈110-180 µs prepared, pgbench on this machine; bench/README.md, "Moves over the socket"). The
statement's first use in a session sends `PREPARE` and `EXECUTE` in one query, so a move costs
the same round trips and the same number of queries from its first to its last. Named prepared
statements belong to a session: they need a direct connection to PostgreSQL or a pooler in
session mode (a transaction-mode pooler would hand them to other clients): behind one, set
DATABASE_PREPARED_STATEMENTS=0 and every statement is sent as text.
"""

from __future__ import annotations

import functools
import hashlib
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import DatabaseError, connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.signals import post_save, pre_save

ModelT = TypeVar("ModelT", bound=models.Model)
# The backends whose INSERT ... RETURNING is plain SQL that we write ourselves.
_RETURNING_VENDORS = frozenset({"postgresql", "sqlite"})
Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]


class ModelColumns(Generic[ModelT]):
    """Every concrete column of `model`, selected from its table (`alias` in the SQL)."""

    def __init__(self, model: type[ModelT]) -> None:
        self.model = model
        self.alias = model._meta.db_table
        self.fields = list(model._meta.concrete_fields)
        self.attnames = [field.attname for field in self.fields]
        self.width = len(self.fields)
        # Converters are bound to a connection's operations, and there is a connection per
        # thread: each gets its own list, dropped with it.
        self._converters: weakref.WeakKeyDictionary[
            BaseDatabaseWrapper, list[tuple[int, Any, list[Converter]]]
        ] = weakref.WeakKeyDictionary()

    def select(self, connection: BaseDatabaseWrapper) -> str:
        quote = connection.ops.quote_name
        return ", ".join(f"{quote(self.alias)}.{quote(field.column)}" for field in self.fields)

    def build(self, row: Sequence[Any], *, start: int, connection: BaseDatabaseWrapper) -> ModelT:
        """The instance whose columns are `row[start:start + width]`."""
        values = list(row[start : start + self.width])
        for index, column, converters in self._converters_for(connection):
            value = values[index]
            for converter in converters:
                value = converter(value, column, connection)
            values[index] = value
        return self.model.from_db(connection.alias, self.attnames, values)

    def _converters_for(
        self, connection: BaseDatabaseWrapper
    ) -> list[tuple[int, Any, list[Converter]]]:
        found = self._converters.get(connection)
        if found is None:
            found = []
            for index, field in enumerate(self.fields):
                column = field.get_col(self.alias)
                converters = connection.ops.get_db_converters(column) + column.get_db_converters(
                    connection
                )
                if converters:
                    found.append((index, column, converters))
            self._converters[connection] = found
        return found


def row_insert(instance: models.Model) -> None:
    """INSERT `instance` as `instance.save()` would a new one; its primary key is set after."""
    model = type(instance)
    database = router.db_for_write(model, instance=instance)
    connection = connections[database]
    pre_save.send(sender=model, instance=instance, raw=False, using=database, update_fields=None)
    sql, fields, returned = _insert_sql(model, database, instance.pk is not None)
    values = [
        field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        if returned is not None:
            if _returns_from_insert(connection):
                pk = cursor.fetchone()[0]
            else:
                pk = connection.ops.last_insert_id(cursor, model._meta.db_table, returned.column)
            setattr(instance, returned.attname, pk)
    instance._state.adding = False
    instance._state.db = database
    post_save.send(
        sender=model, instance=instance, created=True, update_fields=None, raw=False, using=database
    )


def row_update(instance: models.Model, fields: Sequence[str]) -> None:
    """UPDATE the columns of `fields` (names) of the saved `instance`, as
    `instance.save(update_fields=fields)` would."""
    model = type(instance)
    database = router.db_for_write(model, instance=instance)
    connection = connections[database]
    names = frozenset(fields)
    pre_save.send(sender=model, instance=instance, raw=False, using=database, update_fields=names)
    sql, to_write = _update_sql(model, database, tuple(fields))
    values = [
        field.get_db_prep_save(field.pre_save(instance, False), connection) for field in to_write
    ]
    pk_field = model._meta.pk
    values.append(pk_field.get_db_prep_value(instance.pk, connection))
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        if cursor.rowcount != 1:
            # What save() raises: the model's NotUpdated since Django 6.0 (a DatabaseError).
            not_updated = getattr(model, "NotUpdated", DatabaseError)
            raise not_updated("Save with update_fields did not affect any rows.")
    post_save.send(
        sender=model,
        instance=instance,
        created=False,
        update_fields=names,
        raw=False,
        using=database,
    )


def row_update_and_insert(updated: models.Model, fields: Sequence[str], new: models.Model) -> None:
    """`row_update(updated, fields)`, then `row_insert(new)`: on PostgreSQL in one statement (the
    UPDATE in a `WITH`), one round trip fewer for every move; elsewhere (SQLite's `WITH` takes no
    UPDATE) in two. The same signals around, the same error if `updated`'s row is gone (then
    nothing is inserted: the caller's transaction rolls back on it)."""
    update_model, insert_model = type(updated), type(new)
    database = router.db_for_write(update_model, instance=updated)
    connection = connections[database]
    if (
        connection.vendor != "postgresql"
        or router.db_for_write(insert_model, instance=new) != database
        or not _returns_from_insert(connection)
    ):
        row_update(updated, fields)
        row_insert(new)
        return
    names = frozenset(fields)
    pre_save.send(
        sender=update_model, instance=updated, raw=False, using=database, update_fields=names
    )
    pre_save.send(sender=insert_model, instance=new, raw=False, using=database, update_fields=None)
    update_sql, to_write = _update_sql(update_model, database, tuple(fields))
    insert_sql, to_insert, returned = _insert_sql(insert_model, database, new.pk is not None)
    values = [
        field.get_db_prep_save(field.pre_save(updated, False), connection) for field in to_write
    ]
    values.append(update_model._meta.pk.get_db_prep_value(updated.pk, connection))
    values += [field.get_db_prep_save(field.pre_save(new, True), connection) for field in to_insert]
    # The INSERT's row comes back with how many rows the UPDATE changed.
    counted = "(SELECT count(*) FROM updated)"
    returning = f", {counted}" if returned is not None else f" RETURNING {counted}"
    with connection.cursor() as cursor:
        execute_prepared(
            connection,
            cursor,
            _update_and_insert_sql(update_sql, insert_sql, returning),
            values,
        )
        row = cursor.fetchone()
    if row[-1] != 1:
        not_updated = getattr(update_model, "NotUpdated", DatabaseError)
        raise not_updated("Save with update_fields did not affect any rows.")
    if returned is not None:
        setattr(new, returned.attname, row[0])
    new._state.adding = False
    new._state.db = database
    post_save.send(
        sender=update_model,
        instance=updated,
        created=False,
        update_fields=names,
        raw=False,
        using=database,
    )
    post_save.send(
        sender=insert_model,
        instance=new,
        created=True,
        update_fields=None,
        raw=False,
        using=database,
    )


def execute_prepared(
    connection: BaseDatabaseWrapper, cursor: Any, sql: str, params: Sequence[Any]
) -> None:
    """`cursor.execute(sql, params)`; on PostgreSQL as a statement prepared once per database
    session (`PREPARE`, then `EXECUTE` with the parameters), so that PostgreSQL parses and plans
    it once rather than for every call. `sql` is one statement with `%s` placeholders only.

    Its first use on a session sends both in one query (client-side binding, which Django uses
    unless the database's OPTIONS ask for `server_side_binding`, takes several statements; psycopg
    then plans and prepares on its own, and this runs `sql` as it is). The cursor is left on the
    EXECUTE's rows. If that first query fails (a unique key refused the row, say), whether the
    PREPARE took is not known: the next use prepares the statement under another name, on its
    own first, so a client that keeps failing leaves at most one stray statement per session."""
    if (
        connection.vendor != "postgresql"
        or not settings.DATABASE_PREPARED_STATEMENTS
        or connection.settings_dict["OPTIONS"].get("server_side_binding")
    ):
        cursor.execute(sql, params)
        return
    session = _prepared_session(connection)
    name = session.names.get(sql)
    if name is not None:
        cursor.execute(_execute_sql(name, sql), params)
        return
    name = f"{_statement_name(sql)}_{session.generation}"
    prepare = f"PREPARE {name} AS {_numbered(sql)}"
    if session.failed:
        # A first use failed before: prepare on its own, so it is known to be prepared.
        cursor.execute(prepare)
        session.names[sql] = name
        cursor.execute(_execute_sql(name, sql), params)
        return
    try:
        cursor.execute(f"{prepare}; {_execute_sql(name, sql)}", params)
    except BaseException:
        session.generation += 1
        session.failed = True
        raise
    session.names[sql] = name
    cursor.nextset()  # the EXECUTE's result, after the PREPARE's


class _PreparedSession:
    """The statements prepared on one database session (a DB-API connection), by their SQL."""

    def __init__(self, raw: Any) -> None:
        self.raw = weakref.ref(raw)
        self.names: dict[str, str] = {}
        self.generation = 0
        self.failed = False


def _prepared_session(connection: BaseDatabaseWrapper) -> _PreparedSession:
    """What this thread's connection has prepared; a new session (reconnected) has nothing."""
    raw = connection.connection
    session = connection.__dict__.get("_greycircle_prepared")
    if session is None or session.raw() is not raw:
        session = connection.__dict__["_greycircle_prepared"] = _PreparedSession(raw)
    return session


@functools.cache
def _statement_name(sql: str) -> str:
    # Named after the SQL: a name means one statement, whichever code prepared it.
    return "gc_" + hashlib.blake2b(sql.encode(), digest_size=8).hexdigest()


@functools.cache
def _numbered(sql: str) -> str:
    """`sql` with PostgreSQL's `$1, $2, ...` for its `%s` placeholders (PREPARE's form)."""
    if "%%" in sql or "%(" in sql:
        raise ValueError("execute_prepared takes %s placeholders only")
    first, *rest = sql.split("%s")
    return first + "".join(f"${number}{part}" for number, part in enumerate(rest, start=1))


@functools.cache
def _execute_sql(name: str, sql: str) -> str:
    count = sql.count("%s")
    return f"EXECUTE {name}" + (f"({', '.join(['%s'] * count)})" if count else "")


@functools.cache
def _update_and_insert_sql(update_sql: str, insert_sql: str, returning: str) -> str:
    return f"WITH updated AS ({update_sql} RETURNING 1) {insert_sql}{returning}"


@functools.cache
def _insert_sql(
    model: type[models.Model], database: str, with_pk: bool
) -> tuple[str, list[models.Field], models.Field | None]:
    """The INSERT of `model` on `database`, its fields in order, and the field it returns (an
    automatic primary key the instance lacks), if any."""
    connection = connections[database]
    quote = connection.ops.quote_name
    meta = model._meta
    returned = meta.auto_field if not with_pk else None
    fields = [field for field in meta.local_concrete_fields if field is not returned]
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    if returned is not None and _returns_from_insert(connection):
        sql = f"{sql} RETURNING {quote(meta.db_table)}.{quote(returned.column)}"
    return sql, fields, returned


def _returns_from_insert(connection: BaseDatabaseWrapper) -> bool:
    """Whether the INSERT reads the new key back with `RETURNING <table>.<column>`: the clause
    Django writes itself on PostgreSQL and SQLite (`ops.return_insert_columns` in 5.2,
    `ops.returning_columns` since 6.0, the same SQL). Other databases read it with
    `ops.last_insert_id` (Oracle's RETURNING needs an out parameter)."""
    return (
        connection.vendor in _RETURNING_VENDORS
        and connection.features.can_return_columns_from_insert
    )


@functools.cache
def _update_sql(
    model: type[models.Model], database: str, names: tuple[str, ...]
) -> tuple[str, list[models.Field]]:
    connection = connections[database]
    quote = connection.ops.quote_name
    meta = model._meta
    fields = [meta.get_field(name) for name in names]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    return (
        f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s",
        fields,
    )
