"""Model instances from hand-written SQL, for the few queries every request runs.

Django compiles a queryset's SQL again each time it runs it, and on the hot paths that costs more
CPU than the query: ≈0.2 ms for a user by primary key, ≈0.5 ms for a game joined to its seats
and their users, against ≈0.04 ms to run the same SQL and build the same instances
(bench/README.md, "Server CPU per request"). `ModelColumns` writes a model's select list once and
turns a row's slice back into an instance exactly as the ORM does: the backend's and the fields'
converters, then `Model.from_db`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper

ModelT = TypeVar("ModelT", bound=models.Model)
Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]


class ModelColumns(Generic[ModelT]):
    """Every concrete column of `model`, selected from the table or join alias `alias`."""

    def __init__(self, model: type[ModelT], alias: str | None = None) -> None:
        self.model = model
        self.alias = alias or model._meta.db_table
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
