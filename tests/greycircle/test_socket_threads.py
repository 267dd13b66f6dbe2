"""The sockets' threads (greycircle.socket_threads): a thread with work keeps its database
connection as it is from one call to the next; one that waited for work checks it first."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection, connections

from greycircle import socket_threads
from greycircle.socket_threads import SocketExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def _query() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


@pytest.fixture
def health_checks(monkeypatch) -> list[str]:
    """The health checks (`is_usable`) Django runs on a connection before using it again."""
    checks: list[str] = []
    wrapper = type(connections["default"])
    usable = wrapper.is_usable

    def counted(self) -> bool:
        checks.append(self.alias)
        return usable(self)

    monkeypatch.setattr(wrapper, "is_usable", counted)
    monkeypatch.setitem(connection.settings_dict, "CONN_HEALTH_CHECKS", True)
    return checks


def _run(executor: SocketExecutor, calls: int) -> None:
    for future in [executor.submit(_query) for _ in range(calls)]:
        future.result(timeout=10)


def test_a_busy_thread_checks_its_connection_once_not_before_every_call(health_checks):
    executor = SocketExecutor(1, pause=60)  # each call comes well within the pause
    try:
        _run(executor, 1)  # a new connection: healthy
        _run(executor, 1)  # the next call right after (within the pause)
        _run(executor, 5)  # queued behind each other
        assert health_checks == []
    finally:
        executor.close_connections()
        executor.shutdown()


def test_a_thread_that_waited_for_work_checks_its_connection_first(health_checks, monkeypatch):
    waiting = threading.Event()

    def released() -> None:
        close_old_connections()
        waiting.set()

    # Told when the thread, out of work past its pause, has released its connection to wait.
    monkeypatch.setattr(socket_threads, "close_old_connections", released)
    executor = SocketExecutor(1, pause=0)
    try:
        for _ in range(3):
            waiting.clear()
            _run(executor, 1)
            assert waiting.wait(timeout=10)
        assert len(health_checks) == 2  # the second call and the third; the first connected
    finally:
        executor.close_connections()
        executor.shutdown()
