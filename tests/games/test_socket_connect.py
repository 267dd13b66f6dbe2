"""What opening a socket costs: no wait for the thread of the sync views, and few queries, all on
the sockets' own threads (greycircle.socket_threads)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async
from django.db.backends import utils

from greycircle import socket_threads
from greycircle.asgi import application
from tests.api.socket_frames import FramesChecked
from tests.games.test_consumers import ORIGIN, app_login, signed_in

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]


@pytest.fixture
def game(alice, bob):
    from tests.factories import game_started

    def make():
        from greycircle.games.services import SeatSpec

        return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]).pk

    return sync_to_async(make)


@pytest.fixture
def queries(monkeypatch) -> Iterator[list[tuple[str, str]]]:
    """(thread name, SQL) of every query the process runs, on any thread."""
    seen: list[tuple[str, str]] = []
    original = utils.CursorWrapper._execute_with_wrappers

    def spy(self, sql, *args, **kwargs):
        seen.append((threading.current_thread().name, sql))
        return original(self, sql, *args, **kwargs)

    monkeypatch.setattr(utils.CursorWrapper, "_execute_with_wrappers", spy)
    return seen


async def first_frame(path: str, headers: list[tuple[bytes, bytes]]) -> dict:
    # No timeouts of our own: a socket that waited for the busy thread would wait until the test
    # let it go, and fail the communicators' (generous) waits (tests/conftest.py).
    socket = FramesChecked(application, path, headers=headers)
    assert (await socket.connect())[0]
    frame = await socket.receive_json_from()
    await socket.disconnect()
    return frame


async def test_sockets_connect_while_the_sync_view_thread_is_busy(game, alice, carol):
    """The thread that runs every sync view (and every `sync_to_async` with thread_sensitive)
    is held for the whole test: sockets still authenticate and get their first frame."""
    game_id = await game()
    token = await sync_to_async(app_login)(carol)
    _, cookie = await sync_to_async(signed_in)(alice)
    release = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(release.wait)())
    try:
        hello = await first_frame("/ws/me/", [(b"x-session-token", token.encode())])
        envelope = await first_frame(f"/ws/games/{game_id}/", [ORIGIN, (b"cookie", cookie)])
        spectator = await first_frame(
            f"/ws/games/{game_id}/", [(b"x-session-token", token.encode())]
        )
    finally:
        release.set()
        await busy
    assert (hello["type"], hello["user"]) == ("hello", "carol")
    assert (envelope["type"], envelope["envelope"]["you"]) == ("game", 0)
    assert spectator["envelope"]["you"] is None


async def test_a_socket_costs_two_queries_to_authenticate_one_to_join_a_game(game, carol, queries):
    game_id = await game()
    token = await sync_to_async(app_login)(carol)
    _, cookie = await sync_to_async(signed_in)(carol)

    queries.clear()
    await first_frame("/ws/me/", [(b"x-session-token", token.encode())])
    tables = tables_read(queries)
    assert tables[:1] == ['"accounts_user"']
    # Then the hello's two counts, read at the same time: the notifications' and the messages'
    # (greycircle.conversations.consumers).
    assert sorted(tables[1:]) == ['"conversations_directmessage"', '"notifications_notification"']
    queries.clear()
    await first_frame(f"/ws/games/{game_id}/", [ORIGIN, (b"cookie", cookie)])
    tables = tables_read(queries)
    assert tables[:2] == ['"accounts_user"', '"games_seat"']
    # What follows is the game's first frame: selectors.game_get reads the game with its seats
    # in one query (from the seats, joined to their game and users), and the view needs no more.
    assert tables[2:] == ['"games_seat"']
    assert {thread for thread, _ in queries} <= {
        f"socket-sync-{index}" for index in range(socket_threads.THREADS)
    }


def tables_read(queries: list[tuple[str, str]]) -> list[str]:
    """The table each query reads, leaving out at most one read of the session (none when the
    session engine found it in the cache)."""
    tables = [sql.split(" FROM ")[1].split()[0] for _, sql in queries]
    assert tables.count('"django_session"') <= 1, tables
    return [table for table in tables if table != '"django_session"']


async def test_no_credential_costs_no_query(game, queries):
    game_id = await game()
    queries.clear()
    socket = FramesChecked(application, f"/ws/games/{game_id}/", headers=[ORIGIN])
    assert (await socket.connect())[0]
    assert (await socket.receive_output())["code"] == 4401
    assert queries == []


async def test_calls_asked_for_before_an_identical_one_starts_share_it():
    gate, calls = threading.Event(), []

    def hold() -> None:
        gate.wait()

    def read(value: int) -> int:
        calls.append(value)
        return value * 2

    # Keep every thread busy, so that the shared calls wait in the queue.
    held = [socket_threads.run_for_socket(hold) for _ in range(socket_threads.THREADS)]
    holding = asyncio.gather(*held)
    await asyncio.sleep(0.05)
    first = asyncio.ensure_future(socket_threads.run_shared(("k", 1), read, 1))
    second = asyncio.ensure_future(socket_threads.run_shared(("k", 1), read, 99))
    other = asyncio.ensure_future(socket_threads.run_shared(("k", 2), read, 2))
    await asyncio.sleep(0.05)
    second.cancel()  # one caller giving up does not cancel the call for the others
    gate.set()
    await holding
    assert (await first, await other) == (2, 4)
    assert calls == [1, 2]
    # Once the call has started, a new caller gets a call of its own.
    assert await socket_threads.run_shared(("k", 1), read, 3) == 6
    assert calls == [1, 2, 3]
