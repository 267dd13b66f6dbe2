"""Fixtures of every test.

Library seam (UPGRADING.md, "Django", "django-tasks-db"): Django==5.2.19, django-tasks-db==0.13.0.
The flush that ends a transactional test is patched: `flush.Command.handle` is retried on a race
with a writer still running (the error's `__cause__` text), and the `sql_flush` and
`emit_post_migrate_signal` that `django.core.management.commands.flush` imported, and PostgreSQL's
`DatabaseOperations.sql_flush`, are replaced. Why: no post_migrate (≈0.1 s) and no TRUNCATE of ~45
tables (≈0.2 s) after each transactional test: a subset of them took 34 s on PostgreSQL instead of
59 s (commit 15079c3). `run_tasks` and `deliver_notifications` run django-tasks-db's
`db_worker.Worker` in batch mode.
"""

import os
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock
from urllib.parse import urlsplit, urlunsplit

import pytest
from asgiref.sync import sync_to_async
from django.core.management.base import CommandError
from django.core.management.commands import flush
from django.db import connection, connections
from django.test import Client
from django_tasks_db.management.commands.db_worker import Worker
from rest_framework.test import APIClient

from greycircle.games import registry
from tests.factories import UserFactory
from tests.games.tictactoe import GAME_KIND as TICTACTOE


def _redis_of_this_worker() -> None:
    """Under pytest-xdist (`make test` runs two workers), give each worker its own Redis
    database when REDIS_URL is set: worker gwN uses database N + 1 of the same server.

    Each worker has its own test database, whose ids start at 1 in both, so on one shared Redis
    database their sockets' groups (`game-1`, `user-1`) would get each other's frames, and one
    worker's `cache.clear()` (FLUSHDB, before and after every test) would empty the other's cache
    and channel layer mid-test. Run here, at the first conftest's import: after pytest-django has
    loaded the settings, before any cache or channel layer is made. The environment is changed
    too, since child processes (tests/asgi_server.py, the task worker's) read REDIS_URL.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    url = os.environ.get("REDIS_URL", "")
    if not (worker.startswith("gw") and url):
        return
    from django.conf import settings

    from greycircle.settings import redis_settings

    parts = urlsplit(url)
    url = urlunsplit(parts._replace(path=f"/{int(worker[2:]) + 1}"))
    os.environ["REDIS_URL"] = url
    settings.REDIS_URL = url
    for name, value in redis_settings(url).items():
        setattr(settings, name, value)


_redis_of_this_worker()

FLUSH_ATTEMPTS = 5
# How a writer still running can make the flush fail (see below).
FLUSH_RACES = ("deadlock", "violates foreign key constraint")


@pytest.fixture(autouse=True, scope="session")
def _flush_survives_writers_still_running() -> Iterator[None]:
    """Retry the database flush that ends a transactional test when a writer still running made
    it fail.

    Live servers and task workers that tests start keep running between tests (a computer
    still finishing its turn, a page's last request). Against TRUNCATE, which takes its table
    locks one at a time, such a writer can deadlock, and PostgreSQL aborts one side. Against the
    DELETEs of `_quick_flush`, it can add a row (a move) that points to a row the flush has
    deleted (its game), and the foreign key check at commit fails. Either way the flush's
    transaction was rolled back whole, so trying it again is safe.
    """
    original = flush.Command.handle

    def handle(self, *args, **options):
        for attempt in range(1, FLUSH_ATTEMPTS + 1):
            try:
                return original(self, *args, **options)
            except CommandError as error:
                raced = any(race in str(error.__cause__) for race in FLUSH_RACES)
                if attempt == FLUSH_ATTEMPTS or not raced:
                    raise
                time.sleep(0.2 * attempt)
        return None

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flush.Command, "handle", handle)
        yield


# Content types and permissions are the same in every test: rows the migrations made.
KEPT_BY_FLUSH = frozenset({"django_content_type", "auth_permission"})


def _post_flush_rows_made(verbosity, interactive, db, **kwargs) -> None:
    """What `post_migrate` would make again after a flush, but for the content types and
    permissions the flush kept: the Moderators group (greycircle.moderation.permissions)."""
    from greycircle.moderation.permissions import moderators_group_ensure

    moderators_group_ensure(using=db)


@pytest.fixture(autouse=True, scope="session")
def _quick_flush() -> Iterator[None]:
    """Empty the tables after a transactional test in milliseconds rather than a third of a second.

    Django's flush empties every table, then sends `post_migrate` so that content types and
    permissions are made again (≈0.1 s, after every transactional test), and on PostgreSQL it
    TRUNCATEs, which gives each of the ~45 tables new files (≈0.2 s). This flush keeps the
    content types and permissions (KEPT_BY_FLUSH), so there is nothing to make again, and on
    PostgreSQL DELETEs the few rows a test leaves: foreign keys are checked at commit (Django makes
    them DEFERRABLE INITIALLY DEFERRED) and the flush is one transaction, so order does not matter.
    Of what `post_migrate` makes, only the Moderators group is not kept: it is made again
    (`_post_flush_rows_made`), as every migration makes sure of it in production.
    """
    from django.db.backends.postgresql.operations import DatabaseOperations

    def sql_flush(style, connection, reset_sequences=True, allow_cascade=False):
        tables = connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
        return connection.ops.sql_flush(
            style,
            [table for table in tables if table not in KEPT_BY_FLUSH],
            reset_sequences=reset_sequences,
            allow_cascade=allow_cascade,
        )

    truncate = DatabaseOperations.sql_flush

    def postgresql_sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade or not tables:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [" ".join(f"DELETE FROM {self.quote_name(table)};" for table in tables)]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flush, "sql_flush", sql_flush)
        patch.setattr(flush, "emit_post_migrate_signal", _post_flush_rows_made)
        patch.setattr(DatabaseOperations, "sql_flush", postgresql_sql_flush)
        yield


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    from django.core.cache import cache

    from greycircle.api.throttling import rate_leases

    cache.clear()
    rate_leases.forget()  # units leased from the counters just emptied
    yield
    cache.clear()
    rate_leases.forget()


@pytest.fixture
def rate_window_still(monkeypatch) -> None:
    """The API's rate limits (greycircle.api.throttling) count per fixed window of each rate's
    duration: a test that counts its requests up to a limit holds the limits' clock at the start
    of a window, so that its requests never straddle two windows (which would let up to twice
    the rate through), however long a busy machine takes to make them."""
    from greycircle.api.throttling import RateLimits

    window_start = 3600.0 * 24 * 365  # the start of a minute, an hour and a day
    monkeypatch.setattr(RateLimits, "timer", lambda self: window_start)


# How long a test's in-process socket or request waits for the application before it fails.
COMMUNICATOR_TIMEOUT = 30


@pytest.fixture(autouse=True, scope="session")
def _communicators_wait_for_a_busy_machine() -> Iterator[None]:
    """Channels' and asgiref's test communicators wait 1 s by default for a frame, an accept, a
    response or the application's end: on a machine whose cores are busy, a socket's first frame
    (a few queries on another thread) can take longer. A wait ends as soon as what it waits for
    arrives, so a long default costs nothing and a hang still fails. (`receive_nothing` keeps
    its own: it waits out its whole timeout.)"""
    from asgiref.testing import ApplicationCommunicator
    from channels.testing import HttpCommunicator, WebsocketCommunicator

    with pytest.MonkeyPatch.context() as patch:
        for method in (
            ApplicationCommunicator.receive_output,
            ApplicationCommunicator.wait,
            WebsocketCommunicator.connect,
            WebsocketCommunicator.receive_from,
            WebsocketCommunicator.receive_json_from,
            HttpCommunicator.get_response,
        ):
            patch.setattr(method, "__defaults__", (COMMUNICATOR_TIMEOUT,))
        patch.setattr(
            WebsocketCommunicator.disconnect, "__defaults__", (1000, COMMUNICATOR_TIMEOUT)
        )
        yield


@pytest.fixture
async def close_thread_connections():
    """Close, after an async test, the database connections its sync_to_async thread opened.

    Left open, they outlive the test: they keep the test database busy at teardown and are
    inherited by the forked live server of the browser tests.
    """
    yield
    await sync_to_async(connections.close_all)()
    # And those that the sockets' threads keep (greycircle.socket_threads, CONN_MAX_AGE > 0).
    from greycircle.socket_threads import executor

    await sync_to_async(executor.close_connections, thread_sensitive=False)()


@pytest.fixture
def tictactoe() -> Iterator[registry.GameKind]:
    """Tic-tac-toe registered as a game kind, for testing the platform on its own."""
    registry.register(TICTACTOE)
    yield TICTACTOE
    registry.unregister(TICTACTOE.kind)


@pytest.fixture
def user_factory():
    return UserFactory


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def carol(db):
    return UserFactory(username="carol")


@pytest.fixture
def staff(db):
    """A member of staff with every permission (a superuser)."""
    return UserFactory(username="staffer", is_staff=True, is_superuser=True)


@pytest.fixture
def admin_client(staff):
    """Django's test client, signed in to the admin as `staff`."""
    client = Client()
    client.force_login(staff)
    return client


@pytest.fixture
def client_for():
    """An API client signed in (by session) as the given user."""

    def make(user) -> APIClient:
        client = APIClient()
        client.force_login(user)
        return client

    return make


@pytest.fixture
def run_tasks():
    """Run every queued task to completion, as `manage.py games_worker --batch` would.

    It drives django-tasks-db's worker directly, so it also works off the main thread (where the
    command could not install its signal handlers).
    """

    def run() -> None:
        _batch_worker().run()

    return run


def _batch_worker() -> Worker:
    """django-tasks-db's worker over every queue, ending when the queues are empty."""
    return Worker(
        queue_names=["*"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="tests",
        excluded_queue_names=[],
    )


@pytest.fixture
def deliver_notifications():
    """Run the queued notification tasks (greycircle.notifications.tasks.notifications_send), oldest
    first, through the worker's own `run_task`: keep each player's notifications and tell their
    streams. Computer turns (which the worker would run first) stay queued."""

    def run() -> None:
        from django_tasks_db.models import DBTaskResult

        from greycircle.notifications.tasks import notifications_send

        queued = DBTaskResult.objects.ready().filter(task_path=notifications_send.module_path)
        worker = _batch_worker()
        for row in queued.order_by("enqueued_at"):
            row.claim(worker.worker_id)
            if connection.in_atomic_block:
                # A test in a transaction (`django_db` without `transaction=True`): the worker's
                # close_old_connections() would close the connection under it (its autocommit is
                # off), as Django's test client avoids for requests.
                with mock.patch(
                    "django_tasks_db.management.commands.db_worker.close_old_connections"
                ):
                    worker.run_task(row)
            else:
                worker.run_task(row)

    return run


def pytest_sessionfinish(session, exitstatus) -> None:
    """Remove this run's SQLite side files (WAL and shared memory) from the temp dir.

    Django drops the test database itself; connections that threads opened may leave the WAL and
    shared-memory files behind.
    """
    from django.conf import settings

    test_name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3") and test_name:
        for suffix in ("-wal", "-shm", "-journal"):
            Path(f"{test_name}{suffix}").unlink(missing_ok=True)
