"""The authentication backends: Django's and allauth's, with the signed-in user read without
compiling a query.

Every signed-in request asks its session's backend for the user; `ModelBackend.get_user` builds
that query anew each time, which costs several times more CPU than running it
(greycircle.runtime.db_rows). Sessions name the backend that signed them in, so these replace
Django's and allauth's in `AUTHENTICATION_BACKENDS` rather than sit beside them (sessions created
under the old names end, and their users sign in again).
"""

from __future__ import annotations

import functools

from allauth.account import auth_backends
from django.contrib.auth import backends, get_user_model
from django.db import connections, router

from greycircle.runtime.db_rows import ModelColumns


class SessionUserMixin:
    def get_user(self, user_id):
        user = user_by_pk(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None


class ModelBackend(SessionUserMixin, backends.ModelBackend):
    """Sign-in by username and password; the backend a guest's session names."""


class AuthenticationBackend(SessionUserMixin, auth_backends.AuthenticationBackend):
    """allauth's: sign-in by e-mail address, by code, and through allauth's flows."""


def user_by_pk(pk: int):
    """The user `pk`, or None: what `User.objects.filter(pk=pk).first()` gives, for less CPU."""
    model = get_user_model()
    database = router.db_for_read(model)
    connection = connections[database]
    columns, sql = _user_columns_and_sql(database)
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk])
        row = cursor.fetchone()
    return None if row is None else columns.build(row, start=0, connection=connection)


@functools.cache
def _user_columns_and_sql(database: str) -> tuple[ModelColumns, str]:
    connection = connections[database]
    columns = ModelColumns(get_user_model())
    quote = connection.ops.quote_name
    table = quote(columns.alias)
    pk = f"{table}.{quote(columns.model._meta.pk.column)}"
    return columns, f"SELECT {columns.select(connection)} FROM {table} WHERE {pk} = %s"
